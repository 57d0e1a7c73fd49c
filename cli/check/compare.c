/* SPDX-License-Identifier: BSD-3-Clause */
/* compare.c - check --compare: one mapping and one decision table per communicator. */
#include "cli/check/compare.h"

#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/common/json.h"
#include "errbuf.h"
#include "fileread.h"
#include "numparse.h"
#include "policy.h"
#include "printable.h"

#define CMP_FILE_CAP (256u << 20)
#define CMP_SHOW_LINES 8
#define CMP_TWO64 18446744073709551616.0 /* 2^64: UINT64_MAX as a double rounds to it */

struct cmp_rec {
  uint64_t comm;
  char host[128];
  long pid;
  int dev;       /* CUDA device from the log line's "[D]", -1 unknown */
  int rank;      /* rank in the communicator or the launcher's, -1 unknown */
  char hash[32]; /* "-" when the record has none */
  char nccl[32]; /* the NCCL release the plugin was loaded into; "" unknown (older records) */
  int nranks;
  char *table; /* canonical table lines, "coll lo-hi -> choice\n" */
  size_t table_len, table_cap;
  char where[PATH_MAX + 32]; /* file:line */
  int open;                  /* INFO: table lines may still follow */
  long tid;
};

struct cmp_set {
  struct cmp_rec *r;
  int n, cap;
  struct cmp_rank {
    char host[128];
    long pid;
    int dev;
    uint64_t comm;
    int rank;
  } * ranks;
  int n_ranks, cap_ranks;
};

static int grow(void **p, int *cap, int n, size_t size) {
  if (n < *cap) return 0;
  int c = *cap ? *cap * 2 : 64;
  void *q = realloc(*p, (size_t)c * size);
  if (!q) return -1;
  *p = q;
  *cap = c;
  return 0;
}

static struct cmp_rec *new_rec(struct cmp_set *s, const char *file, int line) {
  if (grow((void **)&s->r, &s->cap, s->n, sizeof *s->r)) return NULL;
  struct cmp_rec *r = &s->r[s->n++];
  memset(r, 0, sizeof *r);
  r->dev = r->rank = -1;
  snprintf(r->hash, sizeof r->hash, "-");
  char f[PATH_MAX];
  snprintf(r->where, sizeof r->where, "%s:%d",
           nn_printable(f, sizeof f, file, NN_PRINTABLE_CSTR, "\\"), line);
  return r;
}

/* An empty table (NCCL default everywhere) is a table too. */
static int table_init(struct cmp_rec *r) {
  if (!(r->table = calloc(1, 64))) return -1;
  r->table_cap = 64;
  return 0;
}

static int table_add(struct cmp_rec *r, const char *line, size_t n) {
  if (r->table_len + n + 2 > r->table_cap) {
    size_t c = (r->table_len + n + 2) * 2;
    char *t = realloc(r->table, c);
    if (!t) return -1;
    r->table = t;
    r->table_cap = c;
  }
  memcpy(r->table + r->table_len, line, n);
  r->table_len += n;
  r->table[r->table_len++] = '\n';
  r->table[r->table_len] = 0;
  return 0;
}

/* "0x..." at the start of s (a log line goes on after it). */
static int parse_hex64(const char *s, uint64_t *out) {
  return strncmp(s, "0x", 2) ? -1 : nn_hex_parse_prefix(s + 2, UINT64_MAX, out, NULL);
}

/* ---------- JSON records ---------- */

/* Text of a record (a host, a hash, a table line) is printed in the report: it is kept
 * escaped, the backslash too, so that equal texts still compare equal. */
static const char *rec_text(char *buf, size_t size, const char *s, size_t len) {
  return nn_printable(buf, size, s, len, "\\");
}

/* The member `key` of o as a whole number in [lo, hi], checked before any conversion (a
 * double outside an integer type's range converts to undefined behaviour): 0 with *out
 * set, 1 when absent, -1 with a message naming the member, its value and `range`. */
