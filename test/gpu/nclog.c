/* SPDX-License-Identifier: BSD-3-Clause */
/* nclog.c - parsers of NCCL's INFO log lines for the GPU kit (formats in nclog.h). */
#include "nclog.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "cli/sweep/nccltests.h"
#include "nccl_model.h"
#include "numparse.h"

/* ---------- lines ---------- */

/* The INFO message of one line, or NULL: after NCCL's "NCCL INFO " prefix, or after
 * "nccl-numa INFO: " (the plugin's stderr fallback). */
static const char *info_message(const char *line) {
  static const char *const marks[] = {"NCCL INFO ", "nccl-numa INFO: "};
  for (size_t i = 0; i < sizeof marks / sizeof marks[0]; i++) {
    const char *p = strstr(line, marks[i]);
    if (p) return p + strlen(marks[i]);
  }
  return NULL;
}

void nn_nclog_each(const char *log, size_t len, nn_nclog_fn fn, void *arg) {
  char line[4096];
  size_t pos = 0;
  while (pos < len) {
    const char *nl = memchr(log + pos, '\n', len - pos);
    size_t end = nl ? (size_t)(nl - log) : len, n = end - pos;
    if (n >= sizeof line) n = sizeof line - 1; /* longer lines: their start is enough */
    memcpy(line, log + pos, n);
    line[n] = 0;
    if (n && line[n - 1] == '\r') line[n - 1] = 0;
    pos = end + 1;
    if (memchr(line, 0, n)) continue;
    const char *msg = info_message(line);
    if (msg && fn(msg, arg)) return;
  }
}

/* "PREFIX NAME (vN)" -> name and N. */
static void using_line(const char *msg, const char *prefix, char *name, size_t nsz, int *abi) {
  size_t pl = strlen(prefix);
  if (strncmp(msg, prefix, pl)) return;
  const char *p = msg + pl, *v = strstr(p, " (v");
  int n;
  if (!v || nn_int_parse_prefix(v + 3, 1, 99, &n, NULL)) return;
  snprintf(name, nsz, "%.*s", (int)(v - p), p);
  *abi = n;
}

static int plugins_fn(const char *msg, void *arg) {
  struct nn_nclog_plugins *o = arg;
  using_line(msg, "ENV/Plugin: Using ", o->env_name, sizeof o->env_name, &o->env_abi);
  using_line(msg, "TUNER/Plugin: Using ", o->tuner_name, sizeof o->tuner_name, &o->tuner_abi);
  const char *v = strstr(msg, "NCCL version ");
  int code = v && !o->nccl_code ? nn_nccl_version_parse_word(v + strlen("NCCL version ")) : 0;
  if (code > 0) o->nccl_code = code;
  return 0;
}

void nn_nclog_plugins(const char *log, size_t len, struct nn_nclog_plugins *out) {
  memset(out, 0, sizeof *out);
  nn_nclog_each(log, len, plugins_fn, out);
}

void nn_nclog_expected_abi(int code, int *env_abi, int *tuner_abi) {
  int unverified;
  const struct nn_nccl_release *r = nn_nccl_release_find(code, &unverified);
  int older = unverified && code < nn_nccl_release_table(NULL)->first; /* before any row: none */
  *env_abi = older ? 0 : r->env_abi;
  *tuner_abi = older ? 0 : r->tuner_abi;
}

/* ---------- nccl-numa's INIT lines ---------- */

/* After "nccl-numa: " or "nccl-numa VERSION: ", the rest of the message; NULL otherwise. */
static const char *ours(const char *msg) {
  if (strncmp(msg, "nccl-numa", 9)) return NULL;
  const char *p = msg + 9;
  if (*p == ' ') p += 1 + strcspn(p + 1, ": ");
  return p[0] == ':' && p[1] == ' ' ? p + 2 : NULL;
}

/* Copies the path after `key`, up to " hash " or " (", into out. */
static void path_before_paren(const char *s, const char *key, char *out, size_t size) {
  const char *p = strstr(s, key);
  if (!p) return;
  p += strlen(key);
  const char *e = strstr(p, " ("), *h = strstr(p, " hash ");
  if (h && (!e || h < e)) e = h;
  size_t n = e ? (size_t)(e - p) : strcspn(p, " ");
  snprintf(out, size, "%.*s", (int)n, p);
}

/* The 8-digit content hash after " hash ", if any. */
static void config_hash(const char *s, char *out, size_t size) {
  const char *h = strstr(s, " hash ");
  if (h) snprintf(out, size, "%.*s", (int)strcspn(h + 6, " ,("), h + 6);
}

