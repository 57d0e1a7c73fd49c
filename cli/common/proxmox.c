/* SPDX-License-Identifier: BSD-3-Clause */
/* proxmox.c - Proxmox VM configs and the cluster PCI mapping; see proxmox.h.
 *
 * Relied on (from qemu-server's PVE/QemuServer/PCI.pm, pve-guest-common's PVE/Mapping/PCI.pm
 * and pve-docs' qm.adoc): hostpci ids are `[domain:]bus:dev[.func]`, several
 * joined by `;`; the default key of a hostpci value is `host`; `host` and
 * `mapping` exclude each other; PCI.pm's device choice at VM start first marks
 * every explicit host= id as used, then walks the hostpci entries in order
 * and gives each mapping entry the first of its node's `map` alternatives
 * whose ids are all still free. */
#include "cli/common/proxmox.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/common/text.h"
#include "errbuf.h"
#include "fileread.h"
#include "numparse.h"

#define LINE_MAX_BYTES 4096

/* Reads a regular file of at most NN_PVE_MAX_FILE bytes (the one bounded reader). */
static int read_text(const char *path, char **buf, size_t *len, char *err, size_t errsz) {
  return nn_file_read(AT_FDCWD, path, 0, NN_PVE_MAX_FILE, buf, len, err, errsz) ? -1 : 0;
}

/* Line iterator over a buffer: copies the next line (CR stripped) into `line`. */
struct lines {
  const char *name, *p, *end;
  int no;
};

static int next_line(struct lines *it, char *line, size_t size, char *err, size_t errsz) {
  if (it->p >= it->end) return 0;
  const char *nl = memchr(it->p, '\n', (size_t)(it->end - it->p));
  size_t n = (size_t)((nl ? nl : it->end) - it->p);
  it->no++;
  if (memchr(it->p, 0, n)) {
    nn_errbuf_set(err, errsz, "%s:%d: NUL byte", it->name, it->no);
    return -1;
  }
  if (n >= size) {
    nn_errbuf_set(err, errsz, "%s:%d: line longer than %zu bytes", it->name, it->no, size - 1);
    return -1;
  }
  memcpy(line, it->p, n);
  if (n && line[n - 1] == '\r') n--;
  line[n] = 0;
  it->p = nl ? nl + 1 : it->end;
  return 1;
}

/* The n hex digits at s (a field ended by ':' or '.', or the end of the text). */
static int hex_field(const char *s, size_t n, unsigned max, unsigned *out) {
  uint64_t v;
  const char *end;
  if (n == 0 || n > 8 || nn_hex_parse_prefix(s, max, &v, &end) || end != s + n) return -1;
  *out = (unsigned)v;
  return 0;
}

int nn_proxmox_pciid_parse(const char *s, struct nn_proxmox_pciid *out) {
  unsigned dom = 0, bus, dev, fn = 0;
  const char *c1 = strchr(s, ':');
  if (!c1) return -1;
  const char *c2 = strchr(c1 + 1, ':');
  if (c2) { /* domain given */
    if (hex_field(s, (size_t)(c1 - s), 0xffff, &dom)) return -1;
    s = c1 + 1;
    c1 = c2;
  }
  const char *dot = strchr(c1 + 1, '.');
  size_t devlen = dot ? (size_t)(dot - c1 - 1) : strlen(c1 + 1);
  if ((size_t)(c1 - s) != 2 || hex_field(s, 2, 0xff, &bus)) return -1;
  if (devlen != 2 || hex_field(c1 + 1, 2, 0x1f, &dev)) return -1;
  if (dot && (strlen(dot + 1) != 1 || hex_field(dot + 1, 1, 7, &fn))) return -1;
  out->bus.domain = (uint16_t)dom;
  out->bus.bus = (uint8_t)bus;
  out->bus.dev = (uint8_t)dev;
  out->bus.func = (uint8_t)fn;
  out->has_func = dot != NULL;
  return 0;
}

