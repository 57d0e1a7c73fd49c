/* SPDX-License-Identifier: BSD-3-Clause */
/* topo_tree.c - the tree pass of the topology validator (topo_check.h): what NCCL
 * makes of the elements and attributes once the file parses, and whether it agrees
 * with the mapping.
 *
 * NCCL facts relied on (NCCL 2.28.9 src/graph/xml.cc, topo.cc): the nesting it reads
 * (system > cpu > pci > pci/gpu/nic ...), ignoring any other; a cpu needs numaid, and
 * arch, vendor, familyid and modelid choose its model of the link between CPUs; a pci
 * needs busid (compared as text) and class; a gpu element overrides its own detection. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cli/topo/topo_check.h"
#include "numparse.h"
#include "topo_xml.h"

struct seen_cpu {
  long numaid;
  int line;
};
struct seen_pci {
  const char *busid;
  int line;
  long numaid;
  int gpu;
};

struct tree {
  struct nn_topo_report *rep;
  const struct nn_config *cfg;
  xmlNodePtr first_cpu;
  struct seen_cpu *cpus;
  int n_cpus;
  struct seen_pci *pcis;
  int n_pcis, cap_pcis;
};

int nn_topo_xml_line(xmlNodePtr n) {
  long l = xmlGetLineNo(n);
  return l > 0 && l < 0x7fffffff ? (int)l : 0;
}

const char *nn_topo_xml_attr(xmlNodePtr n, const char *name) {
  for (xmlAttrPtr a = n->properties; a; a = a->next) {
    if (strcmp((const char *)a->name, name)) continue;
    if (!a->children) return "";
    if (a->children->type == XML_TEXT_NODE && !a->children->next)
      return (const char *)a->children->content;
    return "";
  }
  return NULL;
}

static int is_uint_text(const char *v, int hex_ok) {
  if (hex_ok && v[0] == '0' && (v[1] == 'x' || v[1] == 'X') && v[2]) {
    for (const char *p = v + 2; *p; p++)
      if (!isxdigit((unsigned char)*p)) return 0;
    return strlen(v) <= 10;
  }
  if (!*v || strlen(v) > 9) return 0;
  for (const char *p = v; *p; p++)
    if (*p < '0' || *p > '9') return 0;
  return 1;
}

static int is_lower_hex(char ch) { return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f'); }

/* dddd:bb:dd.f, lowercase, device <= 1f, function <= 7. */
static int busid_ok(const char *v) {
  static const char shape[] = "hhhh:hh:hh.h";
  if (strlen(v) != sizeof shape - 1) return 0;
  for (size_t i = 0; shape[i]; i++) {
    if (shape[i] == 'h' ? !is_lower_hex(v[i]) : v[i] != shape[i]) return 0;
  }
  /* The shape is checked: the device's first hex digit 0 or 1 means at most 0x1f. */
  return (v[8] == '0' || v[8] == '1') && v[11] <= '7';
}

/* Comma-separated words of 8 hex digits: the sysfs cpumap format. */
static int cpumap_ok(const char *v) {
  size_t n = strlen(v);
  if (n % 9 != 8) return 0;
  for (size_t i = 0; i < n; i++)
    if (i % 9 == 8 ? v[i] != ',' : !isxdigit((unsigned char)v[i])) return 0;
  return 1;
}

static int class_ok(const char *v) {
  if (strlen(v) != 8 || v[0] != '0' || v[1] != 'x') return 0;
  for (int i = 2; i < 8; i++)
    if (!isxdigit((unsigned char)v[i])) return 0;
  return 1;
}

static int in_list(const char *v, const char *const *list) {
  for (; *list; list++)
    if (!strcmp(v, *list)) return 1;
  return 0;
}

static const char *const arches[] = {"x86_64", "arm64", "ppc64", NULL};
static const char *const vendors[] = {"GenuineIntel", "AuthenticAMD", "CentaurHauls",
                                      "  Shanghai  ", NULL};
static const char *const speeds[] = {"2.5 GT/s",       "5 GT/s",         "8 GT/s",
                                     "16 GT/s",        "32 GT/s",        "2.5 GT/s PCIe",
                                     "5.0 GT/s PCIe",  "8.0 GT/s PCIe",  "16.0 GT/s PCIe",
                                     "32.0 GT/s PCIe", "64.0 GT/s PCIe", NULL};