/* "HEADvN, config PATH [hash H]...": the ABI, path and hash; 0 when p is not that line. */
static int abi_line(const char *p, const char *head, char *config, size_t csz, char *hash,
                    size_t hsz) {
  int abi;
  size_t n = strlen(head);
  if (strncmp(p, head, n) || nn_int_parse_prefix(p + n, 1, 99, &abi, NULL)) return 0;
  path_before_paren(p, ", config ", config, csz);
  config_hash(p, hash, hsz);
  return abi;
}

static void tuner_init(const char *p, struct nn_nclog_init *o) {
  o->tuner_abi = abi_line(p, "tuner v", o->tuner_config, sizeof o->tuner_config, o->tuner_hash,
                          sizeof o->tuner_hash);
  if (!o->tuner_abi) return;
  const char *r = strstr(p, " nRanks ");
  if (r) nn_int_parse_prefix(r + 8, 0, 1 << 24, &o->n_ranks, NULL);
  r = strstr(p, " nNodes ");
  if (r) nn_int_parse_prefix(r + 8, 0, 1 << 24, &o->n_nodes, NULL);
  r = strstr(p, " scope ");
  if (r) snprintf(o->scope, sizeof o->scope, "%.*s", (int)strcspn(r + 7, ", "), r + 7);
}

static void env_init(const char *p, struct nn_nclog_init *o) {
  o->env_abi = abi_line(p, "env plugin v", o->env_config, sizeof o->env_config, o->env_hash,
                        sizeof o->env_hash);
  const char *s = o->env_abi ? strstr(p, ", config ") : NULL;
  s = s ? strstr(s, " (") : NULL;
  if (s) snprintf(o->env_status, sizeof o->env_status, "%.*s", (int)strcspn(s + 2, ")"), s + 2);
}

static int init_fn(const char *msg, void *arg) {
  struct nn_nclog_init *o = arg;
  static const char nccl_key[] = "NCCL_TOPO_FILE set by environment to ";
  if (!strncmp(msg, nccl_key, sizeof nccl_key - 1) && !o->nccl_topo_file[0])
    snprintf(o->nccl_topo_file, sizeof o->nccl_topo_file, "%s", msg + sizeof nccl_key - 1);
  const char *p = ours(msg);
  if (!p) return 0;
  if (!o->tuner_abi) tuner_init(p, o);
  if (!o->env_abi) env_init(p, o);
  if (!o->served[0] && !strncmp(p, "NCCL_TOPO_FILE=", 15)) {
    path_before_paren(p, "NCCL_TOPO_FILE=", o->served, sizeof o->served);
    const char *d = strstr(p, " (a descriptor of ");
    if (d)
      snprintf(o->served_file, sizeof o->served_file, "%.*s", (int)strcspn(d + 18, ";)"), d + 18);
  }
  return 0;
}

void nn_nclog_init(const char *log, size_t len, struct nn_nclog_init *out) {
  memset(out, 0, sizeof *out);
  nn_nclog_each(log, len, init_fn, out);
}

/* ---------- a cursor over one message ---------- */

/* Each step consumes what it matched; after the first mismatch every step fails. */
struct scan {
  const char *p;
  int ok;
};

static void lit(struct scan *s, const char *text) {
  size_t n = strlen(text);
  if (s->ok && !strncmp(s->p, text, n)) s->p += n;
  else s->ok = 0;
}

static unsigned long long unum(struct scan *s, int base) {
  if (!s->ok || !(base == 16 ? isxdigit((unsigned char)*s->p) : isdigit((unsigned char)*s->p))) {
    s->ok = 0;
    return 0;
  }
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s->p, &end, base);
  if (errno) s->ok = 0;
  s->p = end;
  return v;
}

static int inum(struct scan *s) {
  int neg = s->ok && *s->p == '-';
  if (neg) s->p++;
  unsigned long long v = unum(s, 10);
  if (v > INT_MAX) s->ok = 0;
  return neg ? -(int)v : (int)v;
}

static double dnum(struct scan *s) {
  if (!s->ok) return 0;
  char *end;
  double v = strtod(s->p, &end);
  if (end == s->p) s->ok = 0;
  s->p = end;
  return v;
}

/* Up to the first of `stop` (or the end): at least one character, fewer than size. */
static void token(struct scan *s, char *out, size_t size, const char *stop) {
  size_t n = s->ok ? strcspn(s->p, stop) : 0;
  if (!n || n >= size) {
    s->ok = 0;
    return;
  }
  memcpy(out, s->p, n);
  out[n] = 0;
  s->p += n;
}