void nn_proxmox_pciid_format(const struct nn_proxmox_pciid *id, char *buf, size_t size) {
  if (id->has_func)
    snprintf(buf, size, "%04x:%02x:%02x.%x", id->bus.domain, id->bus.bus, id->bus.dev,
             id->bus.func);
  else snprintf(buf, size, "%04x:%02x:%02x", id->bus.domain, id->bus.bus, id->bus.dev);
}

/* Parses a `;` list of ids into ids[]; returns the count or -1 with the problem in bad. */
static int parse_id_list(const char *list, struct nn_proxmox_pciid *ids, char *bad,
                         size_t bad_size) {
  int n = 0;
  for (const char *p = list;; p++) {
    size_t len = strcspn(p, ";");
    char tok[64];
    if (len == 0) {
      snprintf(bad, bad_size, "empty id in the list '%.64s'", list);
      return -1;
    }
    if (n == NN_PVE_MAX_IDS) {
      snprintf(bad, bad_size, "more than %d ids in one list", NN_PVE_MAX_IDS);
      return -1;
    }
    snprintf(tok, sizeof tok, "%.*s", (int)(len < sizeof tok ? len : sizeof tok - 1), p);
    if (len >= sizeof tok || nn_proxmox_pciid_parse(tok, &ids[n])) {
      snprintf(bad, bad_size, "'%.64s' is not a PCI id ([dddd:]bb:dd[.f])", tok);
      return -1;
    }
    n++;
    p += len;
    if (!*p) return n;
  }
}

/* Splits "k=v,k=v" in place; calls `fn` per item. The first item may lack "k="
 * (then `default_key` is used). */
typedef int (*item_fn)(void *ctx, const char *key, const char *value, char *bad, size_t bad_size);

static int for_each_item(char *value, const char *default_key, item_fn fn, void *ctx, char *bad,
                         size_t bad_size) {
  int first = 1;
  for (char *save = NULL, *tok = strtok_r(value, ",", &save); tok;
       tok = strtok_r(NULL, ",", &save)) {
    char *eq = strchr(tok, '=');
    const char *key = default_key;
    if (eq) {
      *eq = 0;
      key = tok;
      tok = eq + 1;
    } else if (!first || !default_key) {
      snprintf(bad, bad_size, "'%.64s' is not key=value", tok);
      return -1;
    }
    first = 0;
    if (fn(ctx, nn_text_trim((char *)key), nn_text_trim(tok), bad, bad_size)) return -1;
  }
  return 0;
}

/* ---- VM config ---- */

static int hostpci_item(void *ctx, const char *key, const char *value, char *bad, size_t bad_size) {
  struct nn_proxmox_hostpci *h = ctx;
  if (!strcmp(key, "host")) {
    if (h->n_ids) {
      snprintf(bad, bad_size, "host given twice");
      return -1;
    }
    int n = parse_id_list(value, h->ids, bad, bad_size);
    if (n < 0) return -1;
    h->n_ids = n;
  } else if (!strcmp(key, "mapping")) {
    if (h->mapping || !*value) {
      snprintf(bad, bad_size, h->mapping ? "mapping given twice" : "empty mapping name");
      return -1;
    }
    h->mapping = strdup(value);
  } else if (!strcmp(key, "pcie")) {
    h->pcie = !strcmp(value, "1") || !strcmp(value, "on") || !strcmp(value, "yes");
  }
  /* Other options (rombar, x-vga, romfile, mdev, ...) do not move the device. */
  return 0;
}

