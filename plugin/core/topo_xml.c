/* SPDX-License-Identifier: BSD-3-Clause */
/* topo_xml.c - the NCCL topology XML, written with the plugin's own escaping writer. */
#include "topo_xml.h"

#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errbuf.h"
#include "fileread.h"
#include "xml_writer.h"

/* ---- CPU lists ---- */

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* A list as sysfs writes it (a trailing newline) or as a user types it (blanks around). */
int nn_cpulist_to_cpumap(const char *list, char *out, size_t outsz) {
  if (!list) return -1;
  while (is_blank(*list)) list++;
  size_t n = strlen(list);
  while (n && is_blank(list[n - 1])) n--;
  char trimmed[4096];
  if (n >= sizeof trimmed) return -1;
  memcpy(trimmed, list, n);
  trimmed[n] = 0;
  uint32_t mask[NN_CPUMASK_WORDS];
  int highest = nn_cpulist_parse(trimmed, mask, NULL, 0);
  if (highest < 0) return -1;
  int len = nn_cpumask_format(mask, highest, out, outsz);
  return len < 0 ? -2 : len;
}

/* ---- reading the mapping ---- */

static int nn_txml_cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* Distinct NUMA ids of the GPUs and NICs, ascending, into ids (room for n_gpus + n_nics). */
static int nn_txml_numa_ids(const struct nn_config *cfg, int *ids) {
  int n = 0;
  for (int i = 0; i < cfg->n_gpus; i++) ids[n++] = cfg->gpus[i].numa;
  for (int i = 0; i < cfg->n_nics; i++) ids[n++] = cfg->nics[i].numa;
  qsort(ids, (size_t)n, sizeof *ids, nn_txml_cmp_int);
  int m = 0;
  for (int i = 0; i < n; i++)
    if (m == 0 || ids[m - 1] != ids[i]) ids[m++] = ids[i];
  return m;
}

static int nn_txml_check_input(const struct nn_config *cfg, const struct nn_cpu_kind *cpu,
                               char *err, size_t errsz) {
  if (!cfg || cfg->n_gpus <= 0 || !cfg->gpus) {
    nn_errbuf_set(err, errsz, "the mapping has no gpu lines: no topology to write");
    return -1;
  }
  for (int i = 0; i < cfg->n_gpus; i++) {
    const struct nn_gpu *g = &cfg->gpus[i];
    if (!g->has_bus) {
      nn_errbuf_set(err, errsz,
                    "line %d: GPU %d has no bus= (a host-side mapping): no topology to write",
                    g->line, g->index);
      return -1;
    }
    if (g->numa < 0 || g->numa > NN_MAX_NUMA_ID) {
      nn_errbuf_set(err, errsz, "line %d: GPU %d has NUMA node %d, outside 0-%d", g->line, g->index,
                    g->numa, NN_MAX_NUMA_ID);
      return -1;
    }
  }
  for (int i = 0; i < cfg->n_nics; i++)
    if (!cfg->nics[i].has_bus) {
      nn_errbuf_set(err, errsz,
                    "line %d: NIC %d has no bus= (a host-side mapping): no topology to write",
                    cfg->nics[i].line, cfg->nics[i].index);
      return -1;
    }
  if (!cpu || (strcmp(cpu->vendor, "AuthenticAMD") && strcmp(cpu->vendor, "GenuineIntel"))) {
    /* NCCL models an unknown vendor's socket link as free: never write one. */
    nn_errbuf_set(err, errsz,
                  "CPU vendor '%s' is not AuthenticAMD or GenuineIntel: no topology to write",
                  cpu ? cpu->vendor : "");
    return -1;
  }
  if (!strcmp(cpu->vendor, "GenuineIntel") && (cpu->family < 0 || cpu->model < 0)) {
    nn_errbuf_set(err, errsz,
                  "GenuineIntel CPU without family and model: NCCL needs both (cpu line)");
    return -1;
  }
  return 0;
}

/* Reads a small sysfs file; returns its NUL-terminated text or NULL (missing, empty,
 * not a regular file, or implausibly long). */
static char *nn_txml_read_small(const char *path) {
  char *buf = NULL;
  size_t n = 0;
  if (nn_file_read(AT_FDCWD, path, 0, 8191, &buf, &n, NULL, 0) || n == 0) {
    free(buf);
    return NULL;
  }
  return buf;
}

/* Affinity of `node` into out. Returns 1 when found, 0 when it must be left out
 * (and why into note), -1 on a mapping error (reason in err). */
