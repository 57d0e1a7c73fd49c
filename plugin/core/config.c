/*
 * config.c - the mapping file, format 1: reading, validating, and the small
 * helpers (names, bus ids, CPU lists) that the rest of the project shares.
 *
 * The parser never stops at the first problem: every line is checked and every
 * problem recorded, so that one run of `check-config` shows all of them; any
 * problem rejects the whole file. Nothing in the input is trusted: lengths,
 * numbers and counts are bounded before they are used, and text quoted back in
 * messages is escaped and shortened so a hostile file cannot flood a terminal.
 */
#include "nn_config.h"

#include "csv_rules.h"
#include "numparse.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define NN_DIAG_CAP 100
#define NN_MAX_ENVS 4096
#define NN_MAX_FIELDS (NN_MAX_LINE_BYTES / 2 + 2)
#define NN_QUOTE_MAX 48
#define NN_BUS_SLOTS 4096     /* hash slots for bus ids, 4x NN_MAX_GPUS */
#define NN_ENV_SLOTS 8192     /* hash slots for env names, 2x NN_MAX_ENVS */

/* ------------------------------------------------------------------ names */

static const char *const coll_names[NN_COLL_COUNT] = {
  "broadcast", "reduce", "allgather", "reducescatter", "allreduce"};
static const char *const algo_names[NN_ALGO_COUNT] = {
  "tree", "ring", "collnet_direct", "collnet_chain", "nvls", "nvls_tree", "pat"};
static const char *const proto_names[NN_PROTO_COUNT] = {"ll", "ll128", "simple"};
static const char *const scope_names[] = {"any", "intra", "cross", "unknown"};
static const char *const topo_mode_names[] = {"auto", "numa", "off"};

#define NN_COUNT_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const char *name_at(const char *const *names, int n, int i) {
  return (i >= 0 && i < n) ? names[i] : "?";
}

static int index_of(const char *const *names, int n, const char *s) {
  if (!s) return -2;
  for (int i = 0; i < n; i++)
    if (!strcasecmp(names[i], s)) return i;
  return -2;
}

const char *nn_coll_name(int coll) {
  return coll == NN_ANY ? "any" : name_at(coll_names, NN_COLL_COUNT, coll);
}
const char *nn_algo_name(int algo) {
  return algo == NN_ANY ? "any" : name_at(algo_names, NN_ALGO_COUNT, algo);
}
const char *nn_proto_name(int proto) {
  return proto == NN_ANY ? "any" : name_at(proto_names, NN_PROTO_COUNT, proto);
}
const char *nn_scope_name(int scope) {
  return name_at(scope_names, NN_COUNT_OF(scope_names), scope);
}
const char *nn_topo_mode_name(int mode) {
  return name_at(topo_mode_names, NN_COUNT_OF(topo_mode_names), mode);
}

int nn_coll_from_name(const char *s) {
  if (s && !strcasecmp(s, "any")) return NN_ANY;
  return index_of(coll_names, NN_COLL_COUNT, s);
}
int nn_algo_from_name(const char *s) { return index_of(algo_names, NN_ALGO_COUNT, s); }
int nn_proto_from_name(const char *s) { return index_of(proto_names, NN_PROTO_COUNT, s); }
int nn_scope_from_name(const char *s) {
  return index_of(scope_names, NN_COUNT_OF(scope_names) - 1, s);  /* "unknown" is not a rule value */
}
int nn_topo_mode_from_name(const char *s) {
  return index_of(topo_mode_names, NN_COUNT_OF(topo_mode_names), s);
}

/* ------------------------------------------------------------------ diag */

void nn_diag_add(struct nn_diag *d, const char *fmt, ...) {
  if (!d) return;
  if (d->n >= NN_DIAG_CAP) {
    d->dropped++;
    return;
  }
  va_list ap;
  va_start(ap, fmt);
  char *msg = NULL;
  int r = vasprintf(&msg, fmt, ap);
  va_end(ap);
  char **grown = r < 0 ? NULL : realloc(d->msgs, (size_t)(d->n + 1) * sizeof *d->msgs);
  if (!grown) {
    free(msg);
    d->dropped++;
    return;
  }
  d->msgs = grown;
  d->msgs[d->n++] = msg;
}

void nn_diag_clear(struct nn_diag *d) {
  if (!d) return;
  for (int i = 0; i < d->n; i++) free(d->msgs[i]);
  free(d->msgs);
  d->msgs = NULL;
  d->n = 0;
  d->dropped = 0;
}

/* ------------------------------------------------------------------ values */

static int hex_digit(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  c = tolower((unsigned char)c);
  return (c >= 'a' && c <= 'f') ? c - 'a' + 10 : -1;
}

/* Hex digits from s to end, between min and max of them. */
static int hex_field(const char *s, const char *end, int min, int max, unsigned long *out) {
  int n = (int)(end - s);
  if (n < min || n > max) return -1;
  unsigned long v = 0;
  for (int i = 0; i < n; i++) {
    int d = hex_digit((unsigned char)s[i]);
    if (d < 0) return -1;
    v = v * 16 + (unsigned long)d;
  }
  *out = v;
  return 0;
}

int nn_busid_parse(const char *s, struct nn_busid *out) {
  if (!s || !out) return -1;
  const char *c1 = strchr(s, ':');
  if (!c1) return -1;
  const char *c2 = strchr(c1 + 1, ':');
  unsigned long dom = 0, bus, dev, fn;
  const char *bus_start = s;
  if (c2) {
    if (hex_field(s, c1, 1, 8, &dom) || dom > 0xffff) return -1;
    bus_start = c1 + 1;
    c1 = c2;
  }
  const char *dot = strchr(c1 + 1, '.');
  if (!dot || strchr(dot + 1, ':') || strchr(dot + 1, '.')) return -1;
  if (hex_field(bus_start, c1, 2, 2, &bus)) return -1;
  if (hex_field(c1 + 1, dot, 2, 2, &dev) || dev > 0x1f) return -1;
  if (hex_field(dot + 1, dot + 1 + strlen(dot + 1), 1, 1, &fn) || fn > 7) return -1;
  out->domain = (uint16_t)dom;
  out->bus = (uint8_t)bus;
  out->dev = (uint8_t)dev;
  out->func = (uint8_t)fn;
  return 0;
}

void nn_busid_format(const struct nn_busid *b, char *buf, size_t size) {
  if (!buf || !size) return;
  if (!b) {
    buf[0] = 0;
    return;
  }
  snprintf(buf, size, "%04x:%02x:%02x.%x", b->domain, b->bus, b->dev, b->func);
}

/* Unsigned decimal with an optional K/M/G/T suffix (powers of 1024).
 * Returns 0, -1 for bad syntax, -2 when the value exceeds `max`. */