static int parse_hostpci(struct nn_proxmox_vm *vm, int index, const char *value, int line,
                         char *bad, size_t bad_size) {
  if (index < 0 || index >= NN_PVE_MAX_HOSTPCI) {
    snprintf(bad, bad_size, "hostpci%d: index out of range 0-%d", index, NN_PVE_MAX_HOSTPCI - 1);
    return -1;
  }
  int at = vm->n_hostpci;
  while (at > 0 && vm->hostpci[at - 1].index > index) at--;
  if (at > 0 && vm->hostpci[at - 1].index == index) {
    snprintf(bad, bad_size, "hostpci%d given twice", index);
    return -1;
  }
  memmove(&vm->hostpci[at + 1], &vm->hostpci[at],
          (size_t)(vm->n_hostpci - at) * sizeof vm->hostpci[0]);
  struct nn_proxmox_hostpci *h = &vm->hostpci[at];
  memset(h, 0, sizeof *h);
  vm->n_hostpci++;
  h->index = index;
  h->line = line;
  h->raw = strdup(value);
  char copy[LINE_MAX_BYTES];
  snprintf(copy, sizeof copy, "%s", value);
  if (for_each_item(copy, "host", hostpci_item, h, bad, bad_size)) return -1;
  if (!h->mapping == !h->n_ids) {
    snprintf(bad, bad_size, "hostpci%d: needs exactly one of host= and mapping=", index);
    return -1;
  }
  return 0;
}

static int parse_int(const char *s, long max, long *out) {
  int v;
  if (*s == '+' || *s == '-' || nn_int_parse(s, 0, max > INT32_MAX ? INT32_MAX : (int)max, &v))
    return -1;
  *out = v;
  return 0;
}

static int numbered(const char *key, const char *prefix, int *n) {
  size_t pl = strlen(prefix);
  long v;
  if (strncmp(key, prefix, pl) || !key[pl] || parse_int(key + pl, 99, &v)) return 0;
  *n = (int)v;
  return 1;
}

static int vm_scalar(struct nn_proxmox_vm *vm, const char *key, const char *value, char *bad,
                     size_t bad_size) {
  long v;
  if (!strcmp(key, "machine")) {
    free(vm->machine);
    vm->machine = strdup(value);
  } else if (!strcmp(key, "args")) {
    free(vm->args);
    vm->args = strdup(value);
  } else if (!strcmp(key, "cpu")) {
    free(vm->cpu);
    vm->cpu = strdup(value);
  } else if (!strcmp(key, "sockets") || !strcmp(key, "cores") || !strcmp(key, "numa") ||
             !strcmp(key, "memory")) {
    if (parse_int(value, 1L << 40, &v)) {
      snprintf(bad, bad_size, "%s: '%.64s' is not a number", key, value);
      return -1;
    }
    if (!strcmp(key, "sockets")) vm->sockets = (int)(v > 4096 ? 4096 : v);
    else if (!strcmp(key, "cores")) vm->cores = (int)(v > 4096 ? 4096 : v);
    else if (!strcmp(key, "numa")) vm->numa = v != 0;
    else vm->memory_mb = v;
  }
  return 0;
}

static int vm_line(struct nn_proxmox_vm *vm, char *line, int no, char *bad, size_t bad_size) {
  char *colon = strchr(line, ':');
  int n;
  if (!colon) {
    snprintf(bad, bad_size, "not a 'key: value' line");
    return -1;
  }
  *colon = 0;
  char *key = nn_text_trim(line), *value = nn_text_trim(colon + 1);
  if (numbered(key, "hostpci", &n)) return parse_hostpci(vm, n, value, no, bad, bad_size);
  if (numbered(key, "numa", &n)) {
    if (n >= NN_PVE_MAX_NUMA || vm->n_numa_lines == NN_PVE_MAX_NUMA) {
      snprintf(bad, bad_size, "%s: guest NUMA node out of range 0-%d", key, NN_PVE_MAX_NUMA - 1);
      return -1;
    }
    struct nn_proxmox_vm_numa *l = &vm->numa_lines[vm->n_numa_lines++];
    l->index = n;
    l->raw = strdup(value);
    l->line = no;
    return 0;
  }
  return vm_scalar(vm, key, value, bad, bad_size);
}