/* ---------- the topology print ---------- */

struct topo_state {
  struct nn_nclog_topo *t;
  int in;  /* 1 inside the first print, 2 after it */
  int cpu; /* index of the CPU being printed, -1 before the first */
};

/* "CPU/S-L (a/v/m)" at the start of s. */
static int cpu_node(const char *text, struct nn_nclog_cpu *c) {
  struct scan s = {text, 1};
  lit(&s, "CPU/");
  c->sys = (unsigned long)unum(&s, 16);
  lit(&s, "-");
  c->numa = (unsigned long)unum(&s, 16);
  lit(&s, " (");
  c->arch = inum(&s);
  lit(&s, "/");
  c->vendor = inum(&s);
  lit(&s, "/");
  c->model = inum(&s);
  lit(&s, ")");
  return s.ok;
}

static void topo_link(const char *s, struct topo_state *st) {
  struct nn_nclog_topo *t = st->t;
  struct nn_nclog_link l;
  memset(&l, 0, sizeof l);
  struct scan sc = {s, 1};
  lit(&sc, "+ ");
  token(&sc, l.type, sizeof l.type, "[ ");
  lit(&sc, "[");
  l.bw = dnum(&sc);
  lit(&sc, "] - ");
  token(&sc, l.to, sizeof l.to, " ");
  if (!sc.ok) return;
  l.from_sys = t->cpus[st->cpu].sys;
  l.from_numa = t->cpus[st->cpu].numa;
  if (t->n_links < NN_NCLOG_MAX_LINKS) t->links[t->n_links++] = l;
}

static int topo_fn(const char *msg, void *arg) {
  struct topo_state *st = arg;
  struct nn_nclog_topo *t = st->t;
  if (st->in == 0) {
    struct scan s = {msg, 1};
    lit(&s, "=== System : maxBw ");
    t->max_bw = dnum(&s);
    lit(&s, " totalBw ");
    t->total_bw = dnum(&s);
    if (s.ok) {
      st->in = 1;
      t->found = 1;
    }
    return 0;
  }
  if (msg[0] == '=') return 1; /* the end of the print */
  const char *s = msg + strspn(msg, " ");
  struct nn_nclog_cpu c;
  if (s == msg && cpu_node(s, &c)) {
    if (t->n_cpus < NN_NCLOG_MAX_CPUS) t->cpus[t->n_cpus++] = c;
    st->cpu = t->n_cpus - 1;
  } else if (st->cpu >= 0 && s[0] == '+') {
    topo_link(s, st);
  }
  return 0;
}

void nn_nclog_topo(const char *log, size_t len, struct nn_nclog_topo *out) {
  memset(out, 0, sizeof *out);
  struct topo_state st = {.t = out, .cpu = -1};
  nn_nclog_each(log, len, topo_fn, &st);
}

/* ---------- choices per call ---------- */

struct tuning_state {
  struct nn_nclog_choice *v;
  int n, cap, line, oom;
};

static int tuning_fn(const char *msg, void *arg) {
  struct tuning_state *st = arg;
  st->line++;
  struct nn_nclog_choice c;
  memset(&c, 0, sizeof c);
  struct scan s = {msg, 1};
  token(&s, c.func, sizeof c.func, ": ");
  lit(&s, ": ");
  c.bytes = unum(&s, 10);
  lit(&s, " Bytes -> Algo ");
  token(&s, c.algo, sizeof c.algo, " ");
  lit(&s, " proto ");
  token(&s, c.proto, sizeof c.proto, " ");
  if (!s.ok) return 0;
  c.line = st->line;
  if (st->n == st->cap) {
    int ncap = st->cap ? st->cap * 2 : 64;
    struct nn_nclog_choice *nv = realloc(st->v, (size_t)ncap * sizeof *nv);
    if (!nv) {
      st->oom = 1;
      return 1;
    }
    st->v = nv;
    st->cap = ncap;
  }
  st->v[st->n++] = c;
  return 0;
}

int nn_nclog_tuning(const char *log, size_t len, struct nn_nclog_choice **out) {
  struct tuning_state st = {0};
  nn_nclog_each(log, len, tuning_fn, &st);
  if (st.oom) {
    free(st.v);
    *out = NULL;
    return -1;
  }
  *out = st.v;
  return st.n;
}

uint64_t nn_nclog_nbytes(const struct nn_nclog_choice *c, int nranks) {
  int whole = !strcmp(c->func, "AllGather") || !strcmp(c->func, "ReduceScatter");
  return whole ? c->bytes * (uint64_t)nranks : c->bytes;
}

