/* SPDX-License-Identifier: BSD-3-Clause */
/* guest.c - PCI devices and NUMA nodes from sysfs; see guest.h.
 *
 * Config-space layout used (PCI Local Bus / PCI Express Base specifications):
 * Status register at 0x06, bit 4 = capability list present; first capability
 * pointer at 0x34; each capability starts with its id byte and the next
 * pointer byte; the PCI Express capability (id 0x10) holds Link Capabilities
 * at offset 0x0c, whose bits 31:24 are the port number. */
#include "cli/discover/guest.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/discover/discover.h"
#include "errbuf.h"
#include "fileread.h"
#include "numparse.h"

int nn_guest_config_port_number(const unsigned char *cfg, size_t len) {
  if (!cfg || len < 0x40 || !(cfg[0x06] & 0x10)) return -1;
  unsigned ptr = cfg[0x34] & 0xfcu;
  for (int step = 0; step < 48 && ptr >= 0x40 && ptr + 2 <= len; step++) {
    if (cfg[ptr] == 0x10) {
      if (ptr + 0x10 > len) return -1;
      return cfg[ptr + 0x0f]; /* LnkCap is little-endian: bits 31:24 are its last byte */
    }
    ptr = cfg[ptr + 1] & 0xfcu;
  }
  return -1;
}

int nn_guest_hostpci_from_port_address(const struct nn_busid *p) {
  if (p->domain != 0 || p->bus != 0) return -1;
  if (p->dev == 0x1c && p->func <= 3) return p->func;      /* ich9-pcie-port-1..4 */
  if (p->dev == 0x10) return 4 + p->func;                  /* ich9-pcie-port-5..12 */
  if (p->dev == 0x11 && p->func <= 3) return 12 + p->func; /* ich9-pcie-port-13..16 */
  return -1;
}

int nn_guest_hostpci(const struct nn_guest_pci *p, const char **method, char *note,
                     size_t note_size) {
  note[0] = 0;
  *method = NULL;
  if (!p->has_port) return -1;
  int by_addr = nn_guest_hostpci_from_port_address(&p->port);
  if (p->port_number >= 1 && p->port_number <= 16) {
    *method = "LnkCap port number";
    if (by_addr >= 0 && by_addr != p->port_number - 1)
      snprintf(note, note_size, "port address suggests hostpci%d, port number %d says hostpci%d",
               by_addr, p->port_number, p->port_number - 1);
    return p->port_number - 1;
  }
  if (by_addr >= 0) {
    *method = "root-port address";
    if (p->port_note[0]) snprintf(note, note_size, "%s", p->port_note);
  }
  return by_addr;
}

/* Reads a small sysfs file into buf (NUL-terminated, trailing newline cut). */
static int read_small(const char *path, char *buf, size_t size) {
  char *text = NULL;
  size_t len = 0;
  /* sysfs attributes say 4096 bytes whatever they hold: cap at a page or more, keep what fits */
  if (nn_file_read(AT_FDCWD, path, 0, size > 65536 ? size : 65536, &text, &len, NULL, 0)) return -1;
  if (len > size - 1) len = size - 1;
  memcpy(buf, text, len);
  buf[len] = 0;
  free(text);
  ssize_t n = (ssize_t)len;
  while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' ')) buf[--n] = 0;
  return 0;
}

/* A sysfs number: "0x10de" (vendor, class) or decimal ("-1" for numa_node). */
static long read_number(const char *dir, const char *file, long fallback) {
  char path[PATH_MAX + 64], buf[64];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  if (read_small(path, buf, sizeof buf) || !buf[0]) return fallback;
  int v;
  return nn_int_parse_base(buf, 0, INT_MIN, INT_MAX, &v) ? fallback : v;
}

/* Whether s starts with "DDDD:BB/" (hex digits): a PCI root bus directory's name. */
static int is_root_bus_dir(const char *s) {
  for (int i = 0; i < 7; i++)
    if (i == 4 ? s[i] != ':' : !isxdigit((unsigned char)s[i])) return 0;
  return s[7] == '/';
}

/* The topmost device directory under ROOT/sys/devices/pciDDDD:BB/ in `real`, i.e.
 * the root port, when it is not the device itself. */
static int find_root_port(const char *real, const char *self, char *port_dir, size_t size,
                          struct nn_busid *port) {
  const char *p = strstr(real, "/pci");
  while (p) {
    const char *comp = p + 4, *slash = strchr(comp, '/');
    if (slash && is_root_bus_dir(comp)) {
      const char *dev = slash + 1, *end = strchr(dev, '/');
      char name[64];
      size_t n = end ? (size_t)(end - dev) : strlen(dev);
      if (n >= sizeof name || !end) return -1; /* the device itself sits on the root bus */
      memcpy(name, dev, n);
      name[n] = 0;
      if (!strcmp(name, self) || nn_busid_parse(name, port)) return -1;
      snprintf(port_dir, size, "%.*s", (int)(end - real), real);
      return 0;
    }
    p = strstr(p + 1, "/pci");
  }
  return -1;
}