static int parse_u64(const char *s, int allow_suffix, uint64_t max, uint64_t *out) {
  if (!s || !isdigit((unsigned char)*s)) return -1;
  uint64_t v = 0;
  int too_big = 0;
  for (; isdigit((unsigned char)*s); s++) {
    unsigned d = (unsigned)(*s - '0');
    if (v > (UINT64_MAX - d) / 10) too_big = 1;
    else v = v * 10 + d;
  }
  if (*s) {
    static const char sfx[] = "kmgt";
    const char *p = allow_suffix ? strchr(sfx, tolower((unsigned char)*s)) : NULL;
    if (!p || s[1]) return -1;
    for (int shift = (int)(p - sfx) + 1; shift > 0; shift--) {
      if (v > UINT64_MAX / 1024) too_big = 1;
      else v *= 1024;
    }
  }
  if (too_big || v > max) return -2;
  *out = v;
  return 0;
}

/* Decimal, or hex with a 0x prefix; bounded by `max`. */
static int parse_dec_or_hex(const char *s, long max, long *out) {
  if (!s || !*s) return -1;
  int base = 10;
  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s += 2;
  }
  if (!*s) return -1;
  long v = 0;
  for (; *s; s++) {
    int d = base == 16 ? hex_digit((unsigned char)*s) : (isdigit((unsigned char)*s) ? *s - '0' : -1);
    if (d < 0) return -1;
    v = v * base + d;
    if (v > max) return -2;
  }
  *out = v;
  return 0;
}

static int parse_small(const char *s, long max, long *out) {
  uint64_t v;
  int r = parse_u64(s, 0, (uint64_t)max, &v);
  if (r == 0) *out = (long)v;
  return r;
}

/* ------------------------------------------------------------------ CPU lists */

static void mask_set_range(uint32_t *mask, int lo, int hi) {
  for (int c = lo; c <= hi; c++) mask[c / 32] |= 1u << (c % 32);
}

int nn_cpulist_parse(const char *list, uint32_t *mask, char *err, size_t err_size) {
  if (mask) memset(mask, 0, NN_CPUMASK_WORDS * sizeof *mask);
  if (err && err_size) err[0] = 0;
  if (!list || !*list) {
    if (err) snprintf(err, err_size, "the list is empty");
    return -1;
  }
  int highest = -1;
  const char *p = list;
  for (;;) {
    char item[32];
    size_t n = strcspn(p, ",");
    if (n == 0 || n >= sizeof item) {
      if (err) snprintf(err, err_size, n ? "an item is too long" : "an item is empty");
      return -1;
    }
    memcpy(item, p, n);
    item[n] = 0;
    char *dash = strchr(item, '-');
    if (dash) *dash = 0;
    long lo = 0, hi = 0;
    int r1 = parse_small(item, NN_MAX_CPU, &lo);
    int r2 = dash ? parse_small(dash + 1, NN_MAX_CPU, &hi) : r1;
    if (!dash) hi = lo;
    if (r1 == -2 || r2 == -2) {
      if (err) snprintf(err, err_size, "CPU numbers go up to %d", NN_MAX_CPU);
      return -1;
    }
    if (r1 || r2) {
      if (err) snprintf(err, err_size, "expected N or N-M items separated by commas");
      return -1;
    }
    if (lo > hi) {
      if (err) snprintf(err, err_size, "range %ld-%ld is inverted", lo, hi);
      return -1;
    }
    if (mask) mask_set_range(mask, (int)lo, (int)hi);
    if (hi > highest) highest = (int)hi;
    p += n;
    if (!*p) break;
    p++;
  }
  return highest;
}

int nn_cpumask_format(const uint32_t *mask, int highest, char *buf, size_t size) {
  if (!mask || highest < 0 || highest > NN_MAX_CPU) return -1;
  int words = highest / 32 + 1;
  int len = words * 9 - 1;
  if (!buf || size < (size_t)len + 1) return -1;
  char *o = buf;
  for (int w = words - 1; w >= 0; w--)
    o += sprintf(o, w ? "%08x," : "%08x", mask[w]);
  return len;
}

/* Characters of the sysfs cpumap for CPUs up to `highest`. */
static int cpumap_chars(int highest) {
  return (highest / 32 + 1) * 9 - 1;
}

/* ------------------------------------------------------------------ cpuinfo */

int nn_cpuinfo_read(const char *path, char vendor[16], int *family, int *model) {
  FILE *f = fopen(path ? path : "/proc/cpuinfo", "re");
  if (!f) return -1;
  vendor[0] = 0;
  *family = *model = -1;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '\n' && vendor[0]) break;  /* end of the first processor */
    char *colon = strchr(line, ':');
    if (!colon) continue;
    char *key_end = colon;
    while (key_end > line && isspace((unsigned char)key_end[-1])) key_end--;
    size_t klen = (size_t)(key_end - line);
    char *val = colon + 1;
    while (*val == ' ' || *val == '\t') val++;
    val[strcspn(val, " \t\r\n")] = 0;
    if (klen == 9 && !strncmp(line, "vendor_id", 9) && !vendor[0])
      snprintf(vendor, 16, "%.15s", val);
    else if (klen == 10 && !strncmp(line, "cpu family", 10) && *family < 0)
      nn_int_parse(val, 0, INT_MAX, family);   /* junk leaves it unknown (-1) */
    else if (klen == 5 && !strncmp(line, "model", 5) && *model < 0)
      nn_int_parse(val, 0, INT_MAX, model);
  }
  fclose(f);
  return vendor[0] ? 0 : -1;
}

/* ------------------------------------------------------------------ parser state */

struct parser {
  const char *name;
  const struct nn_parse_opts *opts;
  struct nn_diag *diag;
  struct nn_config *cfg;
  int line;
  int errors;
  char buf[NN_MAX_LINE_BYTES + 1];
  char *f[NN_MAX_FIELDS];
  int nf;
  char quote[4][NN_QUOTE_MAX * 4 + 8];
  int quote_next;
  /* gpu bookkeeping */
  struct nn_gpu *gpus;   /* file order */
  int n_gpus, gpu_cap;
  int last_gpu_line, gpu_line_errors, gpus_over;
  unsigned char node_used[NN_MAX_NUMA_ID + 1];
  int distinct_nodes;
  int rules_cap, rules_over, envs_cap, envs_over, numas_cap;
  int cpu_line, topo_line, gpu_without_bus;
  /* first line of each accepted value, so duplicates cost O(1) even in a
   * hostile 16 MiB file */
  int index_line[NN_MAX_GPUS];
  int numa_line[NN_MAX_NUMA_ID + 1];
  struct bus_slot {
    uint64_t key;   /* busid_key() + 1; 0 = empty */
    int line;
  } bus_tab[NN_BUS_SLOTS], host_tab[NN_BUS_SLOTS];
  int env_tab[NN_ENV_SLOTS];   /* index into cfg->envs + 1; 0 = empty */
};