static void check_counts(struct tree *t, xmlNodePtr n) {
  int attrs = 0, kids = 0;
  for (xmlAttrPtr a = n->properties; a; a = a->next) attrs++;
  for (xmlNodePtr k = n->children; k; k = k->next) kids += k->type == XML_ELEMENT_NODE;
  if (attrs > NN_TOPO_XML_MAX_ATTRS)
    nn_topo_report_add(t->rep, nn_topo_xml_line(n), 0,
                       "<%s> has %d attributes: NCCL reads at most %d", n->name, attrs,
                       NN_TOPO_XML_MAX_ATTRS);
  if (kids > NN_TOPO_XML_MAX_CHILDREN)
    nn_topo_report_add(t->rep, nn_topo_xml_line(n), 0,
                       "<%s> has %d child elements: NCCL reads at most %d", n->name, kids,
                       NN_TOPO_XML_MAX_CHILDREN);
}

static int same_or_both_missing(const char *a, const char *b) {
  return (!a && !b) || (a && b && !strcmp(a, b));
}

/* Every cpu must describe the same CPU kind as the first one: one message per cpu. */
static void check_cpu_same_kind(struct tree *t, xmlNodePtr n, const char *numaid) {
  static const char *const keys[] = {"arch", "vendor", "familyid", "modelid", NULL};
  if (!t->first_cpu) {
    t->first_cpu = n;
    return;
  }
  char diff[400] = "";
  size_t used = 0;
  for (int k = 0; keys[k]; k++) {
    const char *a = nn_topo_xml_attr(t->first_cpu, keys[k]), *b = nn_topo_xml_attr(n, keys[k]);
    if (same_or_both_missing(a, b) || used >= sizeof diff) continue;
    int w = snprintf(diff + used, sizeof diff - used, "%s%s %s%.32s%s vs %s%.32s%s",
                     used ? ", " : "", keys[k], b ? "'" : "", b ? b : "none", b ? "'" : "",
                     a ? "'" : "", a ? a : "none", a ? "'" : "");
    if (w > 0) used += (size_t)w;
  }
  if (used)
    nn_topo_report_add(t->rep, nn_topo_xml_line(n), 0,
                       "cpu numaid=%s differs from the cpu at line %d (%s): every cpu "
                       "must carry the same arch, vendor, familyid and modelid",
                       numaid, nn_topo_xml_line(t->first_cpu), diff);
}

static void check_cpu_kind(struct tree *t, xmlNodePtr n, const char *id) {
  int line = nn_topo_xml_line(n);
  const char *arch = nn_topo_xml_attr(n, "arch"), *vendor = nn_topo_xml_attr(n, "vendor");
  if (!arch)
    nn_topo_report_add(t->rep, line, 0, "cpu numaid=%s has no arch (x86_64, arm64 or ppc64)", id);
  else if (!in_list(arch, arches))
    nn_topo_report_add(t->rep, line, 0,
                       "cpu numaid=%s: arch '%s' is unknown to NCCL (x86_64, arm64 or ppc64)", id,
                       arch);
  if (arch && !strcmp(arch, "x86_64") && !vendor)
    nn_topo_report_add(t->rep, line, 0,
                       "cpu numaid=%s has no vendor (AuthenticAMD or GenuineIntel)", id);
  else if (vendor && !in_list(vendor, vendors))
    nn_topo_report_add(t->rep, line, 0,
                       "cpu numaid=%s: vendor '%s' is unknown to NCCL, which then models the "
                       "link between CPUs as free (AuthenticAMD or GenuineIntel)",
                       id, vendor);
  const char *fam = nn_topo_xml_attr(n, "familyid"), *mod = nn_topo_xml_attr(n, "modelid");
  if (fam && !is_uint_text(fam, 1))
    nn_topo_report_add(t->rep, line, 0, "cpu numaid=%s: familyid '%s' is not an integer", id, fam);
  if (mod && !is_uint_text(mod, 1))
    nn_topo_report_add(t->rep, line, 0, "cpu numaid=%s: modelid '%s' is not an integer", id, mod);
  if (vendor && !strcmp(vendor, "GenuineIntel") && (!fam || !mod))
    nn_topo_report_add(t->rep, line, 0,
                       "cpu numaid=%s: GenuineIntel needs familyid and modelid (NCCL's model "
                       "of the link between CPUs depends on them)",
                       id);
}