static int json_whole(const struct nn_json *p, const struct nn_jv *o, const char *key, double lo,
                      double hi, const char *range, double *out, char *err, size_t errsz) {
  const struct nn_jv *v = nn_json_get(p, o, key);
  if (!v) return 1;
  if (v->type != NN_JV_NUM) {
    nn_errbuf_set(err, errsz, "\"%s\" is not a number (expected a whole number %s)", key, range);
    return -1;
  }
  if (!(v->num >= lo && v->num <= hi) || v->num != floor(v->num)) {
    nn_errbuf_set(err, errsz, "\"%s\": %.10g is out of range (expected a whole number %s)", key,
                  v->num, range);
    return -1;
  }
  *out = v->num;
  return 0;
}

static uint64_t bytes_of(double v) { return v >= CMP_TWO64 ? UINT64_MAX : (uint64_t)v; }

/* One table entry as the plugin's TUNING line shows it; whole-range defaults are not shown. */
static int json_entry(struct cmp_rec *r, const struct nn_json *p, const struct nn_jv *e, char *err,
                      size_t errsz) {
  static const char bytes[] = "0..18446744073709551615";
  const struct nn_jv *coll = nn_json_get(p, e, "coll"), *choice = nn_json_get(p, e, "choice");
  double lo = 0, hi = 0;
  int a = json_whole(p, e, "lo", 0, CMP_TWO64, bytes, &lo, err, errsz);
  int b = a < 0 ? -1 : json_whole(p, e, "hi", 0, CMP_TWO64, bytes, &hi, err, errsz);
  if (a < 0 || b < 0) return -1;
  if (!coll || coll->type != NN_JV_STR || !choice || choice->type != NN_JV_STR || a || b) {
    nn_errbuf_set(err, errsz, "coll, lo, hi and choice are all needed");
    return -1;
  }
  if (hi < lo) {
    nn_errbuf_set(err, errsz, "lo %.10g is above hi %.10g", lo, hi);
    return -1;
  }
  uint64_t l = bytes_of(lo), h = bytes_of(hi);
  if (l == 0 && h == UINT64_MAX && !strcmp(choice->str, "NCCL default")) return 0;
  char ls[32], hs[32], line[256], cs[64], ch[160];
  nn_policy_format_bytes(l, ls, sizeof ls);
  nn_policy_format_bytes(h, hs, sizeof hs);
  int n = snprintf(line, sizeof line, "%s %s-%s -> %s",
                   rec_text(cs, sizeof cs, coll->str, NN_PRINTABLE_CSTR), ls, hs,
                   rec_text(ch, sizeof ch, choice->str, NN_PRINTABLE_CSTR));
  return table_add(r, line, (size_t)(n < (int)sizeof line ? n : (int)sizeof line - 1));
}

/* pid, rank and nRanks: whole numbers in range when given; -1 (nRanks 0) when absent. */
static int json_ids(struct cmp_rec *r, const struct nn_json *p, const struct nn_jv *o, char *err,
                    size_t errsz) {
  static const char ints[] = "0..2147483647", counts[] = "1..2147483647";
  double pid = -1, rank = -1, nranks = 0;
  if (json_whole(p, o, "pid", 0, INT_MAX, ints, &pid, err, errsz) < 0 ||
      json_whole(p, o, "rank", 0, INT_MAX, ints, &rank, err, errsz) < 0 ||
      json_whole(p, o, "nRanks", 1, INT_MAX, counts, &nranks, err, errsz) < 0)
    return -1;
  r->pid = (long)pid;
  r->rank = (int)rank;
  r->nranks = (int)nranks;
  return 0;
}