static uint64_t busid_key(const struct nn_busid *b) {
  return ((uint64_t)b->domain << 16 | (uint64_t)b->bus << 8 | (uint64_t)b->dev << 3 | b->func) + 1;
}

/* The slot holding `b`, or the empty slot where it would go. */
static struct bus_slot *bus_slot(struct bus_slot *tab, const struct nn_busid *b) {
  uint64_t key = busid_key(b);
  size_t i = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 52) % NN_BUS_SLOTS;
  while (tab[i].key && tab[i].key != key) i = (i + 1) % NN_BUS_SLOTS;
  return &tab[i];
}

static void perr(struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void perr(struct parser *p, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  p->errors++;
  if (p->line > 0) nn_diag_add(p->diag, "%s:%d: %s", p->name, p->line, msg);
  else nn_diag_add(p->diag, "%s: %s", p->name, msg);
}

/* Text from the file, made safe to print: non-printable bytes as \xNN, long text cut. */
static const char *q(struct parser *p, const char *s) {
  char *out = p->quote[p->quote_next++ % 4];
  char *o = out;
  int shown = 0;
  for (; *s && shown < NN_QUOTE_MAX; s++, shown++) {
    unsigned char c = (unsigned char)*s;
    if (c >= 0x20 && c < 0x7f && c != '\\') *o++ = (char)c;
    else o += sprintf(o, "\\x%02x", c);
  }
  if (*s) o += sprintf(o, "...");
  *o = 0;
  return out;
}

static int grow(void **arr, int *cap, int need, size_t elem) {
  if (need <= *cap) return 0;
  int ncap = *cap ? *cap * 2 : 16;
  while (ncap < need) ncap *= 2;
  void *n = realloc(*arr, (size_t)ncap * elem);
  if (!n) return -1;
  *arr = n;
  *cap = ncap;
  return 0;
}

/* Splits the line in p->buf into fields; a field starting with '#' ends the line. */
static void split_fields(struct parser *p) {
  p->nf = 0;
  char *s = p->buf;
  while (*s) {
    while (*s == ' ' || *s == '\t') s++;
    if (!*s || *s == '#') break;
    p->f[p->nf++] = s;
    while (*s && *s != ' ' && *s != '\t') s++;
    if (*s) *s++ = 0;
  }
}

/* Key=value fields of a directive, checked against the keys it accepts. */
struct kv {
  const char *key;
  const char *val;   /* NULL when not given */
};

static int take_keys(struct parser *p, const char *dir, int first, struct kv *keys, int nkeys) {
  int bad = 0;
  for (int i = first; i < p->nf; i++) {
    char *eq = strchr(p->f[i], '=');
    if (!eq || eq == p->f[i]) {
      perr(p, "%s: expected KEY=VALUE, got '%s'", dir, q(p, p->f[i]));
      bad++;
      continue;
    }
    *eq = 0;
    int k = 0;
    while (k < nkeys && strcasecmp(keys[k].key, p->f[i])) k++;
    if (k == nkeys) {
      perr(p, "%s: unknown key '%s'", dir, q(p, p->f[i]));
      bad++;
    } else if (keys[k].val) {
      perr(p, "%s: key '%s' given twice", dir, keys[k].key);
      bad++;
    } else {
      keys[k].val = eq + 1;
    }
  }
  return bad;
}

static int is_any(const char *v) { return !strcasecmp(v, "any"); }

/* ------------------------------------------------------------------ gpu */

static int parse_node_id(struct parser *p, const char *dir, const char *what, const char *s) {
  long v;
  if (parse_small(s, NN_MAX_NUMA_ID, &v)) {
    perr(p, "%s: bad %s '%s' (expected a NUMA node 0-%d)", dir, what, q(p, s), NN_MAX_NUMA_ID);
    return -1;
  }
  return (int)v;
}

static int gpu_busid(struct parser *p, const char *key, const char *val, struct nn_busid *out) {
  if (nn_busid_parse(val, out) == 0) return 0;
  perr(p, "gpu: bad %s id '%s' (expected [dddd:]bb:dd.f in hex: domain <= ffff, "
       "device <= 1f, function <= 7)", key, q(p, val));
  return -1;
}

static int gpu_check_unique(struct parser *p, const struct nn_gpu *g) {
  int bad = 0;
  char b[16];
  if (g->index >= 0 && p->index_line[g->index]) {
    perr(p, "gpu: duplicate index %d (first on line %d)", g->index, p->index_line[g->index]);
    bad++;
  }
  const struct bus_slot *o = g->has_bus ? bus_slot(p->bus_tab, &g->bus) : NULL;
  if (o && o->key) {
    nn_busid_format(&g->bus, b, sizeof b);
    perr(p, "gpu: duplicate bus id %s (first on line %d)", b, o->line);
    bad++;
  }
  o = g->has_host ? bus_slot(p->host_tab, &g->host) : NULL;
  if (o && o->key) {
    nn_busid_format(&g->host, b, sizeof b);
    perr(p, "gpu: duplicate host id %s (first on line %d)", b, o->line);
    bad++;
  }
  return bad;
}

static void gpu_remember(struct parser *p, const struct nn_gpu *g) {
  p->index_line[g->index] = g->line;
  struct bus_slot *s;
  if (g->has_bus) {
    s = bus_slot(p->bus_tab, &g->bus);
    s->key = busid_key(&g->bus);
    s->line = g->line;
  }
  if (g->has_host) {
    s = bus_slot(p->host_tab, &g->host);
    s->key = busid_key(&g->host);
    s->line = g->line;
  }
}

static int gpu_count_node(struct parser *p, int node) {
  if (p->node_used[node]) return 0;
  if (p->distinct_nodes >= NN_MAX_NUMA_NODES) {
    perr(p, "gpu: numa=%d would be NUMA node number %d; at most %d distinct NUMA nodes",
         node, p->distinct_nodes + 1, NN_MAX_NUMA_NODES);
    return -1;
  }
  p->node_used[node] = 1;
  p->distinct_nodes++;
  return 0;
}

static int gpu_keys(struct parser *p, struct kv *k, struct nn_gpu *g) {
  int host_side = p->opts && (p->opts->flags & NN_PARSE_HOST_SIDE);
  int bad = 0;
  if (k[0].val) {
    if (gpu_busid(p, "bus", k[0].val, &g->bus) == 0) g->has_bus = 1;  /* unset: no false duplicate */
    else bad++;
  } else if (!host_side) {
    p->gpu_without_bus++;
    perr(p, "gpu: missing bus=%s", p->cfg->host_side ?
         " (this is a host-side mapping: check it with --host-side, or complete it with "
         "discover --guest)" : "");
    bad++;
  }
  if (!k[1].val) {
    perr(p, "gpu: missing numa=");
    bad++;
  } else if ((g->numa = parse_node_id(p, "gpu", "numa", k[1].val)) < 0) {
    bad++;
  }
  if (k[2].val) {
    if (gpu_busid(p, "host", k[2].val, &g->host) == 0) g->has_host = 1;  /* unset: no false duplicate */
    else bad++;
  } else if (host_side) {
    perr(p, "gpu: missing host= (a host-side mapping needs it)");
    bad++;
  }
  if (k[3].val) {
    long sm;
    if (parse_small(k[3].val, 999, &sm) || sm < 10) {
      perr(p, "gpu: bad sm '%s' (expected major*10+minor, e.g. 90 or 120)", q(p, k[3].val));
      bad++;
    } else {
      g->sm = (int)sm;
    }
  }
  return bad;
}

static void dir_gpu(struct parser *p) {
  p->last_gpu_line = p->line;
  if (p->gpus_over) return;
  if (p->n_gpus >= NN_MAX_GPUS) {
    perr(p, "gpu: too many gpu lines (at most %d)", NN_MAX_GPUS);
    p->gpus_over = 1;
    p->gpu_line_errors++;
    return;
  }
  struct nn_gpu g = {.index = -1, .numa = -1, .line = p->line};
  int bad = 0;
  if (p->nf < 2 || strchr(p->f[1], '=')) {
    perr(p, "gpu: missing index (expected: gpu <index> bus=<busid> numa=<node>)");
    bad++;
  } else {
    long idx;
    if (parse_small(p->f[1], NN_MAX_GPUS - 1, &idx)) {
      perr(p, "gpu: bad index '%s' (expected 0-%d)", q(p, p->f[1]), NN_MAX_GPUS - 1);
      bad++;
    } else {
      g.index = (int)idx;
    }
  }
  struct kv k[] = {{"bus", NULL}, {"numa", NULL}, {"host", NULL}, {"sm", NULL}};
  int first = (p->nf >= 2 && !strchr(p->f[1], '=')) ? 2 : 1;
  bad += take_keys(p, "gpu", first, k, NN_COUNT_OF(k));
  bad += gpu_keys(p, k, &g);
  if (g.index >= 0) bad += gpu_check_unique(p, &g);
  if (!bad && gpu_count_node(p, g.numa)) bad++;   /* only accepted lines count */
  if (bad) {
    p->gpu_line_errors++;
    return;
  }
  if (grow((void **)&p->gpus, &p->gpu_cap, p->n_gpus + 1, sizeof g)) {
    perr(p, "out of memory");
    return;
  }
  p->gpus[p->n_gpus++] = g;
  gpu_remember(p, &g);
}

/* Every index 0..N-1 exactly once; reported at the last gpu line (note 9). */
static void gpus_finish(struct parser *p) {
  if (!p->n_gpus || p->gpu_line_errors) return;
  unsigned char seen[NN_MAX_GPUS] = {0};
  for (int i = 0; i < p->n_gpus; i++) seen[p->gpus[i].index] = 1;
  char list[200];
  int len = 0, missing = 0;
  for (int i = 0; i < p->n_gpus; i++) {
    if (seen[i]) continue;
    if (missing < 8) len += snprintf(list + len, sizeof list - (size_t)len, "%s%d", missing ? ", " : "", i);
    missing++;
  }
  if (!missing) return;
  int save = p->line;
  p->line = p->last_gpu_line;
  perr(p, "gpu: index %s%s missing (%d gpu lines need indices 0-%d, each once)", list,
       missing > 8 ? ", ..." : "", p->n_gpus, p->n_gpus - 1);
  p->line = save;
}

/* ------------------------------------------------------------------ numa */

static void dir_numa(struct parser *p) {
  int node = -1, bad = 0;
  if (p->nf < 2 || strchr(p->f[1], '=')) {
    perr(p, "numa: missing node (expected: numa <node> cpus=<list>)");
    bad++;
  } else if ((node = parse_node_id(p, "numa", "node", p->f[1])) < 0) {
    bad++;
  }
  struct kv k[] = {{"cpus", NULL}};
  int first = (p->nf >= 2 && !strchr(p->f[1], '=')) ? 2 : 1;
  bad += take_keys(p, "numa", first, k, 1);
  struct nn_config *c = p->cfg;
  if (node >= 0 && p->numa_line[node]) {
    perr(p, "numa: second line for node %d (first on line %d)", node, p->numa_line[node]);
    bad++;
  }
  if (!k[0].val) {
    perr(p, "numa: missing cpus=");
    bad++;
  } else {
    char why[96];
    int highest = nn_cpulist_parse(k[0].val, NULL, why, sizeof why);
    if (highest < 0) {
      perr(p, "numa: bad cpus list '%s': %s", q(p, k[0].val), why);
      bad++;
    } else if (cpumap_chars(highest) > NN_MAX_AFFINITY_CHARS) {
      perr(p, "numa: cpus=%s is too long for NCCL: CPU %d makes an affinity mask of %d "
           "characters, over NCCL's %d-character attribute limit",
           q(p, k[0].val), highest, cpumap_chars(highest), NN_MAX_AFFINITY_CHARS);
      bad++;
    }
  }
  if (bad) return;
  if (grow((void **)&c->numas, &p->numas_cap, c->n_numas + 1, sizeof *c->numas)) {
    perr(p, "out of memory");
    return;
  }
  struct nn_numa *n = &c->numas[c->n_numas];
  n->node = node;
  n->line = p->line;
  /* k[0].val is not NULL: a NULL one was counted in bad above; the analyzer loses that
   * when take_keys' loop makes bad unknown. */
  n->cpus = strdup(k[0].val);  // NOLINT(clang-analyzer-core.NonNullParamChecker)
  if (!n->cpus) {
    perr(p, "out of memory");
    return;
  }
  c->n_numas++;
  p->numa_line[node] = p->line;
}

/* ------------------------------------------------------------------ cpu */

static int cpu_number(struct parser *p, const char *key, const char *val, int *out) {
  long v;
  if (!val) return 0;
  if (parse_dec_or_hex(val, 0xffff, &v)) {
    perr(p, "cpu: bad %s '%s' (expected a decimal or 0x hex number up to 65535)", key, q(p, val));
    return 1;
  }
  *out = (int)v;
  return 0;
}

/* GenuineIntel: NCCL models the socket link by model, so both numbers are needed. */
static int cpu_intel_complete(struct parser *p, struct nn_cpu *cpu) {
  if (cpu->family >= 0 && cpu->model >= 0) return 0;
  const char *path = p->opts && p->opts->cpuinfo_path ? p->opts->cpuinfo_path : "/proc/cpuinfo";
  char vendor[16];
  int fam, mod;
  if (nn_cpuinfo_read(path, vendor, &fam, &mod) == 0 && !strcmp(vendor, "GenuineIntel") &&
      (cpu->family >= 0 || fam >= 0) && (cpu->model >= 0 || mod >= 0))
    return 0;
  perr(p, "cpu: vendor=GenuineIntel needs family= and model= (this host's %s does not "
       "describe an Intel CPU to take them from)", path);
  return 1;
}

static void dir_cpu(struct parser *p) {
  struct nn_cpu *cpu = &p->cfg->cpu;
  if (p->cpu_line) {
    perr(p, "cpu: second cpu line (first on line %d)", p->cpu_line);
    return;
  }
  p->cpu_line = p->line;
  struct kv k[] = {{"vendor", NULL}, {"family", NULL}, {"model", NULL}};
  int bad = take_keys(p, "cpu", 1, k, NN_COUNT_OF(k));
  struct nn_cpu c = {.present = 1, .family = -1, .model = -1, .line = p->line};
  if (!k[0].val) {
    perr(p, "cpu: missing vendor=");
    bad++;
  } else if (!strcasecmp(k[0].val, "AuthenticAMD") || !strcasecmp(k[0].val, "GenuineIntel")) {
    strcpy(c.vendor, tolower((unsigned char)k[0].val[0]) == 'a' ? "AuthenticAMD" : "GenuineIntel");
  } else {
    perr(p, "cpu: unknown vendor '%s' (expected AuthenticAMD or GenuineIntel)", q(p, k[0].val));
    bad++;
  }
  bad += cpu_number(p, "family", k[1].val, &c.family);
  bad += cpu_number(p, "model", k[2].val, &c.model);
  if (!bad && !strcmp(c.vendor, "GenuineIntel")) bad += cpu_intel_complete(p, &c);
  if (!bad) *cpu = c;
}

/* ------------------------------------------------------------------ rule */

/* `lo-hi`, `lo-` or (when allowed) `n`. */
static int rule_range(struct parser *p, const char *key, const char *val, int single,
                      uint64_t *lo, uint64_t *hi) {
  const char *dash = strchr(val, '-');
  if (!dash && !single) {
    perr(p, "rule: %s=%s: expected a range lo-hi or lo- (e.g. 64K-1M)", key, q(p, val));
    return 1;
  }
  if (dash == val) {
    perr(p, "rule: %s=%s: missing lower bound (sizes cannot be negative)", key, q(p, val));
    return 1;
  }
  char lo_s[64], hi_s[64];
  size_t lo_len = dash ? (size_t)(dash - val) : strlen(val);
  const char *hs = dash ? dash + 1 : NULL;
  if (lo_len >= sizeof lo_s || (hs && strlen(hs) >= sizeof hi_s)) {
    perr(p, "rule: %s=%s: number too large", key, q(p, val));
    return 1;
  }
  memcpy(lo_s, val, lo_len);
  lo_s[lo_len] = 0;
  int r1 = parse_u64(lo_s, 1, UINT64_MAX, lo), r2 = 0;
  if (hs && *hs) {
    snprintf(hi_s, sizeof hi_s, "%s", hs);
    r2 = parse_u64(hi_s, 1, UINT64_MAX, hi);
  } else {
    *hi = hs ? NN_UNBOUNDED : *lo;
  }
  if (r1 == -2 || r2 == -2) {
    perr(p, "rule: %s=%s: number too large (overflows 64 bits)", key, q(p, val));
    return 1;
  }
  if (r1 || r2) {
    perr(p, "rule: %s=%s: bad number (expected digits with an optional K, M, G or T suffix)",
         key, q(p, val));
    return 1;
  }
  if (*lo > *hi) {
    perr(p, "rule: %s=%s: inverted range (lower bound above upper bound)", key, q(p, val));
    return 1;
  }
  return 0;
}

static int rule_enum(struct parser *p, const char *key, const char *val, int value,
                     const char *expected, int *out) {
  if (value == -2) {
    perr(p, "rule: unknown %s '%s' (expected %s)", key, q(p, val), expected);
    return 1;
  }
  *out = value;
  return 0;
}

enum { RK_COLL, RK_BYTES, RK_RANKS, RK_NODES, RK_SCOPE, RK_ALGO, RK_PROTO, RK_CHANNELS, RK_N };

static int rule_values(struct parser *p, struct kv *k, struct nn_rule *r) {
  int bad = 0;
  for (int i = RK_BYTES; i < RK_N; i++)
    if (i != RK_SCOPE && k[i].val && is_any(k[i].val)) {
      perr(p, "rule: %s=any: 'any' is a value only for coll and scope (leave %s out to match "
           "anything)", k[i].key, k[i].key);
      k[i].val = NULL;
      bad++;
    }
  if (k[RK_COLL].val)
    bad += rule_enum(p, "coll", k[RK_COLL].val, nn_coll_from_name(k[RK_COLL].val),
                     "allreduce, allgather, reducescatter, broadcast, reduce or any", &r->coll);
  if (k[RK_BYTES].val) bad += rule_range(p, "bytes", k[RK_BYTES].val, 0, &r->bytes_lo, &r->bytes_hi);
  if (k[RK_RANKS].val) bad += rule_range(p, "ranks", k[RK_RANKS].val, 1, &r->ranks_lo, &r->ranks_hi);
  if (k[RK_NODES].val) bad += rule_range(p, "nodes", k[RK_NODES].val, 1, &r->nodes_lo, &r->nodes_hi);
  if (k[RK_SCOPE].val)
    bad += rule_enum(p, "scope", k[RK_SCOPE].val, nn_scope_from_name(k[RK_SCOPE].val),
                     "intra, cross or any", &r->scope);
  if (k[RK_ALGO].val)
    bad += rule_enum(p, "algo", k[RK_ALGO].val, nn_algo_from_name(k[RK_ALGO].val),
                     "tree, ring, collnet_direct, collnet_chain, nvls, nvls_tree or pat", &r->algo);
  if (k[RK_PROTO].val)
    bad += rule_enum(p, "proto", k[RK_PROTO].val, nn_proto_from_name(k[RK_PROTO].val),
                     "ll, ll128 or simple", &r->proto);
  if (k[RK_CHANNELS].val) {
    long ch;
    if (parse_small(k[RK_CHANNELS].val, NN_MAX_CHANNELS, &ch) || ch < 1) {
      perr(p, "rule: bad channels '%s' (expected 1-%d)", q(p, k[RK_CHANNELS].val), NN_MAX_CHANNELS);
      bad++;
    } else {
      r->channels = (int)ch;
    }
  }
  return bad;
}

static void dir_rule(struct parser *p) {
  struct nn_config *c = p->cfg;
  if (p->rules_over) return;
  if (c->n_rules >= NN_MAX_RULES) {
    perr(p, "rule: too many rules (at most %d)", NN_MAX_RULES);
    p->rules_over = 1;
    return;
  }
  struct kv k[RK_N] = {{"coll", NULL}, {"bytes", NULL}, {"ranks", NULL},
                       {"nodes", NULL}, {"scope", NULL}, {"algo", NULL},
                       {"proto", NULL}, {"channels", NULL}};
  struct nn_rule r = {.coll = NN_ANY, .bytes_hi = NN_UNBOUNDED, .ranks_hi = NN_UNBOUNDED,
                      .nodes_hi = NN_UNBOUNDED, .scope = NN_SCOPE_ANY, .algo = NN_ANY,
                      .proto = NN_ANY, .pipeops = NN_ANY, .regbuff = NN_ANY,
                      .file = c->files[0], .line = p->line};
  int bad = take_keys(p, "rule", 1, k, RK_N);
  bad += rule_values(p, k, &r);
  if (!k[RK_ALGO].val && !k[RK_PROTO].val && !k[RK_CHANNELS].val) {
    perr(p, "rule: needs at least one of algo=, proto=, channels=");
    bad++;
  }
  if (bad) return;
  if (grow((void **)&c->rules, &p->rules_cap, c->n_rules + 1, sizeof r)) {
    perr(p, "out of memory");
    return;
  }
  c->rules[c->n_rules++] = r;
}

/* ------------------------------------------------------------------ env, model, topology */

static int env_name_ok(const char *s) {
  if (strncmp(s, "NCCL_", 5) || !s[5]) return 0;
  for (; *s; s++)
    if (!isalnum((unsigned char)*s) && *s != '_') return 0;
  return 1;
}

/* The slot holding `name`, or the empty slot where it would go (FNV-1a hash). */
static int *env_slot(struct parser *p, const char *name) {
  uint32_t h = 2166136261u;
  for (const unsigned char *s = (const unsigned char *)name; *s; s++) h = (h ^ *s) * 16777619u;
  size_t i = h % NN_ENV_SLOTS;
  while (p->env_tab[i] && strcmp(p->cfg->envs[p->env_tab[i] - 1].name, name))
    i = (i + 1) % NN_ENV_SLOTS;
  return &p->env_tab[i];
}

static void dir_env(struct parser *p) {
  struct nn_config *c = p->cfg;
  if (p->nf < 2) {
    perr(p, "env: expected env NCCL_NAME=value");
    return;
  }
  int bad = 0;
  for (int i = 2; i < p->nf; i++, bad++)
    perr(p, "env: unexpected field '%s' (values contain no spaces)", q(p, p->f[i]));
  char *eq = strchr(p->f[1], '=');
  if (!eq) {
    perr(p, "env: expected NAME=value, got '%s'", q(p, p->f[1]));
    return;
  }
  *eq = 0;
  const char *name = p->f[1], *value = eq + 1;
  if (!env_name_ok(name)) {
    perr(p, "env: '%s' is not an NCCL variable name (expected NCCL_ followed by letters, "
         "digits or _)", q(p, name));
    return;
  }
  if (!strcmp(name, "NCCL_NUMA_CONFIG")) {
    perr(p, "env: NCCL_NUMA_CONFIG cannot be set here (the mapping's path comes only from "
         "the real environment)");
    return;
  }
  int *slot = env_slot(p, name);
  if (*slot) {
    perr(p, "env: duplicate %s (first on line %d)", name, c->envs[*slot - 1].line);
    return;
  }
  if (bad || p->envs_over) return;
  if (c->n_envs >= NN_MAX_ENVS) {
    perr(p, "env: too many env lines (at most %d)", NN_MAX_ENVS);
    p->envs_over = 1;
    return;
  }
  if (grow((void **)&c->envs, &p->envs_cap, c->n_envs + 1, sizeof *c->envs)) {
    perr(p, "out of memory");
    return;
  }
  struct nn_env_default *e = &c->envs[c->n_envs];
  e->name = strdup(name);
  e->value = strdup(value);
  e->line = p->line;
  if (!e->name || !e->value) {
    free(e->name);
    free(e->value);
    perr(p, "out of memory");
    return;
  }
  *slot = ++c->n_envs;
}

/* The value of the one key of a directive a file may hold once; *first keeps
 * the line of the first such directive (0 before it). Returns NULL after
 * reporting a repeat, a bad field or a missing key (`hint` follows "KEY="). */
static const char *take_single_key(struct parser *p, const char *dir, int *first, const char *key,
                                   const char *hint) {
  if (*first) {
    perr(p, "%s: second %s line (first on line %d)", dir, dir, *first);
    return NULL;
  }
  *first = p->line;
  struct kv k[] = {{key, NULL}};
  if (take_keys(p, dir, 1, k, 1)) return NULL;
  if (!k[0].val) perr(p, "%s: missing %s=%s", dir, key, hint);
  return k[0].val;
}

static void dir_model(struct parser *p) {
  struct nn_config *c = p->cfg;
  const char *v = take_single_key(p, "model", &c->model_line, "pci-latency-us", "");
  if (!v) return;
  char *end;
  errno = 0;
  double x = strtod(v, &end);
  int numeric = *v && !*end && isfinite(x) && errno != ERANGE && !isspace((unsigned char)*v);
  if (!numeric || !(x > 0.0 && x <= 1e6)) {
    perr(p, "model: bad pci-latency-us '%s' (expected a number of microseconds, "
         "0 < x <= 1000000)", q(p, v));
    return;
  }
  c->pci_latency_us = x;
}

static void dir_topology(struct parser *p) {
  const char *v = take_single_key(p, "topology", &p->topo_line, "mode", " (auto, numa or off)");
  if (!v) return;
  int m = nn_topo_mode_from_name(v);
  if (m < 0) {
    perr(p, "topology: unknown mode '%s' (expected auto, numa or off)", q(p, v));
    return;
  }
  p->cfg->topo_mode = m;
}

/* ------------------------------------------------------------------ include-csv */

/* A relative path is taken relative to the mapping file's directory, as users expect
 * of a file that names its neighbours. */
static char *resolve_include(const char *config_name, const char *path) {
  const char *slash = strrchr(config_name, '/');
  if (path[0] == '/' || !slash) return strdup(path);
  size_t dir_len = (size_t)(slash - config_name) + 1, n = strlen(path);
  char *full = malloc(dir_len + n + 1);
  if (!full) return NULL;
  memcpy(full, config_name, dir_len);
  memcpy(full + dir_len, path, n + 1);
  return full;
}

/* The config owns every file name a rule points to. */
static const char *own_file_name(struct nn_config *c, char *name) {
  char **grown = realloc(c->files, (size_t)(c->n_files + 1) * sizeof *grown);
  if (!grown) { free(name); return NULL; }
  c->files = grown;
  c->files[c->n_files++] = name;
  return name;
}

static void append_csv_rules(struct parser *p, const struct nn_rule *rules, int n) {
  struct nn_config *c = p->cfg;
  if (c->n_rules + n > NN_MAX_RULES) {
    perr(p, "include-csv: %d more rules would exceed %d rules", n, NN_MAX_RULES);
    p->rules_over = 1;
    return;
  }
  if (grow((void **)&c->rules, &p->rules_cap, c->n_rules + n, sizeof *rules)) {
    perr(p, "out of memory");
    return;
  }
  memcpy(c->rules + c->n_rules, rules, (size_t)n * sizeof *rules);
  c->n_rules += n;
}

static void dir_include_csv(struct parser *p) {
  if (p->nf != 2) {
    perr(p, "include-csv: expected exactly one path");
    return;
  }
  char *resolved = resolve_include(p->name, p->f[1]);
  const char *path = resolved ? own_file_name(p->cfg, resolved) : NULL;
  if (!path) {
    perr(p, "out of memory");
    return;
  }
  struct nn_rule *rules = NULL;
  int n = 0;
  struct nn_diag sub = {0};
  if (nn_csv_rules_load(path, &rules, &n, &sub) != 0) {
    for (int i = 0; i < sub.n; i++) perr(p, "include-csv: %s", sub.msgs[i]);
    if (sub.dropped) perr(p, "include-csv: ... and %d more problems in %s", sub.dropped, path);
  } else if (n && !p->rules_over) {
    append_csv_rules(p, rules, n);
  }
  nn_diag_clear(&sub);
  free(rules);
}

int nn_config_add_csv_rules(struct nn_config *cfg, const char *path, struct nn_diag *diag) {
  char *copy = strdup(path);
  const char *owned = copy ? own_file_name(cfg, copy) : NULL;
  if (!owned) {
    nn_diag_add(diag, "%s: out of memory", path);
    return -1;
  }
  struct nn_rule *rules = NULL;
  int n = 0;
  if (nn_csv_rules_load(owned, &rules, &n, diag) != 0) return -1;
  if (cfg->n_rules + n > NN_MAX_RULES) {
    nn_diag_add(diag, "%s: %d more rules would exceed %d rules", owned, n, NN_MAX_RULES);
    free(rules);
    return -1;
  }
  struct nn_rule *grown = n ? realloc(cfg->rules, (size_t)(cfg->n_rules + n) * sizeof *grown) : cfg->rules;
  if (n && !grown) {
    nn_diag_add(diag, "%s: out of memory", owned);
    free(rules);
    return -1;
  }
  cfg->rules = grown;
  if (n) memcpy(cfg->rules + cfg->n_rules, rules, (size_t)n * sizeof *rules);
  cfg->n_rules += n;
  free(rules);
  return 0;
}

/* ------------------------------------------------------------------ lines */

static const struct {
  const char *name;
  void (*run)(struct parser *p);
} directives[] = {
  {"gpu", dir_gpu}, {"numa", dir_numa}, {"cpu", dir_cpu}, {"rule", dir_rule},
  {"env", dir_env}, {"model", dir_model}, {"topology", dir_topology},
  {"include-csv", dir_include_csv},
};

static void comment_line(struct parser *p, const char *s, size_t len) {
  static const char marker[] = NN_CONFIG_HOST_SIDE_MARKER;
  if (len >= sizeof marker - 1 && memmem(s, len, marker, sizeof marker - 1))
    p->cfg->host_side = 1;
}

static void parse_line(struct parser *p, const char *s, size_t len) {
  if (len && s[len - 1] == '\r') len--;
  if (len > NN_MAX_LINE_BYTES) {
    perr(p, "line is %zu bytes, over the %d-byte limit", len, NN_MAX_LINE_BYTES);
    return;
  }
  const char *nul = memchr(s, 0, len);
  if (nul) {
    perr(p, "NUL byte at column %zu (not a text file?)", (size_t)(nul - s) + 1);
    return;
  }
  size_t lead = 0;
  while (lead < len && (s[lead] == ' ' || s[lead] == '\t')) lead++;
  if (lead < len && s[lead] == '#') {
    comment_line(p, s + lead, len - lead);
    return;
  }
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)s[i];
    if ((c < 0x20 && c != '\t') || c == 0x7f) {
      perr(p, "control character \\x%02x at column %zu (not a text file?)", c, i + 1);
      return;
    }
  }
  memcpy(p->buf, s, len);
  p->buf[len] = 0;
  split_fields(p);
  if (!p->nf) return;
  for (int i = 0; i < NN_COUNT_OF(directives); i++)
    if (!strcasecmp(p->f[0], directives[i].name)) {
      directives[i].run(p);
      return;
    }
  perr(p, "unknown directive '%s' (expected gpu, numa, cpu, rule, env, model, topology or include-csv)",
       q(p, p->f[0]));
}