/* Returns the numaid, or -1 when missing or malformed. */
static long check_cpu(struct tree *t, xmlNodePtr n) {
  int line = nn_topo_xml_line(n);
  const char *id = nn_topo_xml_attr(n, "numaid");
  long numaid = -1;
  int v;
  if (!id) nn_topo_report_add(t->rep, line, 0, "cpu without numaid (NCCL requires it)");
  else if (!is_uint_text(id, 0) || nn_int_parse(id, 0, INT32_MAX, &v))
    nn_topo_report_add(t->rep, line, 0, "numaid '%s' is not a non-negative integer", id);
  else numaid = v;
  for (int i = 0; numaid >= 0 && i < t->n_cpus; i++)
    if (t->cpus[i].numaid == numaid)
      nn_topo_report_add(t->rep, line, 0,
                         "numaid %ld is already used by the cpu at line %d: each cpu needs its own",
                         numaid, t->cpus[i].line);
  if (numaid >= 0) t->cpus[t->n_cpus++] = (struct seen_cpu){numaid, line};
  const char *shown = id ? id : "?";
  const char *aff = nn_topo_xml_attr(n, "affinity");
  if (!aff)
    nn_topo_report_add(t->rep, line, 1,
                       "cpu numaid=%s has no affinity: NCCL then takes it from sysfs, which "
                       "inside a VM does not know the host's sockets",
                       shown);
  else if (!cpumap_ok(aff))
    nn_topo_report_add(t->rep, line, 0,
                       "cpu numaid=%s: affinity '%.64s' is not a sysfs cpumap (comma-separated "
                       "words of 8 hex digits, most significant first)",
                       shown, aff);
  check_cpu_kind(t, n, shown);
  check_cpu_same_kind(t, n, shown);
  return numaid;
}

static int has_child(xmlNodePtr n, const char *name) {
  for (xmlNodePtr k = n->children; k; k = k->next)
    if (k->type == XML_ELEMENT_NODE && !strcmp((const char *)k->name, name)) return 1;
  return 0;
}

static const struct nn_gpu *mapping_gpu(const struct nn_config *cfg, const char *busid) {
  for (int i = 0; cfg && i < cfg->n_gpus; i++) {
    const struct nn_gpu *g = &cfg->gpus[i];
    char b[16];
    if (!g->has_bus) continue;
    nn_busid_format(&g->bus, b, sizeof b);
    if (!strcmp(b, busid)) return g;
  }
  return NULL;
}

static void remember_pci(struct tree *t, const char *busid, int line, long numaid, int gpu) {
  if (t->n_pcis == t->cap_pcis) {
    int cap = t->cap_pcis ? t->cap_pcis * 2 : 16;
    void *p = realloc(t->pcis, (size_t)cap * sizeof *t->pcis);
    if (!p) return;
    t->pcis = p;
    t->cap_pcis = cap;
  }
  t->pcis[t->n_pcis++] = (struct seen_pci){busid, line, numaid, gpu};
}

static void check_pci_link(struct tree *t, xmlNodePtr n, const char *bus) {
  const char *speed = nn_topo_xml_attr(n, "link_speed"), *width = nn_topo_xml_attr(n, "link_width");
  if (speed && !in_list(speed, speeds))
    nn_topo_report_add(t->rep, nn_topo_xml_line(n), 0,
                       "pci %s: link_speed '%.64s' is not one NCCL knows (e.g. "
                       "\"16.0 GT/s PCIe\", \"32.0 GT/s PCIe\", \"64.0 GT/s PCIe\")",
                       bus, speed);
  int lanes;
  if (width && (!is_uint_text(width, 0) || nn_int_parse(width, 0, 32, &lanes)))
    nn_topo_report_add(t->rep, nn_topo_xml_line(n), 0,
                       "pci %s: link_width '%.64s' is not a lane count (an integer "
                       "0-32)",
                       bus, width);
}