int nn_proxmox_vm_parse(const char *name, const char *buf, size_t len, struct nn_proxmox_vm *vm,
                        char *err, size_t errsz) {
  struct lines it = {name, buf, buf + len, 0};
  char line[LINE_MAX_BYTES + 2], bad[256];
  int r;
  memset(vm, 0, sizeof *vm);
  vm->path = strdup(name);
  while ((r = next_line(&it, line, sizeof line, err, errsz)) > 0) {
    char *s = nn_text_trim(line);
    if (!*s || *s == '#') continue;
    if (*s == '[') break; /* snapshots and pending changes follow */
    if (vm_line(vm, s, it.no, bad, sizeof bad)) {
      nn_errbuf_set(err, errsz, "%s:%d: %s", name, it.no, bad);
      r = -1;
      break;
    }
  }
  if (r < 0) nn_proxmox_vm_free(vm);
  return r < 0 ? -1 : 0;
}

int nn_proxmox_vm_load(const char *path, struct nn_proxmox_vm *vm, char *err, size_t errsz) {
  char *buf;
  size_t len;
  memset(vm, 0, sizeof *vm);
  if (read_text(path, &buf, &len, err, errsz)) return -1;
  int rc = nn_proxmox_vm_parse(path, buf, len, vm, err, errsz);
  free(buf);
  return rc;
}

void nn_proxmox_vm_free(struct nn_proxmox_vm *vm) {
  for (int i = 0; i < vm->n_hostpci; i++) {
    free(vm->hostpci[i].raw);
    free(vm->hostpci[i].mapping);
  }
  for (int i = 0; i < vm->n_numa_lines; i++) free(vm->numa_lines[i].raw);
  free(vm->path);
  free(vm->machine);
  free(vm->args);
  free(vm->cpu);
  memset(vm, 0, sizeof *vm);
}

int nn_proxmox_vm_is_q35(const struct nn_proxmox_vm *vm) {
  const char *m = vm->machine;
  if (!m) return 0;
  /* "q35", "pc-q35-8.1", and the viommu/type options after a comma. */
  return !strncmp(m, "q35", 3) || !strncmp(m, "pc-q35", 6) || strstr(m, "type=q35") ||
         strstr(m, "type=pc-q35");
}

/* ---- cluster PCI mapping ---- */

struct map_ctx {
  struct nn_proxmox_map_entry *e;
  int have_path;
};

static int map_item(void *ctx, const char *key, const char *value, char *bad, size_t bad_size) {
  struct map_ctx *c = ctx;
  if (!strcmp(key, "node")) {
    snprintf(c->e->node, sizeof c->e->node, "%s", value);
  } else if (!strcmp(key, "path")) {
    int n = parse_id_list(value, c->e->ids, bad, bad_size);
    if (n < 0) return -1;
    c->e->n_ids = n;
    c->have_path = 1;
  } else if (!strcmp(key, "id")) {
    snprintf(c->e->id, sizeof c->e->id, "%s", value);
  }
  return 0;
}

static int add_map_entry(struct nn_proxmox_mapping *m, char *value, int no, char *bad,
                         size_t bad_size) {
  struct nn_proxmox_map_entry *grown =
    realloc(m->entries, (size_t)(m->n_entries + 1) * sizeof *grown);
  if (!grown) {
    snprintf(bad, bad_size, "out of memory");
    return -1;
  }
  m->entries = grown;
  struct nn_proxmox_map_entry *e = &m->entries[m->n_entries];
  memset(e, 0, sizeof *e);
  e->line = no;
  struct map_ctx c = {e, 0};
  if (for_each_item(value, NULL, map_item, &c, bad, bad_size)) return -1;
  if (!e->node[0] || !c.have_path) {
    snprintf(bad, bad_size, "map line of '%s' needs node= and path=", m->name);
    return -1;
  }
  m->n_entries++;
  return 0;
}

static int add_mapping(struct nn_proxmox_mappings *ms, const char *name, int no, char *bad,
                       size_t bad_size) {
  if (nn_proxmox_mappings_find(ms, name)) {
    snprintf(bad, bad_size, "mapping '%.64s' defined twice", name);
    return -1;
  }
  struct nn_proxmox_mapping *grown = realloc(ms->maps, (size_t)(ms->n_maps + 1) * sizeof *grown);
  if (!grown) {
    snprintf(bad, bad_size, "out of memory");
    return -1;
  }
  ms->maps = grown;
  struct nn_proxmox_mapping *m = &ms->maps[ms->n_maps++];
  memset(m, 0, sizeof *m);
  m->name = strdup(name);
  m->line = no;
  return 0;
}

