/* SPDX-License-Identifier: BSD-3-Clause */
/* nccltests.c - parser of nccl-tests output (text table of every era, and -J JSON). */
#include "cli/sweep/nccltests.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/common/json.h"
#include "errbuf.h"
#include "nccl_model.h"
#include "numparse.h"

#define MAX_TOKENS 64
#define MAX_HOSTS 64

/* ---------- small helpers ---------- */

static void copy_str(char *dst, size_t size, const char *src, size_t n) {
  if (n >= size) n = size - 1;
  memcpy(dst, src, n);
  dst[n] = 0;
}

static int all_digits(const char *s) {
  if (!*s) return 0;
  for (; *s; s++)
    if (!isdigit((unsigned char)*s)) return 0;
  return 1;
}

static int parse_u64(const char *s, uint64_t *out) {
  return nn_u64_parse(s, 0, UINT64_MAX, out) ? -1 : 0;
}

/* A measurement column. nccl-tests prints "nan" (or "inf") where it could not time
 * the operation: a value the row is then marked failed for, not a malformed row. */
static int parse_double(const char *s, double *out) {
  if (!nn_double_parse(s, out)) return 0;
  const char *t = s + (*s == '-' || *s == '+');
  if (strcasecmp(t, "nan") && strcasecmp(t, "inf") && strcasecmp(t, "infinity")) return -1;
  *out = tolower((unsigned char)*t) == 'n' ? NAN : *s == '-' ? -INFINITY : INFINITY;
  return 0;
}

/* Tolerance of the old float `error` column, by data type: reduced-precision
 * types accumulate visible rounding, the others should be exact or nearly so. */
static double error_tolerance(const char *type) {
  if (strstr(type, "half") || strstr(type, "bf16") || strstr(type, "bfloat") ||
      strstr(type, "f16") || strstr(type, "fp8") || strstr(type, "e4m3") || strstr(type, "e5m2"))
    return 5e-2;
  return 1e-3;
}

static int push_row(struct nn_nccltests_result *r, int *cap, const struct nn_nccltests_row *row,
                    char *err, size_t errsz) {
  if (r->n_rows >= NN_NT_MAX_ROWS) {
    nn_errbuf_set(err, errsz, "more than %d result rows", NN_NT_MAX_ROWS);
    return -1;
  }
  if (r->n_rows == *cap) {
    int ncap = *cap ? *cap * 2 : 32;
    struct nn_nccltests_row *n = realloc(r->rows, (size_t)ncap * sizeof *n);
    if (!n) {
      nn_errbuf_set(err, errsz, "out of memory");
      return -1;
    }
    r->rows = n;
    *cap = ncap;
  }
  r->rows[r->n_rows++] = *row;
  return 0;
}

void nn_nccltests_free(struct nn_nccltests_result *r) {
  if (!r) return;
  free(r->rows);
  memset(r, 0, sizeof *r);
}

int nn_nccltests_row_failed(const struct nn_nccltests_row *row) {
  return row->oop.failed || row->inplace.failed;
}

/* ---------- text ---------- */

/* Column positions of one table layout; -1 = absent. */
struct layout {
  int known; /* taken from a header line */
  int size, count, type, redop, root;
  int time[2], algbw[2], busbw[2], wrong[2];
  int float_error;
  int min_tokens;
};

struct text_state {
  struct layout lay;
  int header_line;
  int hosts_n;
  char hosts[MAX_HOSTS][64];
  int row_cap;
};

static int tokenize(char *line, char **tok, int max) {
  int n = 0;
  char *p = line;
  while (*p && n < max) {
    while (*p == ' ' || *p == '\t') p++;
    if (!*p) break;
    tok[n++] = p;
    while (*p && *p != ' ' && *p != '\t') p++;
    if (*p) *p++ = 0;
  }
  return n;
}

static void layout_finish(struct layout *l) {
  int m = 0;
  int cols[] = {l->size,     l->count,    l->type,     l->redop,    l->root,
                l->time[0],  l->algbw[0], l->busbw[0], l->wrong[0], l->time[1],
                l->algbw[1], l->busbw[1], l->wrong[1]};
  for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++)
    if (cols[i] + 1 > m) m = cols[i] + 1;
  l->min_tokens = m;
}

/* The layout every release since the root column was added prints. */
static void layout_default(struct layout *l, int with_root) {
  int b = with_root ? 5 : 4;
  *l = (struct layout){
    0, 0, 1, 2, 3, with_root ? 4 : -1, {b, b + 4}, {b + 1, b + 5}, {b + 2, b + 6}, {b + 3, b + 7},
    0, 0};
  layout_finish(l);
}