static int json_record(struct cmp_set *s, const char *text, size_t len, const char *file,
                       int lineno, char *err, size_t errsz) {
  struct nn_json p;
  int root = nn_json_parse(&p, text, len, err, errsz), rc = -1;
  const struct nn_jv *o = root >= 0 ? &p.v[root] : NULL;
  const struct nn_jv *comm = nn_json_get(&p, o, "commId"), *host = nn_json_get(&p, o, "host");
  const struct nn_jv *hash = nn_json_get(&p, o, "configHash"), *table = nn_json_get(&p, o, "table");
  struct cmp_rec *r = NULL;
  uint64_t id;
  if (root >= 0 && (!comm || comm->type != NN_JV_STR || parse_hex64(comm->str, &id) || !table ||
                    table->type != NN_JV_ARR)) {
    nn_errbuf_set(err, errsz, "not an nccl-numa record (no commId or table)");
  } else if (root >= 0 && (r = new_rec(s, file, lineno))) {
    r->comm = id;
    rec_text(r->host, sizeof r->host, host && host->type == NN_JV_STR ? host->str : "?",
             NN_PRINTABLE_CSTR);
    if (hash && hash->type == NN_JV_STR)
      rec_text(r->hash, sizeof r->hash, hash->str, NN_PRINTABLE_CSTR);
    const struct nn_jv *nccl = nn_json_get(&p, o, "nccl");
    if (nccl && nccl->type == NN_JV_STR)
      rec_text(r->nccl, sizeof r->nccl, nccl->str, NN_PRINTABLE_CSTR);
    rc = json_ids(r, &p, o, err, errsz) ? -1 : table_init(r);
    for (int i = table->first; !rc && i >= 0; i = p.v[i].next) {
      char why[200];
      if (json_entry(r, &p, &p.v[i], why, sizeof why)) {
        nn_errbuf_set(err, errsz, "bad table entry: %s", why);
        rc = -1;
      }
    }
    if (rc) { /* a refused record is in no report: it is the last one added */
      free(r->table);
      s->n--;
    }
  }
  nn_json_free(&p);
  return rc;
}

/* ---------- NCCL log lines ---------- */

struct log_prefix {
  char host[128];
  long pid, tid;
  int dev;
  const char *msg;
};

/* "HOST:PID:TID [DEV] NCCL INFO message" */
static int log_prefix(const char *line, struct log_prefix *lp) {
  const char *info = strstr(line, " NCCL INFO ");
  const char *c1 = strchr(line, ':');
  if (!info || !c1 || c1 > info || (size_t)(c1 - line) >= sizeof lp->host) return -1;
  rec_text(lp->host, sizeof lp->host, line, (size_t)(c1 - line));
  const char *end;
  int pid, tid = 0, dev;
  if (nn_int_parse_prefix(c1 + 1, 0, INT_MAX, &pid, &end) || *end != ':') return -1;
  (void)nn_int_parse_prefix(end + 1, 0, INT_MAX, &tid, &end); /* no TID: 0, end stays */
  const char *br = strchr(end, '[');
  lp->pid = pid;
  lp->tid = tid;
  lp->dev = br && br < info && !nn_int_parse_prefix(br + 1, 0, INT_MAX, &dev, NULL) ? dev : -1;
  lp->msg = info + strlen(" NCCL INFO ");
  return 0;
}

/* The number after `key` in msg (e.g. "nRanks "), -1 when absent. */
static long field(const char *msg, const char *key) {
  const char *p = strstr(msg, key);
  if (!p) return -1;
  int v;
  return nn_int_parse_prefix(p + strlen(key), 0, INT_MAX, &v, NULL) ? -1 : v;
}

static void close_open(struct cmp_set *s, const struct log_prefix *lp) {
  for (int i = 0; i < s->n; i++)
    if (s->r[i].open && s->r[i].pid == lp->pid && s->r[i].tid == lp->tid &&
        !strcmp(s->r[i].host, lp->host))
      s->r[i].open = 0;
}