static int mapping_line(struct nn_proxmox_mappings *ms, struct nn_proxmox_mapping **cur, char *raw,
                        int no, char *bad, size_t bad_size) {
  int indented = raw[0] == ' ' || raw[0] == '\t';
  char *s = nn_text_trim(raw);
  if (!*s) { /* a blank line ends the section */
    *cur = NULL;
    return 0;
  }
  if (*s == '#') return 0;
  if (!indented) {
    /* The section header is the mapping's name alone; "pci: name" is accepted too. */
    if (!strncmp(s, "pci:", 4)) s = nn_text_trim(s + 4);
    if (strpbrk(s, " \t,=")) {
      snprintf(bad, bad_size, "'%.64s' is not a mapping name", s);
      return -1;
    }
    if (add_mapping(ms, s, no, bad, bad_size)) return -1;
    *cur = &ms->maps[ms->n_maps - 1];
    return 0;
  }
  if (!*cur) {
    snprintf(bad, bad_size, "property line outside a mapping section");
    return -1;
  }
  size_t klen = strcspn(s, " \t");
  if (klen == 3 && !strncmp(s, "map", 3))
    return add_map_entry(*cur, nn_text_trim(s + 3), no, bad, bad_size);
  return 0; /* description, mdev, ... */
}

int nn_proxmox_mappings_parse(const char *name, const char *buf, size_t len,
                              struct nn_proxmox_mappings *ms, char *err, size_t errsz) {
  struct lines it = {name, buf, buf + len, 0};
  char line[LINE_MAX_BYTES + 2], bad[256];
  struct nn_proxmox_mapping *cur = NULL;
  int r;
  memset(ms, 0, sizeof *ms);
  ms->path = strdup(name);
  while ((r = next_line(&it, line, sizeof line, err, errsz)) > 0) {
    if (mapping_line(ms, &cur, line, it.no, bad, sizeof bad)) {
      nn_errbuf_set(err, errsz, "%s:%d: %s", name, it.no, bad);
      r = -1;
      break;
    }
    if (cur) cur = &ms->maps[ms->n_maps - 1]; /* realloc may have moved it */
  }
  if (r < 0) nn_proxmox_mappings_free(ms);
  return r < 0 ? -1 : 0;
}

int nn_proxmox_mappings_load(const char *path, struct nn_proxmox_mappings *ms, char *err,
                             size_t errsz) {
  char *buf;
  size_t len;
  memset(ms, 0, sizeof *ms);
  if (read_text(path, &buf, &len, err, errsz)) return -1;
  int rc = nn_proxmox_mappings_parse(path, buf, len, ms, err, errsz);
  free(buf);
  return rc;
}

void nn_proxmox_mappings_free(struct nn_proxmox_mappings *ms) {
  for (int i = 0; i < ms->n_maps; i++) {
    free(ms->maps[i].name);
    free(ms->maps[i].entries);
  }
  free(ms->maps);
  free(ms->path);
  memset(ms, 0, sizeof *ms);
}

const struct nn_proxmox_mapping *nn_proxmox_mappings_find(const struct nn_proxmox_mappings *ms,
                                                          const char *name) {
  for (int i = 0; ms && i < ms->n_maps; i++)
    if (!strcmp(ms->maps[i].name, name)) return &ms->maps[i];
  return NULL;
}

/* ---- assignment ---- */

/* Two ids overlap when they name the same function, or one names a whole device. */
static int ids_overlap(const struct nn_proxmox_pciid *a, const struct nn_proxmox_pciid *b) {
  if (a->bus.domain != b->bus.domain || a->bus.bus != b->bus.bus || a->bus.dev != b->bus.dev)
    return 0;
  return !a->has_func || !b->has_func || a->bus.func == b->bus.func;
}

