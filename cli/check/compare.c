/* SPDX-License-Identifier: BSD-3-Clause */
/* compare.c - check --compare: one mapping and one decision table per communicator. */
#include "cli/check/compare.h"

#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/common/json.h"
#include "errbuf.h"
#include "fileread.h"
#include "numparse.h"
#include "policy.h"

#define CMP_FILE_CAP (256u << 20)
#define CMP_SHOW_LINES 8

struct cmp_rec {
  uint64_t comm;
  char host[128];
  long pid;
  int dev;              /* CUDA device from the log line's "[D]", -1 unknown */
  int rank;             /* rank in the communicator or the launcher's, -1 unknown */
  char hash[32];        /* "-" when the record has none */
  int nranks;
  char *table;          /* canonical table lines, "coll lo-hi -> choice\n" */
  size_t table_len, table_cap;
  char where[PATH_MAX + 32];   /* file:line */
  int open;             /* INFO: table lines may still follow */
  long tid;
};

struct cmp_set {
  struct cmp_rec *r;
  int n, cap;
  struct cmp_rank { char host[128]; long pid; int dev; uint64_t comm; int rank; } *ranks;
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
  snprintf(r->where, sizeof r->where, "%s:%d", file, line);
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

/* One table entry as the plugin's TUNING line shows it; whole-range defaults are not shown. */
static int json_entry(struct cmp_rec *r, const struct nn_json *p, const struct nn_jv *e) {
  const struct nn_jv *coll = nn_json_get(p, e, "coll"), *choice = nn_json_get(p, e, "choice");
  double lo = nn_json_num(nn_json_get(p, e, "lo")), hi = nn_json_num(nn_json_get(p, e, "hi"));
  if (!coll || coll->type != NN_JV_STR || !choice || choice->type != NN_JV_STR || !(lo >= 0) || !(hi >= lo))
    return -1;
  uint64_t l = (uint64_t)lo, h = hi >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)hi;
  if (l == 0 && h == UINT64_MAX && !strcmp(choice->str, "NCCL default")) return 0;
  char ls[32], hs[32], line[256];
  nn_policy_format_bytes(l, ls, sizeof ls);
  nn_policy_format_bytes(h, hs, sizeof hs);
  int n = snprintf(line, sizeof line, "%s %s-%s -> %s", coll->str, ls, hs, choice->str);
  return table_add(r, line, (size_t)(n < (int)sizeof line ? n : (int)sizeof line - 1));
}

static int json_record(struct cmp_set *s, const char *text, size_t len, const char *file, int lineno,
                       char *err, size_t errsz) {
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
    snprintf(r->host, sizeof r->host, "%s", host && host->type == NN_JV_STR ? host->str : "?");
    if (hash && hash->type == NN_JV_STR) snprintf(r->hash, sizeof r->hash, "%s", hash->str);
    double pid = nn_json_num(nn_json_get(&p, o, "pid")), rank = nn_json_num(nn_json_get(&p, o, "rank"));
    double nranks = nn_json_num(nn_json_get(&p, o, "nRanks"));
    r->pid = pid >= 0 && pid < 1e12 ? (long)pid : -1;
    r->rank = rank >= 0 && rank < 1e9 ? (int)rank : -1;
    r->nranks = nranks > 0 && nranks < 1e9 ? (int)nranks : 0;
    rc = table_init(r);
    for (int i = table->first; !rc && i >= 0; i = p.v[i].next)
      if (json_entry(r, &p, &p.v[i])) {
        nn_errbuf_set(err, errsz, "bad table entry");
        rc = -1;
      }
  }
  nn_json_free(&p);
  return rc;
}

/* ---------- NCCL log lines ---------- */

struct log_prefix { char host[128]; long pid, tid; int dev; const char *msg; };

/* "HOST:PID:TID [DEV] NCCL INFO message" */
static int log_prefix(const char *line, struct log_prefix *lp) {
  const char *info = strstr(line, " NCCL INFO ");
  const char *c1 = strchr(line, ':');
  if (!info || !c1 || c1 > info || (size_t)(c1 - line) >= sizeof lp->host) return -1;
  snprintf(lp->host, sizeof lp->host, "%.*s", (int)(c1 - line), line);
  const char *end;
  int pid, tid = 0, dev;
  if (nn_int_parse_prefix(c1 + 1, 0, INT_MAX, &pid, &end) || *end != ':') return -1;
  (void)nn_int_parse_prefix(end + 1, 0, INT_MAX, &tid, &end);   /* no TID: 0, end stays */
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
    if (s->r[i].open && s->r[i].pid == lp->pid && s->r[i].tid == lp->tid && !strcmp(s->r[i].host, lp->host))
      s->r[i].open = 0;
}