static void check_pci(struct tree *t, xmlNodePtr n, long numaid) {
  int line = nn_topo_xml_line(n);
  const char *bus = nn_topo_xml_attr(n, "busid"), *cls = nn_topo_xml_attr(n, "class");
  if (!bus) nn_topo_report_add(t->rep, line, 0, "pci without busid");
  else if (!busid_ok(bus))
    nn_topo_report_add(t->rep, line, 0,
                       "busid '%.64s' is not dddd:bb:dd.f (4-digit domain, lowercase hex, "
                       "device <= 1f, function <= 7): NCCL compares bus ids as strings",
                       bus);
  for (int i = 0; bus && i < t->n_pcis; i++)
    if (!strcmp(t->pcis[i].busid, bus))
      nn_topo_report_add(t->rep, line, 0, "busid %s already appears at line %d", bus,
                         t->pcis[i].line);
  const char *shown = bus ? bus : "(no busid)";
  if (!cls) nn_topo_report_add(t->rep, line, 0, "pci %s has no class (NCCL requires it)", shown);
  else if (!class_ok(cls))
    nn_topo_report_add(t->rep, line, 0, "pci %s: class '%.64s' is not 0xcccccc (six hex digits)",
                       shown, cls);
  int gpu_class = cls && !strncmp(cls, "0x03", 4);
  int gpu = gpu_class || has_child(n, "gpu") || (bus && mapping_gpu(t->cfg, bus));
  if (gpu && cls && !gpu_class)
    nn_topo_report_add(t->rep, line, 0,
                       "pci %s is a GPU (%s) but its class is '%.64s': a GPU needs 0x03xxxx", shown,
                       has_child(n, "gpu") ? "it holds a gpu element" : "the mapping says so", cls);
  check_pci_link(t, n, shown);
  if (bus) remember_pci(t, bus, line, numaid, gpu);
}

static int allowed_child(const char *parent, const char *name) {
  static const char *const rules[][2] = {
    {"system", "cpu"}, {"cpu", "pci"},     {"cpu", "nic"},    {"pci", "pci"}, {"pci", "gpu"},
    {"pci", "nic"},    {"pci", "pcilink"}, {"gpu", "nvlink"}, {"gpu", "c2c"}, {"nic", "net"}};
  for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
    if (!strcmp(rules[i][0], parent) && !strcmp(rules[i][1], name)) return 1;
  return 0;
}

static void walk(struct tree *t, xmlNodePtr parent, long numaid) {
  for (xmlNodePtr n = parent->children; n; n = n->next) {
    if (n->type != XML_ELEMENT_NODE) continue;
    const char *name = (const char *)n->name, *pname = (const char *)parent->name;
    check_counts(t, n);
    long sub = numaid;
    if (!allowed_child(pname, name))
      nn_topo_report_add(t->rep, nn_topo_xml_line(n), 1,
                         "<%.64s> inside <%.64s> is ignored by NCCL", name, pname);
    else if (!strcmp(name, "cpu")) sub = check_cpu(t, n);
    else if (!strcmp(name, "pci")) check_pci(t, n, numaid);
    else if (!strcmp(name, "gpu"))
      nn_topo_report_add(t->rep, nn_topo_xml_line(n), 1,
                         "gpu element: its values (dev, gdr, ...) override NCCL's own "
                         "detection; leave gpu elements out");
    walk(t, n, sub);
  }
}

static int count_elements(xmlNodePtr n) {
  int k = 0;
  for (xmlNodePtr c = n->children; c; c = c->next)
    if (c->type == XML_ELEMENT_NODE) k += 1 + count_elements(c);
  return k;
}

static void check_root(struct tree *t, xmlNodePtr root) {
  int line = nn_topo_xml_line(root);
  if (strcmp((const char *)root->name, "system")) {
    nn_topo_report_add(t->rep, line, 0,
                       "root element is <%.64s>: NCCL wants <system version=\"1\">", root->name);
    return;
  }
  check_counts(t, root);
  const char *v = nn_topo_xml_attr(root, "version");
  if (!v) nn_topo_report_add(t->rep, line, 0, "<system> without version: NCCL wants version=\"1\"");
  else if (strcmp(v, "1"))
    nn_topo_report_add(t->rep, line, 0, "<system version=\"%.64s\">: NCCL wants version=\"1\"", v);
}

static const struct seen_pci *seen_busid(const struct tree *t, const struct nn_busid *bus,
                                         char *b) {
  nn_busid_format(bus, b, 16);
  for (int k = 0; k < t->n_pcis; k++)
    if (!strcmp(t->pcis[k].busid, b)) return &t->pcis[k];
  return NULL;
}

/* The flat file the plugin serves where NCCL's model rates it best (topology.h): every GPU under
 * one cpu, whose numaid is the lowest of the mapping's nodes for them. Returns that numaid, or -1.
 */
static long flat_numaid(const struct tree *t) {
  long id = -1, low = -1;
  for (int k = 0; k < t->n_pcis; k++) {
    if (!t->pcis[k].gpu) continue;
    if (id >= 0 && t->pcis[k].numaid != id) return -1;
    id = t->pcis[k].numaid;
    const struct nn_gpu *g = mapping_gpu(t->cfg, t->pcis[k].busid);
    if (g && (low < 0 || g->numa < low)) low = g->numa;
  }
  return id >= 0 && id == low ? id : -1;
}