/* The host-side marker may come after gpu lines; scan comments first so the
 * "missing bus=" hint does not depend on line order. */
static void scan_marker(struct parser *p, const char *buf, size_t len) {
  size_t pos = 0;
  while (pos < len && !p->cfg->host_side) {
    const char *nl = memchr(buf + pos, '\n', len - pos);
    size_t n = nl ? (size_t)(nl - (buf + pos)) : len - pos;
    size_t lead = 0;
    while (lead < n && (buf[pos + lead] == ' ' || buf[pos + lead] == '\t')) lead++;
    if (lead < n && buf[pos + lead] == '#' && n <= NN_MAX_LINE_BYTES + 1)
      comment_line(p, buf + pos + lead, n - lead);
    pos += n + 1;
  }
}

/* ------------------------------------------------------------------ whole file */

static struct nn_config *config_new(const char *name) {
  struct nn_config *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->path = strdup(name);
  c->files = calloc(1, sizeof *c->files);
  if (c->files) c->files[0] = strdup(name);
  c->n_files = c->files && c->files[0] ? 1 : 0;
  c->cpu.family = c->cpu.model = -1;
  c->topo_mode = NN_TOPO_AUTO;
  if (!c->path || !c->n_files) {
    nn_config_free(c);
    return NULL;
  }
  return c;
}