/* A header line: "size count type redop [root] time algbw busbw #wrong time ...". */
static int layout_from_header(char **tok, int n, struct layout *l) {
  if (n < 5 || strcmp(tok[0], "size") || strcmp(tok[1], "count")) return -1;
  struct layout x = {1, 0, 1, -1, -1, -1, {-1, -1}, {-1, -1}, {-1, -1}, {-1, -1}, 0, 0};
  int g = 0;
  for (int i = 2; i < n; i++) {
    if (!strcmp(tok[i], "type")) x.type = i;
    else if (!strcmp(tok[i], "redop") || !strcmp(tok[i], "op")) x.redop = i;
    else if (!strcmp(tok[i], "root")) x.root = i;
    else if ((!strcmp(tok[i], "time") || !strcmp(tok[i], "cputime")) && g < 2) {
      x.time[g] = i;
      if (i + 3 < n) {
        x.algbw[g] = i + 1;
        x.busbw[g] = i + 2;
        x.wrong[g] = i + 3;
        if (!strcmp(tok[i + 3], "error")) x.float_error = 1;
      }
      g++;
    }
  }
  if (x.type < 0 || x.redop < 0 || x.time[0] < 0 || x.wrong[0] < 0) return -1;
  if (g < 2 || x.wrong[1] < 0) { /* a table with only one direction */
    x.time[1] = x.algbw[1] = x.busbw[1] = x.wrong[1] = -1;
  }
  layout_finish(&x);
  *l = x;
  return 0;
}

static int parse_measure(char **tok, const struct layout *l, int g, const char *type,
                         struct nn_nccltests_measure *m) {
  memset(m, 0, sizeof *m);
  if (l->time[g] < 0) return 0;
  if (parse_double(tok[l->time[g]], &m->time_us)) return -1;
  if (parse_double(tok[l->algbw[g]], &m->algbw)) m->algbw = NAN;
  if (parse_double(tok[l->busbw[g]], &m->busbw)) m->busbw = NAN;
  m->present = 1;
  const char *w = tok[l->wrong[g]];
  if (!strcmp(w, "N/A")) {
    m->wrong_known = 0;
  } else if (!parse_double(w, &m->wrong)) {
    m->wrong_known = 1;
    if (l->float_error ? !(m->wrong <= error_tolerance(type)) : !(m->wrong <= 0)) m->failed = 1;
  } else {
    return -1;
  }
  if (!isfinite(m->time_us) || m->time_us < 0) m->failed = 1;
  return 0;
}

static int parse_row(char **tok, int n, int lineno, struct text_state *st,
                     struct nn_nccltests_result *r, char *err, size_t errsz) {
  if (!st->lay.known && !r->n_rows) layout_default(&st->lay, n != 12);
  const struct layout *l = &st->lay;
  if (n < l->min_tokens) {
    nn_errbuf_set(err, errsz, "line %d: truncated result row: %d of %d columns", lineno, n,
                  l->min_tokens);
    return -1;
  }
  struct nn_nccltests_row row;
  memset(&row, 0, sizeof row);
  row.line = lineno;
  row.root = -1;
  if (parse_u64(tok[l->size], &row.size) || parse_u64(tok[l->count], &row.count)) {
    nn_errbuf_set(err, errsz, "line %d: size and count must be whole numbers", lineno);
    return -1;
  }
  copy_str(row.type, sizeof row.type, tok[l->type], strlen(tok[l->type]));
  copy_str(row.redop, sizeof row.redop, tok[l->redop], strlen(tok[l->redop]));
  if (l->root >= 0 && nn_int_parse(tok[l->root], -1, INT_MAX, &row.root)) {
    nn_errbuf_set(err, errsz, "line %d: root must be a whole number (or -1)", lineno);
    return -1;
  }
  for (int g = 0; g < 2; g++) {
    struct nn_nccltests_measure *m = g ? &row.inplace : &row.oop;
    if (parse_measure(tok, l, g, row.type, m)) {
      nn_errbuf_set(err, errsz, "line %d: %s columns are not numbers", lineno,
                    g ? "in-place" : "out-of-place");
      return -1;
    }
  }
  return push_row(r, &st->row_cap, &row, err, errsz);
}