static struct cmp_rec *open_rec(struct cmp_set *s, const struct log_prefix *lp) {
  for (int i = s->n - 1; i >= 0; i--)
    if (s->r[i].open && s->r[i].pid == lp->pid && s->r[i].tid == lp->tid &&
        !strcmp(s->r[i].host, lp->host))
      return &s->r[i];
  return NULL;
}

/* "nccl-numa V: tuner vN on NCCL X.Y.Z (LIB), config PATH hash H (...), comm 0x... nRanks N
 * nNodes M ..." (before 0.1.0's loaded-NCCL note: "tuner vN, config ...") */
static int init_line(struct cmp_set *s, const struct log_prefix *lp, const char *file, int lineno) {
  const char *comm = strstr(lp->msg, ", comm 0x"), *hash = strstr(lp->msg, " hash ");
  const char *nccl = strstr(lp->msg, " on NCCL "), *config = strstr(lp->msg, ", config ");
  uint64_t id;
  if (!comm || parse_hex64(comm + strlen(", comm "), &id)) return 0;
  struct cmp_rec *r = new_rec(s, file, lineno);
  if (!r) return -1;
  r->comm = id;
  snprintf(r->host, sizeof r->host, "%s", lp->host);
  r->pid = lp->pid;
  r->tid = lp->tid;
  r->dev = lp->dev;
  r->nranks = (int)field(lp->msg, " nRanks ");
  if (hash) rec_text(r->hash, sizeof r->hash, hash + 6, strcspn(hash + 6, " ,("));
  if (nccl && config && nccl < config)
    rec_text(r->nccl, sizeof r->nccl, nccl + 9, strcspn(nccl + 9, " ,("));
  r->open = 1;
  return table_init(r);
}

/* "nccl-numa:   allreduce     0-64K -> ring/ll channels=4 from FILE:LINE" -> canonical line */
static int table_line(struct cmp_rec *r, const char *body) {
  char line[512], safe[1024];
  size_t n = 0;
  const char *from = strstr(body, " from ");
  size_t len = from ? (size_t)(from - body) : strcspn(body, "\r\n");
  for (size_t i = 0; i < len && n < sizeof line - 1; i++) { /* one blank between words */
    if (body[i] == ' ' && (n == 0 || line[n - 1] == ' ')) continue;
    line[n++] = body[i];
  }
  while (n && line[n - 1] == ' ') n--;
  rec_text(safe, sizeof safe, line, n);
  return table_add(r, safe, strlen(safe));
}

/* NCCL's "... comm 0x.. rank R nranks N ... commId 0x... - Init COMPLETE": the rank. */
static int rank_line(struct cmp_set *s, const struct log_prefix *lp) {
  const char *id = strstr(lp->msg, " commId ");
  long rank = field(lp->msg, " rank ");
  uint64_t comm;
  if (!id || rank < 0 || parse_hex64(id + strlen(" commId "), &comm)) return 0;
  if (grow((void **)&s->ranks, &s->cap_ranks, s->n_ranks, sizeof *s->ranks)) return -1;
  struct cmp_rank *k = &s->ranks[s->n_ranks++];
  snprintf(k->host, sizeof k->host, "%s", lp->host);
  k->pid = lp->pid;
  k->dev = lp->dev;
  k->comm = comm;
  k->rank = (int)rank;
  return 0;
}

static int log_line(struct cmp_set *s, const char *line, const char *file, int lineno) {
  struct log_prefix lp;
  if (log_prefix(line, &lp)) return 0;
  if (!strncmp(lp.msg, "nccl-numa ", 10) && strstr(lp.msg, ": tuner v")) {
    close_open(s, &lp);
    return init_line(s, &lp, file, lineno);
  }
  struct cmp_rec *r = open_rec(s, &lp);
  if (r && !strncmp(lp.msg, "nccl-numa:   ", 13)) return table_line(r, lp.msg + 13);
  if (r) r->open = 0;
  if (strstr(lp.msg, "Init COMPLETE")) return rank_line(s, &lp);
  return 0;
}