/* gpus by index; indices are known to be 0..n-1 here. */
static int gpus_install(struct parser *p) {
  if (!p->n_gpus) return 0;
  struct nn_gpu *sorted = calloc((size_t)p->n_gpus, sizeof *sorted);
  if (!sorted) return -1;
  for (int i = 0; i < p->n_gpus; i++) sorted[p->gpus[i].index] = p->gpus[i];
  p->cfg->gpus = sorted;
  p->cfg->n_gpus = p->n_gpus;
  return 0;
}

int nn_config_parse(const char *name, const char *buf, size_t len,
                    const struct nn_parse_opts *opts, struct nn_config **out,
                    struct nn_diag *diag) {
  if (out) *out = NULL;
  if (!name) name = "(mapping)";
  if (!buf && len) {
    nn_diag_add(diag, "%s: no data", name);
    return -1;
  }
  if (len > NN_MAX_FILE_BYTES) {
    nn_diag_add(diag, "%s: file is %zu bytes, over the %u MiB limit", name, len, NN_MAX_FILE_BYTES >> 20);
    return -1;
  }
  struct parser *p = calloc(1, sizeof *p);
  struct nn_config *cfg = config_new(name);
  if (!p || !cfg) {
    free(p);
    nn_config_free(cfg);
    nn_diag_add(diag, "%s: out of memory", name);
    return -1;
  }
  p->name = name;
  p->opts = opts;
  p->diag = diag;
  p->cfg = cfg;
  scan_marker(p, buf, len);
  size_t pos = 0;
  while (pos < len) {
    const char *nl = memchr(buf + pos, '\n', len - pos);
    size_t n = nl ? (size_t)(nl - (buf + pos)) : len - pos;
    p->line++;
    parse_line(p, buf + pos, n);
    pos += n + 1;
  }
  gpus_finish(p);
  if (!p->errors && gpus_install(p)) {
    p->line = 0;
    perr(p, "out of memory");
  }
  int errors = p->errors;
  free(p->gpus);
  free(p);
  if (errors) {
    nn_config_free(cfg);
    return -1;
  }
  if (out) *out = cfg;
  else nn_config_free(cfg);
  return 0;
}