static void note_rank(char **tok, int n, struct text_state *st, struct nn_nccltests_result *r) {
  /* "Rank N Group G Pid P on HOST device D [BUS] NAME..." */
  r->n_ranks++;
  int on = -1, dev = -1;
  for (int i = 0; i < n; i++) {
    if (!strcmp(tok[i], "on") && on < 0) on = i;
    if (!strcmp(tok[i], "device") && dev < 0) dev = i;
  }
  if (on >= 0 && on + 1 < n) {
    int seen = 0;
    for (int i = 0; i < st->hosts_n && !seen; i++) seen = !strcmp(st->hosts[i], tok[on + 1]);
    if (!seen && st->hosts_n < MAX_HOSTS)
      copy_str(st->hosts[st->hosts_n++], 64, tok[on + 1], strlen(tok[on + 1]));
    r->n_hosts = st->hosts_n;
  }
  if (r->n_ranks == 1 && dev >= 0 && dev + 3 < n) {
    char name[96] = "";
    size_t used = 0;
    for (int i = dev + 3; i < n && used + 1 < sizeof name; i++) {
      int w = snprintf(name + used, sizeof name - used, "%s%s", used ? " " : "", tok[i]);
      if (w < 0) break;
      used += (size_t)w;
    }
    copy_str(r->device_name, sizeof r->device_name, name, strlen(name));
  }
}

static void parse_comment(char *body, int lineno, struct text_state *st,
                          struct nn_nccltests_result *r) {
  char *tok[MAX_TOKENS];
  char *p;
  if ((p = strstr(body, "Collective test starting:"))) {
    p += strlen("Collective test starting:");
    int n = tokenize(p, tok, 1);
    if (n) copy_str(r->test_name, sizeof r->test_name, tok[0], strlen(tok[0]));
    return;
  }
  if (strstr(body, "Collective test concluded") || strstr(body, "Avg bus bandwidth")) {
    r->concluded = 1;
    return;
  }
  if ((p = strstr(body, "Out of bounds values"))) {
    p = strchr(p, ':');
    if (p) nn_int_parse_prefix(p + 1, 0, INT_MAX, &r->oob_count, NULL); /* junk: left as absent */
    return;
  }
  int n = tokenize(body, tok, MAX_TOKENS);
  if (n >= 3 && !strcmp(tok[0], "nccl-tests") && !strcmp(tok[1], "version")) {
    copy_str(r->tests_version, sizeof r->tests_version, tok[2], strlen(tok[2]));
    for (int i = 3; i < n; i++)
      if (!strncmp(tok[i], "nccl-library=", 13)) {
        if (nn_int_parse(tok[i] + 13, 0, INT_MAX, &r->nccl_code)) continue;
        nn_nccl_version_format(r->nccl_code, r->nccl_version, sizeof r->nccl_version);
      }
  } else if (n >= 4 && !strcmp(tok[0], "nThread") && !strcmp(tok[2], "nGpus")) {
    nn_int_parse(tok[1], 0, INT_MAX, &r->n_threads); /* junk leaves them unknown: 0 */
    nn_int_parse(tok[3], 0, INT_MAX, &r->n_gpus);
  } else if (n >= 2 && !strcmp(tok[0], "Rank") && all_digits(tok[1])) {
    note_rank(tok, n, st, r);
  } else if (n >= 2 && !strcmp(tok[0], "size")) {
    if (!layout_from_header(tok, n, &st->lay)) {
      st->header_line = lineno;
      r->has_root = st->lay.root >= 0;
      r->error_column_float = st->lay.float_error;
    }
  }
}

/* "NCCL version 2.27.3+cuda12.9", bare or after an "NCCL INFO" prefix. */
static void note_nccl_version(const char *line, struct nn_nccltests_result *r) {
  const char *p = strstr(line, "NCCL version ");
  if (!p || r->nccl_code) return;
  p += strlen("NCCL version ");
  int code = nn_nccl_version_parse_word(p);
  if (code <= 0) return;
  r->nccl_code = code;
  nn_nccl_version_format(code, r->nccl_version, sizeof r->nccl_version);
}

static int is_log_line(const char *s) {
  return strstr(s, "NCCL INFO") || strstr(s, "NCCL WARN") || strstr(s, "NCCL TRACE") ||
         strstr(s, "NCCL ABORT");
}

static int parse_text_line(char *line, int lineno, struct text_state *st,
                           struct nn_nccltests_result *r, char *err, size_t errsz) {
  while (*line == ' ' || *line == '\t') line++;
  if (!*line) return 0;
  note_nccl_version(line, r);
  if (is_log_line(line)) return 0;
  if (*line == '#') {
    parse_comment(line + 1, lineno, st, r);
    return 0;
  }
  if (!isdigit((unsigned char)*line)) return 0;
  char *tok[MAX_TOKENS];
  int n = tokenize(line, tok, MAX_TOKENS);
  if (!all_digits(tok[0]) || (n > 1 && !all_digits(tok[1]))) return 0; /* other program output */
  return parse_row(tok, n, lineno, st, r, err, errsz);
}