struct used {
  struct nn_proxmox_pciid ids[NN_PVE_MAX_HOSTPCI * NN_PVE_MAX_IDS];
  int n;
};

static int is_used(const struct used *u, const struct nn_proxmox_pciid *ids, int n) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < u->n; j++)
      if (ids_overlap(&ids[i], &u->ids[j])) return 1;
  return 0;
}

static void mark_used(struct used *u, const struct nn_proxmox_pciid *ids, int n) {
  for (int i = 0; i < n && u->n < (int)(sizeof u->ids / sizeof u->ids[0]); i++)
    u->ids[u->n++] = ids[i];
}

static int assign_one(struct nn_proxmox_hostpci *h, const struct nn_proxmox_vm *vm,
                      const struct nn_proxmox_mappings *maps, const char *node, struct used *u,
                      char *err, size_t errsz) {
  const struct nn_proxmox_mapping *m = nn_proxmox_mappings_find(maps, h->mapping);
  int for_node = 0;
  if (!m) {
    nn_errbuf_set(err, errsz, "%s:%d: hostpci%d: mapping '%s' is not defined in %s", vm->path,
                  h->line, h->index, h->mapping,
                  maps ? maps->path : "the PCI mapping file (none given: --pci-mapping)");
    return -1;
  }
  for (int i = 0; i < m->n_entries; i++) {
    const struct nn_proxmox_map_entry *e = &m->entries[i];
    if (strcmp(e->node, node)) continue;
    for_node++;
    if (is_used(u, e->ids, e->n_ids)) continue;
    memcpy(h->ids, e->ids, sizeof e->ids);
    h->n_ids = e->n_ids;
    h->map_line = e->line;
    mark_used(u, e->ids, e->n_ids);
    return 0;
  }
  if (!for_node)
    nn_errbuf_set(err, errsz, "%s:%d: hostpci%d: mapping '%s' (%s:%d) has no device on node '%s'",
                  vm->path, h->line, h->index, h->mapping, maps->path, m->line, node);
  else
    nn_errbuf_set(err, errsz,
                  "%s:%d: hostpci%d: every device of mapping '%s' on node '%s' is already "
                  "used by another hostpci entry",
                  vm->path, h->line, h->index, h->mapping, node);
  return -1;
}

int nn_proxmox_assign(struct nn_proxmox_vm *vm, const struct nn_proxmox_mappings *maps,
                      const char *node, char *err, size_t errsz) {
  struct used u;
  u.n = 0;
  for (int i = 0; i < vm->n_hostpci; i++) {
    struct nn_proxmox_hostpci *h = &vm->hostpci[i];
    if (h->mapping) continue;
    if (is_used(&u, h->ids, h->n_ids)) {
      nn_errbuf_set(err, errsz, "%s:%d: hostpci%d: a device is assigned twice", vm->path, h->line,
                    h->index);
      return -1;
    }
    mark_used(&u, h->ids, h->n_ids);
  }
  for (int i = 0; i < vm->n_hostpci; i++)
    if (vm->hostpci[i].mapping && assign_one(&vm->hostpci[i], vm, maps, node, &u, err, errsz))
      return -1;
  return 0;
}

int nn_proxmox_mappings_for_vm(const struct nn_proxmox_vm *vm, const char *path,
                               struct nn_proxmox_mappings *m, int *have, char *err, size_t errsz) {
  *have = path != NULL;
  for (int i = 0; i < vm->n_hostpci; i++)
    if (vm->hostpci[i].mapping) *have = 1;
  if (!*have) return 0;
  if (nn_proxmox_mappings_load(path ? path : "/etc/pve/mapping/pci.cfg", m, err, errsz)) {
    *have = 0;
    return -1;
  }
  return 0;
}

void nn_proxmox_node_name(char *buf, size_t size) {
  if (gethostname(buf, size)) snprintf(buf, size, "localhost");
  buf[size - 1] = 0;
  buf[strcspn(buf, ".")] = 0;
}