/* Each NIC of the mapping under the cpu of its NUMA node (or, in the flat file, its one cpu). One
 * left out is only warned about: NCCL then hangs it where sysfs says (in a guest, under a CPU of
 * its own, SYS from every GPU), and a one-socket file leaves out the other socket's NICs on
 * purpose. */
static void check_mapping_nics(struct tree *t, int root_line) {
  const struct nn_config *cfg = t->cfg;
  for (int i = 0; i < cfg->n_nics; i++) {
    const struct nn_nic *n = &cfg->nics[i];
    char b[16];
    const struct seen_pci *p = n->has_bus ? seen_busid(t, &n->bus, b) : NULL;
    if (!n->has_bus) continue;
    if (!p)
      nn_topo_report_add(t->rep, root_line, 1,
                         "NIC %d (%s, mapping line %d) is missing: NCCL places it "
                         "as sysfs says",
                         n->index, b, n->line);
    else if (p->gpu)
      nn_topo_report_add(t->rep, p->line, 0,
                         "pci %s is a GPU here, but the mapping (line %d) says it is "
                         "NIC %d",
                         b, n->line, n->index);
    else if (p->numaid != n->numa && p->numaid != flat_numaid(t))
      nn_topo_report_add(t->rep, p->line, 0,
                         "NIC %d (%s) is under numaid %ld, but the mapping (line %d) "
                         "puts it on NUMA node %d",
                         n->index, b, p->numaid, n->line, n->numa);
  }
}

/* Each GPU of the mapping under the cpu of its NUMA node (or all under one: the flat file); no
 * GPU the mapping lacks. */
static void check_mapping(struct tree *t, int root_line) {
  const struct nn_config *cfg = t->cfg;
  long flat = flat_numaid(t);
  check_mapping_nics(t, root_line);
  for (int i = 0; i < cfg->n_gpus; i++) {
    const struct nn_gpu *g = &cfg->gpus[i];
    if (!g->has_bus) continue;
    char b[16];
    nn_busid_format(&g->bus, b, sizeof b);
    const struct seen_pci *p = NULL;
    for (int k = 0; k < t->n_pcis && !p; k++)
      if (!strcmp(t->pcis[k].busid, b)) p = &t->pcis[k];
    if (!p)
      nn_topo_report_add(t->rep, root_line, 0, "GPU %d (%s, mapping line %d) is missing", g->index,
                         b, g->line);
    else if (p->numaid < 0)
      nn_topo_report_add(t->rep, p->line, 0,
                         "GPU %d (%s) is not under a cpu with a valid numaid; the mapping "
                         "(line %d) puts it on NUMA node %d",
                         g->index, b, g->line, g->numa);
    else if (p->numaid != g->numa && p->numaid != flat)
      nn_topo_report_add(t->rep, p->line, 0,
                         "GPU %d (%s) is under numaid %ld, but the mapping (line %d) puts it "
                         "on NUMA node %d",
                         g->index, b, p->numaid, g->line, g->numa);
  }
  for (int k = 0; k < t->n_pcis; k++)
    if (t->pcis[k].gpu && !mapping_gpu(cfg, t->pcis[k].busid))
      nn_topo_report_add(t->rep, t->pcis[k].line, 0, "GPU %s is not in the mapping",
                         t->pcis[k].busid);
}

void nn_topo_check_tree(xmlDocPtr doc, const struct nn_config *cfg, struct nn_topo_report *rep) {
  xmlNodePtr root = xmlDocGetRootElement(doc);
  if (doc->intSubset || doc->extSubset) nn_topo_report_add(rep, 1, 0, "DOCTYPE: refused");
  if (!root) {
    nn_topo_report_add(rep, 0, 0, "no root element");
    return;
  }
  struct tree t = {.rep = rep, .cfg = cfg};
  t.cpus = calloc((size_t)count_elements(root) + 1, sizeof *t.cpus);
  if (!t.cpus) {
    nn_topo_report_add(rep, 0, 0, "out of memory");
    return;
  }
  check_root(&t, root);
  if (!strcmp((const char *)root->name, "system")) walk(&t, root, -1);
  if (cfg) check_mapping(&t, nn_topo_xml_line(root));
  free(t.cpus);
  free(t.pcis);
}