static int parse_text(const char *buf, size_t len, struct nn_nccltests_result *r, char *err,
                      size_t errsz) {
  struct text_state *st = calloc(1, sizeof *st);
  char *line = malloc(len + 1);
  if (!st || !line) {
    free(st);
    free(line);
    nn_errbuf_set(err, errsz, "out of memory");
    return -1;
  }
  int rc = 0, lineno = 0;
  size_t pos = 0;
  while (pos < len && !rc) {
    size_t end = pos;
    while (end < len && buf[end] != '\n') end++;
    size_t n = end - pos;
    if (memchr(buf + pos, 0, n)) {
      nn_errbuf_set(err, errsz, "line %d: NUL byte (binary data?)", lineno + 1);
      rc = -1;
      break;
    }
    memcpy(line, buf + pos, n);
    line[n] = 0;
    if (n && line[n - 1] == '\r') line[n - 1] = 0;
    rc = parse_text_line(line, ++lineno, st, r, err, errsz);
    pos = end + 1;
  }
  if (!rc && !r->n_rows) {
    if (st->header_line)
      nn_errbuf_set(err, errsz,
                    "truncated: the table header at line %d is followed by no result rows",
                    st->header_line);
    else nn_errbuf_set(err, errsz, "no nccl-tests result table found");
    rc = -1;
  }
  if (!rc && st->lay.float_error && r->oob_count > 0) {
    /* Old releases print only a float per row and the failure count in the
     * footer: any row with a non-zero error may be one of them. */
    for (int i = 0; i < r->n_rows; i++) {
      struct nn_nccltests_row *row = &r->rows[i];
      if (row->oop.wrong > 0) row->oop.failed = 1;
      if (row->inplace.wrong > 0) row->inplace.failed = 1;
    }
  }
  free(line);
  free(st);
  return rc;
}

static void json_measure(const struct nn_json *p, const struct nn_jv *o,
                         struct nn_nccltests_measure *m) {
  memset(m, 0, sizeof *m);
  if (!o || o->type != NN_JV_OBJ) return;
  const struct nn_jv *t = nn_json_get(p, o, "time");
  if (!t) t = nn_json_get(p, o, "cpu_time");
  m->present = 1;
  m->time_us = nn_json_num(t);
  m->algbw = nn_json_num(nn_json_get(p, o, "alg_bw"));
  m->busbw = nn_json_num(nn_json_get(p, o, "bus_bw"));
  const struct nn_jv *w = nn_json_get(p, o, "nwrong");
  if (w && w->type != NN_JV_NULL) {
    m->wrong_known = 1;
    m->wrong = nn_json_num(w);
    if (!(m->wrong <= 0)) m->failed = 1;
  }
  if (!isfinite(m->time_us) || m->time_us < 0) m->failed = 1;
}

static void json_devices(const struct nn_json *p, const struct nn_jv *devs,
                         struct nn_nccltests_result *r) {
  if (!devs || devs->type != NN_JV_ARR) return;
  char hosts[MAX_HOSTS][64];
  int nh = 0;
  for (int i = devs->first; i >= 0; i = p->v[i].next) {
    const struct nn_jv *d = &p->v[i];
    r->n_ranks++;
    const struct nn_jv *h = nn_json_get(p, d, "hostname");
    if (h && h->type == NN_JV_STR) {
      int seen = 0;
      for (int k = 0; k < nh && !seen; k++) seen = !strcmp(hosts[k], h->str);
      if (!seen && nh < MAX_HOSTS) copy_str(hosts[nh++], 64, h->str, strlen(h->str));
    }
    const struct nn_jv *info = nn_json_get(p, d, "device_info");
    if (r->n_ranks == 1 && info && info->type == NN_JV_STR)
      copy_str(r->device_name, sizeof r->device_name, info->str, strlen(info->str));
  }
  r->n_hosts = nh;
}