static int read_file(struct cmp_set *s, const char *file, FILE *errf) {
  char *buf = NULL, err[PATH_MAX + 128];
  size_t len;
  if (nn_file_read(AT_FDCWD, file, 0, CMP_FILE_CAP, &buf, &len, err, sizeof err) != 0) {
    char safe[sizeof err];
    fprintf(errf, "nccl-numa check --compare: %s\n",
            nn_printable(safe, sizeof safe, err, NN_PRINTABLE_CSTR, NULL));
    return -1;
  }
  int rc = 0, lineno = 0;
  for (char *line = buf, *next; rc == 0 && line < buf + len; line = next) {
    next = strchr(line, '\n');
    next = next ? next + 1 : buf + len;
    size_t n = (size_t)(next - line);
    lineno++;
    if (n && line[n - 1] == '\n') line[--n] = 0;
    const char *t = line + strspn(line, " \t");
    if (*t == '{') {
      char jerr[256], f[PATH_MAX];
      if (json_record(s, t, n - (size_t)(t - line), file, lineno, jerr, sizeof jerr)) {
        fprintf(errf, "nccl-numa check --compare: %s:%d: %s\n",
                nn_printable(f, sizeof f, file, NN_PRINTABLE_CSTR, NULL), lineno, jerr);
        rc = -1;
      }
    } else if (log_line(s, line, file, lineno)) {
      fprintf(errf, "nccl-numa check --compare: out of memory\n");
      rc = -1;
    }
  }
  free(buf);
  return rc;
}

/* ---------- the report ---------- */

/* NCCL's rank for an INFO record, from the Init COMPLETE line of the same process and device. */
static void attach_ranks(struct cmp_set *s) {
  for (int i = 0; i < s->n; i++)
    for (int k = 0; k < s->n_ranks && s->r[i].rank < 0; k++) {
      const struct cmp_rank *x = &s->ranks[k];
      if (x->comm == s->r[i].comm && x->pid == s->r[i].pid && x->dev == s->r[i].dev &&
          !strcmp(x->host, s->r[i].host))
        s->r[i].rank = x->rank;
    }
}

static void who(const struct cmp_rec *r, char *buf, size_t size) {
  if (r->rank >= 0) snprintf(buf, size, "%s rank %d", r->host, r->rank);
  else if (r->dev >= 0) snprintf(buf, size, "%s pid %ld dev %d", r->host, r->pid, r->dev);
  else snprintf(buf, size, "%s pid %ld", r->host, r->pid);
}

enum cmp_field { CMP_HASH, CMP_TABLE, CMP_NCCL };

/* The record's value of field f; "" for a release no record or line named. */
static const char *field_of(const struct cmp_rec *r, int f) {
  return f == CMP_TABLE ? r->table : f == CMP_HASH ? r->hash : r->nccl;
}

static const char *const field_names[] = {"config contents (hash)", "decision tables",
                                          "NCCL releases loaded"};
static const char *const field_labels[] = {"hash", "table", "NCCL"};

/* Variants of one field among the records idx[0..n) of one communicator; an unknown NCCL
 * release (a record from before the plugin named it) differs from none. */