const char *nn_nclog_func_name(const char *rule_coll) {
  static const char *const names[][2] = {{"allreduce", "AllReduce"},
                                         {"allgather", "AllGather"},
                                         {"reducescatter", "ReduceScatter"},
                                         {"broadcast", "Broadcast"},
                                         {"reduce", "Reduce"}};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (!strcmp(rule_coll, names[i][0])) return names[i][1];
  return NULL;
}

/* ---------- the topology dump ---------- */

static xmlDocPtr read_xml(const char *xml, size_t len) {
  int opts = XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING;
#if LIBXML_VERSION >= 21300
  opts |= XML_PARSE_NO_XXE;
#endif
  if (!len || len > (1u << 24) || memmem(xml, len, "<!DOCTYPE", 9)) return NULL;
  return xmlReadMemory(xml, (int)len, "dump.xml", NULL, opts);
}

static int attr_int(xmlNodePtr n, const char *name, int *out) {
  xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
  int rc = v ? nn_int_parse((const char *)v, -1, 1 << 30, out) : -1;
  xmlFree(v);
  return rc;
}

static xmlNodePtr find_pci(xmlNodePtr n, const struct nn_busid *bus) {
  for (; n; n = n->next) {
    if (n->type != XML_ELEMENT_NODE) continue;
    if (!xmlStrcmp(n->name, (const xmlChar *)"pci")) {
      xmlChar *v = xmlGetProp(n, (const xmlChar *)"busid");
      struct nn_busid b;
      int same = v && !nn_busid_parse((const char *)v, &b) && b.domain == bus->domain &&
                 b.bus == bus->bus && b.dev == bus->dev && b.func == bus->func;
      xmlFree(v);
      if (same) return n;
    }
    xmlNodePtr hit = find_pci(n->children, bus);
    if (hit) return hit;
  }
  return NULL;
}

int nn_nclog_dump_numa(const char *xml, size_t len, const struct nn_busid *bus, int *numaid,
                       int *has_gpu, char *err, size_t errsz) {
  xmlDocPtr doc = read_xml(xml, len);
  xmlNodePtr root = doc ? xmlDocGetRootElement(doc) : NULL;
  int rc = -1;
  char id[16];
  nn_busid_format(bus, id, sizeof id);
  xmlNodePtr pci = root ? find_pci(root->children, bus) : NULL;
  xmlNodePtr up = pci;
  while (up && up->type == XML_ELEMENT_NODE && xmlStrcmp(up->name, (const xmlChar *)"cpu"))
    up = up->parent;
  if (!root) snprintf(err, errsz, "not an XML document (or has a DOCTYPE)");
  else if (!pci) snprintf(err, errsz, "no <pci busid=\"%s\"> in the dump", id);
  else if (!up || up->type != XML_ELEMENT_NODE)
    snprintf(err, errsz, "<pci busid=\"%s\"> is under no <cpu>", id);
  else if (attr_int(up, "numaid", numaid))
    snprintf(err, errsz, "the <cpu> above %s has no numaid", id);
  else {
    *has_gpu = 0;
    for (xmlNodePtr c = pci->children; c; c = c->next)
      *has_gpu |= c->type == XML_ELEMENT_NODE && !xmlStrcmp(c->name, (const xmlChar *)"gpu");
    rc = 0;
  }
  xmlFreeDoc(doc);
  return rc;
}

static void attr_str(xmlNodePtr n, const char *name, char *out, size_t size) {
  xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
  snprintf(out, size, "%s", v ? (const char *)v : "");
  xmlFree(v);
}

int nn_nclog_dump_cpu_kind(const char *xml, size_t len, int numa, struct nn_nclog_cpu_kind *k) {
  xmlDocPtr doc = read_xml(xml, len);
  xmlNodePtr root = doc ? xmlDocGetRootElement(doc) : NULL;
  int rc = -1;
  memset(k, 0, sizeof *k);
  for (xmlNodePtr n = root ? root->children : NULL; n && rc; n = n->next) {
    int id;
    if (n->type != XML_ELEMENT_NODE || xmlStrcmp(n->name, (const xmlChar *)"cpu") ||
        attr_int(n, "numaid", &id) || id != numa)
      continue;
    attr_str(n, "arch", k->arch, sizeof k->arch);
    attr_str(n, "vendor", k->vendor, sizeof k->vendor);
    if (attr_int(n, "familyid", &k->family)) k->family = -1;
    if (attr_int(n, "modelid", &k->model)) k->model = -1;
    rc = k->vendor[0] ? 0 : -1;
  }
  xmlFreeDoc(doc);
  return rc;
}