static int json_rows(const struct nn_json *p, const struct nn_jv *res,
                     struct nn_nccltests_result *r, char *err, size_t errsz) {
  int cap = 0;
  for (int i = res->first; i >= 0; i = p->v[i].next) {
    const struct nn_jv *o = &p->v[i];
    struct nn_nccltests_row row;
    memset(&row, 0, sizeof row);
    double size = nn_json_num(nn_json_get(p, o, "size")),
           count = nn_json_num(nn_json_get(p, o, "count"));
    if (o->type != NN_JV_OBJ || !(size >= 0 && size < 1.8e19) || !(count >= 0 && count < 1.8e19)) {
      nn_errbuf_set(err, errsz, "JSON result %d: missing or invalid size/count", r->n_rows + 1);
      return -1;
    }
    row.size = (uint64_t)size;
    row.count = (uint64_t)count;
    const struct nn_jv *t = nn_json_get(p, o, "type"), *op = nn_json_get(p, o, "redop");
    if (t && t->type == NN_JV_STR) copy_str(row.type, sizeof row.type, t->str, strlen(t->str));
    if (op && op->type == NN_JV_STR)
      copy_str(row.redop, sizeof row.redop, op->str, strlen(op->str));
    double root = nn_json_num(nn_json_get(p, o, "root"));
    row.root = (root >= -1 && root < 1e9) ? (int)root : -1;
    json_measure(p, nn_json_get(p, o, "out_of_place"), &row.oop);
    json_measure(p, nn_json_get(p, o, "in_place"), &row.inplace);
    if (push_row(r, &cap, &row, err, errsz)) return -1;
  }
  return 0;
}

static void json_meta(const struct nn_json *p, const struct nn_jv *root,
                      struct nn_nccltests_result *r) {
  double code = nn_json_num(nn_json_get(p, root, "nccl_version"));
  if (code > 0 && code < 1e6) {
    r->nccl_code = (int)code;
    nn_nccl_version_format(r->nccl_code, r->nccl_version, sizeof r->nccl_version);
  }
  const struct nn_jv *cfg = nn_json_get(p, root, "config");
  double nt = nn_json_num(nn_json_get(p, cfg, "nthreads")),
         ng = nn_json_num(nn_json_get(p, cfg, "ngpus"));
  if (nt >= 0 && nt < 1e6) r->n_threads = (int)nt;
  if (ng >= 0 && ng < 1e6) r->n_gpus = (int)ng;
  json_devices(p, nn_json_get(p, cfg, "devices"), r);
  if (!r->n_ranks) json_devices(p, nn_json_get(p, root, "devices"), r);
  const struct nn_jv *args = nn_json_get(p, root, "args");
  if (args && args->type == NN_JV_ARR && args->first >= 0 && p->v[args->first].type == NN_JV_STR) {
    const char *prog = p->v[args->first].str, *slash = strrchr(prog, '/');
    if (slash) prog = slash + 1;
    copy_str(r->test_name, sizeof r->test_name, prog, strlen(prog));
  }
  double oob = nn_json_num(nn_json_get(p, nn_json_get(p, root, "out_of_bounds"), "count"));
  r->oob_count = (oob >= 0 && oob <= INT_MAX) ? (int)oob : -1;
  r->concluded = nn_json_get(p, root, "end_time") != NULL ||
                 nn_json_get(p, root, "average_bus_bandwidth") != NULL;
}

static int parse_json(const char *buf, size_t len, struct nn_nccltests_result *r, char *err,
                      size_t errsz) {
  struct nn_json p;
  int rc = -1, root = nn_json_parse(&p, buf, len, err, errsz);
  if (root >= 0) {
    if (p.v[root].type != NN_JV_OBJ) {
      nn_errbuf_set(err, errsz, "JSON document is not an object");
    } else {
      const struct nn_jv *res = nn_json_get(&p, &p.v[root], "results");
      if (!res || res->type != NN_JV_ARR) {
        nn_errbuf_set(err, errsz, "JSON has no \"results\" list (not nccl-tests -J output?)");
      } else {
        json_meta(&p, &p.v[root], r);
        rc = json_rows(&p, res, r, err, errsz);
        if (!rc && !r->n_rows) {
          nn_errbuf_set(err, errsz, "JSON \"results\" list is empty");
          rc = -1;
        }
      }
    }
  }
  nn_json_free(&p);
  return rc;
}

int nn_nccltests_parse(const char *buf, size_t len, struct nn_nccltests_result *out, char *err,
                       size_t errsz) {
  memset(out, 0, sizeof *out);
  out->oob_count = -1;
  if (err && errsz) err[0] = 0;
  size_t i = 0;
  while (i < len && isspace((unsigned char)buf[i])) i++;
  if (i == len) {
    nn_errbuf_set(err, errsz, "empty output");
    return -1;
  }
  int rc;
  if (buf[i] == '{') {
    out->format = NN_NT_JSON;
    out->oob_count = -1;
    rc = parse_json(buf + i, len - i, out, err, errsz);
  } else {
    out->format = NN_NT_TEXT;
    rc = parse_text(buf, len, out, err, errsz);
  }
  if (rc) nn_nccltests_free(out);
  return rc;
}