static int nn_txml_affinity(const struct nn_config *cfg, int node, const char *sysfs_root,
                            char *out, size_t outsz, char *note, size_t notesz, char *err,
                            size_t errsz) {
  const struct nn_numa *nl = nn_config_find_numa(cfg, node);
  if (nl && !nl->cpus) {
    nn_errbuf_set(note, notesz,
                  "NUMA node %d: affinity left out (the CPUs of some node the GPUs sit on are "
                  "unknown)",
                  node);
    return 0;
  }
  if (nl) {
    int r = nn_cpulist_to_cpumap(nl->cpus, out, outsz);
    if (r >= 0 && r <= NN_TOPO_XML_MAX_VALUE) return 1;
    nn_errbuf_set(err, errsz, "line %d: numa %d cpus=%s: %s", nl->line, node, nl->cpus,
                  r == -1 ? "not a CPU list" : "too many CPUs for NCCL's 255-character affinity");
    return -1;
  }
  char path[PATH_MAX];
  const char *root = sysfs_root && *sysfs_root ? sysfs_root : "/";
  size_t rl = strlen(root);
  while (rl > 1 && root[rl - 1] == '/') rl--;
  int w = snprintf(path, sizeof path, "%.*s/sys/devices/system/node/node%d/cpulist",
                   (int)(rl == 1 && root[0] == '/' ? 0 : rl), root, node);
  if (w < 0 || (size_t)w >= sizeof path) {
    nn_errbuf_set(note, notesz, "NUMA node %d: sysfs path too long", node);
    return 0;
  }
  char *text = nn_txml_read_small(path);
  int had_text = text != NULL;
  int r = text ? nn_cpulist_to_cpumap(text, out, outsz) : -1;
  free(text);
  if (r >= 0 && r <= NN_TOPO_XML_MAX_VALUE) return 1;
  nn_errbuf_set(note, notesz, "NUMA node %d: affinity left out (%s %s)", node,
                had_text ? "unusable" : "no `numa cpus=` line and no readable", path);
  return 0;
}

/* ---- writing ---- */

/* A GPU (class 0x03...) or a NIC (0x02...: NCCL's kvDictPciClass takes the prefix). A NIC gets
 * no <nic>/<net> child: NCCL's ncclTopoFillNet finds this <pci> by the bus id at the end of the
 * network plugin's pciPath and adds them itself, with the plugin's name, speed and GDR support;
 * a <net> written here would be matched by name first and could carry a name the plugin does
 * not use. A NIC no plugin device names is dropped again by ncclTopoTrimXml (nothing kept). */
static void nn_txml_pci(struct nn_xml_writer *w, const struct nn_busid *b, const char *pci_class) {
  char bus[16];
  snprintf(bus, sizeof bus, "%04x:%02x:%02x.%x", (unsigned)b->domain, (unsigned)b->bus,
           (unsigned)b->dev, (unsigned)b->func);
  nn_xml_writer_start(w, "pci");
  nn_xml_writer_attr(w, "busid", bus);
  nn_xml_writer_attr(w, "class", pci_class);
  nn_xml_writer_end(w);
}

static void nn_txml_cpu_attrs(struct nn_xml_writer *w, int node, const char *affinity,
                              const struct nn_cpu_kind *cpu) {
  char num[16];
  snprintf(num, sizeof num, "%d", node);
  nn_xml_writer_attr(w, "numaid", num);
  if (affinity) nn_xml_writer_attr(w, "affinity", affinity);
  nn_xml_writer_attr(w, "arch", "x86_64");
  nn_xml_writer_attr(w, "vendor", cpu->vendor);
  if (cpu->family >= 0 && cpu->model >= 0) {
    snprintf(num, sizeof num, "%d", cpu->family);
    nn_xml_writer_attr(w, "familyid", num);
    snprintf(num, sizeof num, "%d", cpu->model);
    nn_xml_writer_attr(w, "modelid", num);
  }
}

/* Appends "; " + msg to the note collected so far. */
static void nn_txml_note_add(char *note, size_t notesz, const char *msg) {
  size_t used = strlen(note);
  const char *sep = used ? "; " : "";
  for (const char *s = sep; *s && used + 1 < notesz; s++) note[used++] = *s;
  for (const char *s = msg; *s && used + 1 < notesz; s++) note[used++] = *s;
  note[used] = 0;
}

struct nn_txml_job {
  const struct nn_config *cfg;
  const struct nn_cpu_kind *cpu;
  const char *sysfs_root;
  char *err;
  size_t errsz;
};