static const char *file_kind(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISSOCK(m)) return "a socket";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  return "not a regular file";
}

/* Reads at most `cap` + 1 bytes so a file growing after fstat is still caught. */
static char *read_capped(int fd, size_t cap, size_t *len) {
  size_t size = 0, alloc = 4096;
  char *buf = malloc(alloc);
  while (buf) {
    if (size == alloc) {
      size_t na = alloc * 2 > cap + 1 ? cap + 1 : alloc * 2;
      char *nb = na > alloc ? realloc(buf, na) : NULL;
      if (!nb) break;
      buf = nb;
      alloc = na;
    }
    ssize_t r = read(fd, buf + size, alloc - size);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) break;
    if (r == 0) {
      *len = size;
      return buf;
    }
    size += (size_t)r;
  }
  if (buf && size == cap + 1) {
    *len = size;
    return buf;
  }
  free(buf);
  return NULL;
}

int nn_config_load(const char *path, const struct nn_parse_opts *opts,
                   struct nn_config **out, struct nn_diag *diag) {
  if (out) *out = NULL;
  if (!path || !*path) {
    nn_diag_add(diag, "(empty path): cannot open: no file name");
    return -1;
  }
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    nn_diag_add(diag, "%s: cannot open: %s", path, strerror(errno));
    return -1;
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    nn_diag_add(diag, "%s: cannot open: %s", path, strerror(errno));
    close(fd);
    return -1;
  }
  if (!S_ISREG(st.st_mode)) {
    nn_diag_add(diag, "%s: cannot open: %s, not a regular file", path, file_kind(st.st_mode));
    close(fd);
    return -1;
  }
  if ((uint64_t)st.st_size > NN_MAX_FILE_BYTES) {
    nn_diag_add(diag, "%s: file is %lld bytes, over the %u MiB limit", path,
                (long long)st.st_size, NN_MAX_FILE_BYTES >> 20);
    close(fd);
    return -1;
  }
  size_t len = 0;
  errno = 0;
  char *buf = read_capped(fd, NN_MAX_FILE_BYTES, &len);
  int read_errno = errno;
  close(fd);
  if (!buf) {
    nn_diag_add(diag, "%s: cannot read: %s", path, strerror(read_errno ? read_errno : ENOMEM));
    return -1;
  }
  int r = nn_config_parse(path, buf, len, opts, out, diag);
  free(buf);
  return r;
}