static void read_port(struct nn_guest_pci *p, const char *real, const char *self) {
  char dir[PATH_MAX], path[PATH_MAX + 16];
  unsigned char cfg[4096] = {0};
  p->port_number = -1;
  if (find_root_port(real, self, dir, sizeof dir, &p->port)) return;
  p->has_port = 1;
  snprintf(path, sizeof path, "%s/config", dir);
  char *space = NULL;
  size_t got = 0;
  ssize_t n =
    nn_file_read(AT_FDCWD, path, 0, sizeof cfg, &space, &got, NULL, 0) ? -1 : (ssize_t)got;
  if (space) memcpy(cfg, space, got);
  free(space);
  if (n < 0) {
    snprintf(p->port_note, sizeof p->port_note, "root port config space unreadable");
    return;
  }
  p->port_number = nn_guest_config_port_number(cfg, (size_t)n);
  if (p->port_number < 0)
    snprintf(p->port_note, sizeof p->port_note,
             n <= 64 ? "root port config space beyond 64 bytes unreadable (not root?)"
                     : "no PCIe port number in the root port's config space");
}

static int read_device(struct nn_guest *g, const char *devdir, const char *name) {
  char link[PATH_MAX + 300], real[PATH_MAX];
  struct nn_guest_pci *p = &g->pcis[g->n_pcis];
  memset(p, 0, sizeof *p);
  if (nn_busid_parse(name, &p->bus)) return 0; /* not a bus id: ignore */
  snprintf(link, sizeof link, "%s/%s", devdir, name);
  if (!realpath(link, real)) return 0;
  p->vendor = (unsigned)read_number(real, "vendor", 0);
  p->class_code = (unsigned)read_number(real, "class", 0) & 0xffffffu;
  long numa = read_number(real, "numa_node", -1);
  p->numa_node = numa < 0 || numa > NN_MAX_NUMA_ID ? -1 : (int)numa;
  p->is_gpu = p->vendor == NN_DISCOVERY_NVIDIA && (p->class_code >> 16) == 0x03;
  read_port(p, real, name);
  g->n_pcis++;
  return 0;
}

static int pci_cmp(const void *a, const void *b) {
  return nn_discovery_busid_compare(&((const struct nn_guest_pci *)a)->bus,
                                    &((const struct nn_guest_pci *)b)->bus);
}

static int scan_pci(struct nn_guest *g, char *err, size_t errsz) {
  char dir[PATH_MAX];
  snprintf(dir, sizeof dir, "%s/sys/bus/pci/devices", g->root);
  DIR *d = opendir(dir);
  if (!d) {
    nn_errbuf_set(err, errsz, "%s: cannot read: %s", dir, strerror(errno));
    return -1;
  }
  g->pcis = calloc(NN_GUEST_MAX_PCI, sizeof *g->pcis);
  for (struct dirent *e; g->pcis && (e = readdir(d)) && g->n_pcis < NN_GUEST_MAX_PCI;)
    if (e->d_name[0] != '.') read_device(g, dir, e->d_name);
  closedir(d);
  if (!g->pcis) {
    nn_errbuf_set(err, errsz, "out of memory");
    return -1;
  }
  qsort(g->pcis, (size_t)g->n_pcis, sizeof *g->pcis, pci_cmp);
  return 0;
}

static int numa_cmp(const void *a, const void *b) {
  return ((const struct nn_guest_numa *)a)->node - ((const struct nn_guest_numa *)b)->node;
}

static void scan_numa(struct nn_guest *g) {
  char dir[PATH_MAX], path[PATH_MAX + 300], buf[4096];
  snprintf(dir, sizeof dir, "%s/sys/devices/system/node", g->root);
  DIR *d = opendir(dir);
  if (!d) return;
  g->numas = calloc(NN_MAX_NUMA_ID + 1, sizeof *g->numas);
  for (struct dirent *e; g->numas && (e = readdir(d)) && g->n_numas <= NN_MAX_NUMA_ID;) {
    int node;
    if (strncmp(e->d_name, "node", 4) || nn_int_parse(e->d_name + 4, 0, NN_MAX_NUMA_ID, &node))
      continue;
    snprintf(path, sizeof path, "%s/%s/cpulist", dir, e->d_name);
    if (read_small(path, buf, sizeof buf)) continue;
    g->numas[g->n_numas].node = node;
    g->numas[g->n_numas].cpus = strdup(buf);
    g->n_numas++;
  }
  closedir(d);
  if (g->numas) qsort(g->numas, (size_t)g->n_numas, sizeof *g->numas, numa_cmp);
}

int nn_guest_scan(const char *root, struct nn_guest *g, char *err, size_t errsz) {
  memset(g, 0, sizeof *g);
  snprintf(g->root, sizeof g->root, "%s", !strcmp(root, "/") ? "" : root);
  if (scan_pci(g, err, errsz)) {
    nn_guest_free(g);
    return -1;
  }
  scan_numa(g);
  return 0;
}

void nn_guest_free(struct nn_guest *g) {
  for (int i = 0; g->numas && i < g->n_numas; i++) free(g->numas[i].cpus);
  free(g->numas);
  free(g->pcis);
  g->numas = NULL;
  g->pcis = NULL;
  g->n_numas = g->n_pcis = 0;
}

const struct nn_guest_pci *nn_guest_find(const struct nn_guest *g, const struct nn_busid *bus) {
  for (int i = 0; i < g->n_pcis; i++)
    if (!nn_discovery_busid_compare(&g->pcis[i].bus, bus)) return &g->pcis[i];
  return NULL;
}

int nn_guest_gpu_count(const struct nn_guest *g) {
  int n = 0;
  for (int i = 0; i < g->n_pcis; i++) n += g->pcis[i].is_gpu;
  return n;
}