static struct cmp_rec *open_rec(struct cmp_set *s, const struct log_prefix *lp) {
  for (int i = s->n - 1; i >= 0; i--)
    if (s->r[i].open && s->r[i].pid == lp->pid && s->r[i].tid == lp->tid && !strcmp(s->r[i].host, lp->host))
      return &s->r[i];
  return NULL;
}

/* "nccl-numa V: tuner vN, config PATH hash H (...), comm 0x... nRanks N nNodes M ..." */
static int init_line(struct cmp_set *s, const struct log_prefix *lp, const char *file, int lineno) {
  const char *comm = strstr(lp->msg, ", comm 0x"), *hash = strstr(lp->msg, " hash ");
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
  if (hash) snprintf(r->hash, sizeof r->hash, "%.*s", (int)strcspn(hash + 6, " ,("), hash + 6);
  r->open = 1;
  return table_init(r);
}

/* "nccl-numa:   allreduce     0-64K -> ring/ll channels=4 from FILE:LINE" -> canonical line */
static int table_line(struct cmp_rec *r, const char *body) {
  char line[512];
  size_t n = 0;
  const char *from = strstr(body, " from ");
  size_t len = from ? (size_t)(from - body) : strcspn(body, "\r\n");
  for (size_t i = 0; i < len && n < sizeof line - 1; i++) {   /* one blank between words */
    if (body[i] == ' ' && (n == 0 || line[n - 1] == ' ')) continue;
    line[n++] = body[i];
  }
  while (n && line[n - 1] == ' ') n--;
  return table_add(r, line, n);
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
    fprintf(errf, "nccl-numa check --compare: %s\n", err);
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
      char jerr[256];
      if (json_record(s, t, n - (size_t)(t - line), file, lineno, jerr, sizeof jerr)) {
        fprintf(errf, "nccl-numa check --compare: %s:%d: %s\n", file, lineno, jerr);
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

/* Variants of one field (hash or table) among the records idx[0..n) of one communicator. */
static int report_field(const struct cmp_set *s, const int *idx, int n, int is_table, FILE *out) {
  const char *vals[64];
  int nv = 0;
  for (int i = 0; i < n && nv < 64; i++) {
    const char *v = is_table ? s->r[idx[i]].table : s->r[idx[i]].hash;
    int seen = 0;
    for (int k = 0; k < nv && !seen; k++) seen = !strcmp(vals[k], v);
    if (!seen) vals[nv++] = v;
  }
  if (nv <= 1) return 0;
  fprintf(out, "  MISMATCH: %d different %s:\n", nv, is_table ? "decision tables" : "config contents (hash)");
  for (int k = 0; k < nv; k++) {
    if (is_table) fprintf(out, "    table %c:", 'A' + k);
    else fprintf(out, "    hash %s:", vals[k]);
    for (int i = 0; i < n; i++) {
      const char *v = is_table ? s->r[idx[i]].table : s->r[idx[i]].hash;
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
  fprintf(out, "comm 0x%016" PRIx64 ": %d record(s) from %d host(s), nRanks %d\n", s->r[first].comm, m, hosts,
          nranks);
  int bad = report_field(s, idx, m, 0, out) + report_field(s, idx, m, 1, out);
  if (nranks > m) {
    fprintf(out, "  INCOMPLETE: records of %d of %d ranks (the others' logs are missing, or nccl-numa "
            "was not active there)\n", m, nranks);
    bad++;
  }
  if (!bad)
    fprintf(out, "  ok: every rank used config hash %s and the same decision table\n", s->r[first].hash);
  return bad ? 1 : 0;
}

int nn_compare_files(int n, char **files, FILE *out, FILE *err) {
  struct cmp_set s = {0};
  int rc = 0;
  for (int i = 0; i < n; i++)
    if (read_file(&s, files[i], err)) rc = 1;
  attach_ranks(&s);
  if (!rc && s.n == 0) {
    fprintf(err, "nccl-numa check --compare: no nccl-numa record in the %d file(s): give the "
            "NCCL_NUMA_LOG_FILE files, or NCCL logs written with NCCL_DEBUG=INFO "
            "(NCCL_DEBUG_SUBSYS=INIT,TUNING for the tables)\n", n);
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