/* Writes the whole document into w; returns 0, or -1 with err set for a mapping problem
 * (a writer failure is found by nn_xml_writer_finish). */
static int nn_txml_write(struct nn_xml_writer *w, const struct nn_txml_job *j, const int *ids,
                         int n_ids) {
  char note[512] = "", one[PATH_MAX + 128];
  nn_xml_writer_start(w, "system");
  nn_xml_writer_attr(w, "version", "1");
  for (int k = 0; k < n_ids; k++) {
    char aff[NN_TOPO_XML_MAX_VALUE + 16];
    one[0] = 0;
    int a = nn_txml_affinity(j->cfg, ids[k], j->sysfs_root, aff, sizeof aff, one, sizeof one,
                             j->err, j->errsz);
    if (a < 0) return -1;
    if (!a) nn_txml_note_add(note, sizeof note, one);
    int kids = 0;
    for (int i = 0; i < j->cfg->n_gpus; i++) kids += j->cfg->gpus[i].numa == ids[k];
    for (int i = 0; i < j->cfg->n_nics; i++) kids += j->cfg->nics[i].numa == ids[k];
    if (kids > NN_TOPO_XML_MAX_CHILDREN) {
      nn_errbuf_set(j->err, j->errsz,
                    "NUMA node %d holds %d GPUs and NICs; NCCL reads at most %d per "
                    "cpu element",
                    ids[k], kids, NN_TOPO_XML_MAX_CHILDREN);
      return -1;
    }
    nn_xml_writer_start(w, "cpu");
    nn_txml_cpu_attrs(w, ids[k], a ? aff : NULL, j->cpu);
    for (int i = 0; i < j->cfg->n_gpus; i++)
      if (j->cfg->gpus[i].numa == ids[k]) nn_txml_pci(w, &j->cfg->gpus[i].bus, "0x030000");
    for (int i = 0; i < j->cfg->n_nics; i++)
      if (j->cfg->nics[i].numa == ids[k]) nn_txml_pci(w, &j->cfg->nics[i].bus, "0x020000");
    nn_xml_writer_end(w);
  }
  nn_xml_writer_end(w);
  nn_errbuf_set(j->err, j->errsz, "%s", note);
  return 0;
}

/* NCCL decodes no character reference: a value the writer had to escape would reach NCCL
 * changed. Nothing written here needs it; make sure. */
static int nn_txml_sane(const char *s, size_t n) {
  if (n < 8 || memcmp(s, "<system ", 8)) return 0;
  for (size_t i = 0; i < n; i++)
    if (s[i] == '\t' || s[i] == '&' || s[i] == '\0') return 0;
  return 1;
}

static int nn_txml_run(const struct nn_txml_job *j, const int *ids, int n_ids, char **xml,
                       size_t *len) {
  struct nn_xml_writer w;
  nn_xml_writer_init(&w);
  if (nn_txml_write(&w, j, ids, n_ids)) {
    nn_xml_writer_discard(&w);
    return -1;
  }
  char *text = NULL;
  size_t n = 0;
  if (nn_xml_writer_finish(&w, &text, &n)) {
    nn_errbuf_set(j->err, j->errsz,
                  "the XML writer failed (out of memory or a value XML cannot hold)");
    return -1;
  }
  if (!nn_txml_sane(text, n)) {
    free(text);
    nn_errbuf_set(j->err, j->errsz, "the XML written holds what NCCL cannot read back");
    return -1;
  }
  *xml = text;
  *len = n;
  return 0;
}

int nn_topo_xml_generate(const struct nn_config *cfg, const struct nn_cpu_kind *cpu,
                         const char *sysfs_root, char **xml, size_t *len, char *err, size_t errsz) {
  if (err && errsz) err[0] = 0;
  if (!xml || !len) {
    nn_errbuf_set(err, errsz, "no output buffer");
    return -1;
  }
  *xml = NULL;
  *len = 0;
  if (nn_txml_check_input(cfg, cpu, err, errsz)) return -1;
  int *ids = malloc((size_t)(cfg->n_gpus + cfg->n_nics) * sizeof *ids);
  if (!ids) {
    nn_errbuf_set(err, errsz, "out of memory");
    return -1;
  }
  int n_ids = nn_txml_numa_ids(cfg, ids);
  struct nn_txml_job j = {cfg, cpu, sysfs_root, err, errsz};
  int rc = nn_txml_run(&j, ids, n_ids, xml, len);
  free(ids);
  return rc;
}