static int report_field(const struct cmp_set *s, const int *idx, int n, int f, FILE *out) {
  const char *vals[64];
  int nv = 0, is_table = f == CMP_TABLE;
  for (int i = 0; i < n && nv < 64; i++) {
    const char *v = field_of(&s->r[idx[i]], f);
    int seen = f == CMP_NCCL && !*v;
    for (int k = 0; k < nv && !seen; k++) seen = !strcmp(vals[k], v);
    if (!seen) vals[nv++] = v;
  }
  if (nv <= 1) return 0;
  fprintf(out, "  MISMATCH: %d different %s:\n", nv, field_names[f]);
  for (int k = 0; k < nv; k++) {
    if (is_table) fprintf(out, "    table %c:", 'A' + k);
    else fprintf(out, "    %s %s:", field_labels[f], vals[k]);
    for (int i = 0; i < n; i++) {
      const char *v = field_of(&s->r[idx[i]], f);
      char w[200];
      who(&s->r[idx[i]], w, sizeof w);
      if (!strcmp(v, vals[k])) fprintf(out, " %s (%s);", w, s->r[idx[i]].where);
    }
    fputc('\n', out);
    if (!is_table) continue;
    int lines = 0;
    for (const char *l = vals[k]; *l && lines < CMP_SHOW_LINES; l = strchr(l, '\n') + 1, lines++)
      fprintf(out, "      %.*s\n", (int)strcspn(l, "\n"), l);
    if (!*vals[k]) fprintf(out, "      (NCCL default everywhere)\n");
  }
  return 1;
}

static int by_comm(const void *a, const void *b) {
  const struct cmp_rec *x = a, *y = b;
  if (x->comm != y->comm) return x->comm < y->comm ? -1 : 1;
  if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
  return strcmp(x->host, y->host);
}

static int report_comm(const struct cmp_set *s, int first, int n, FILE *out) {
  int idx[4096], m = n < 4096 ? n : 4096, nranks = 0, hosts = 0;
  for (int i = 0; i < m; i++) {
    idx[i] = first + i;
    if (s->r[first + i].nranks > nranks) nranks = s->r[first + i].nranks;
    int seen = 0;
    for (int k = 0; k < i && !seen; k++) seen = !strcmp(s->r[first + k].host, s->r[first + i].host);
    hosts += !seen;
  }
  fprintf(out, "comm 0x%016" PRIx64 ": %d record(s) from %d host(s), nRanks %d\n", s->r[first].comm,
          m, hosts, nranks);
  int bad = report_field(s, idx, m, CMP_HASH, out) + report_field(s, idx, m, CMP_TABLE, out) +
            report_field(s, idx, m, CMP_NCCL, out);
  if (nranks > m) {
    fprintf(out,
            "  INCOMPLETE: records of %d of %d ranks (the others' logs are missing, or nccl-numa "
            "was not active there)\n",
            m, nranks);
    bad++;
  }
  const char *nccl = "";
  for (int i = 0; i < m && !*nccl; i++) nccl = s->r[first + i].nccl;
  if (!bad)
    fprintf(out, "  ok: every rank used config hash %s and the same decision table%s%s\n",
            s->r[first].hash, *nccl ? ", on NCCL " : "", nccl);
  return bad ? 1 : 0;
}

int nn_compare_files(int n, char **files, FILE *out, FILE *err) {
  struct cmp_set s = {0};
  int rc = 0;
  for (int i = 0; i < n; i++)
    if (read_file(&s, files[i], err)) rc = 1;
  attach_ranks(&s);
  if (!rc && s.n == 0) {
    fprintf(err,
            "nccl-numa check --compare: no nccl-numa record in the %d file(s): give the "
            "NCCL_NUMA_LOG_FILE files, or NCCL logs written with NCCL_DEBUG=INFO "
            "(NCCL_DEBUG_SUBSYS=INIT,TUNING for the tables)\n",
            n);
    rc = 1;
  }
  if (s.n) qsort(s.r, (size_t)s.n, sizeof *s.r, by_comm);
  int comms = 0, bad = 0;
  for (int i = 0, j; i < s.n; i = j) {
    for (j = i; j < s.n && s.r[j].comm == s.r[i].comm; j++) {}
    bad += report_comm(&s, i, j - i, out);
    comms++;
  }
  if (s.n) fprintf(out, "%d communicator(s), %d with problems\n", comms, bad);
  for (int i = 0; i < s.n; i++) free(s.r[i].table);
  free(s.r);
  free(s.ranks);
  return rc || bad ? 1 : 0;
}