void nn_config_free(struct nn_config *cfg) {
  if (!cfg) return;
  for (int i = 0; i < cfg->n_numas; i++) free(cfg->numas[i].cpus);
  for (int i = 0; i < cfg->n_envs; i++) {
    free(cfg->envs[i].name);
    free(cfg->envs[i].value);
  }
  for (int i = 0; i < cfg->n_files; i++) free(cfg->files[i]);
  free(cfg->files);
  free(cfg->numas);
  free(cfg->envs);
  free(cfg->rules);
  free(cfg->gpus);
  free(cfg->path);
  free(cfg);
}

/* ------------------------------------------------------------------ queries */

int nn_config_numa_count(const struct nn_config *cfg) {
  if (!cfg) return 0;
  unsigned char used[NN_MAX_NUMA_ID + 1] = {0};
  int n = 0;
  for (int i = 0; i < cfg->n_gpus; i++) {
    int node = cfg->gpus[i].numa;
    if (node >= 0 && node <= NN_MAX_NUMA_ID && !used[node]++) n++;
  }
  return n;
}

int nn_config_max_gpus_per_numa(const struct nn_config *cfg) {
  if (!cfg) return 0;
  int count[NN_MAX_NUMA_ID + 1] = {0};
  int best = 0;
  for (int i = 0; i < cfg->n_gpus; i++) {
    int node = cfg->gpus[i].numa;
    if (node >= 0 && node <= NN_MAX_NUMA_ID && ++count[node] > best) best = count[node];
  }
  return best;
}

const struct nn_numa *nn_config_find_numa(const struct nn_config *cfg, int node) {
  for (int i = 0; cfg && i < cfg->n_numas; i++)
    if (cfg->numas[i].node == node) return &cfg->numas[i];
  return NULL;
}

const char *nn_config_env(const struct nn_config *cfg, const char *name) {
  for (int i = 0; cfg && name && i < cfg->n_envs; i++)
    if (!strcmp(cfg->envs[i].name, name)) return cfg->envs[i].value;
  return NULL;
}
