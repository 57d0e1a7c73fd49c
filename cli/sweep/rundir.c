/* SPDX-License-Identifier: BSD-3-Clause */
/* rundir.c - reading and writing a measurement run directory. */
#include "cli/sweep/rundir.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/sweep/nccltests.h"
#include "errbuf.h"
#include "fileread.h"
#include "nccl_model.h"
#include "numparse.h"

#define MAX_OUTPUT_BYTES (64u << 20)
#define MAX_META_BYTES (1u << 20)
#define MAX_RUNS_BYTES (16u << 20)

static void copy(char *dst, size_t size, const char *src) { snprintf(dst, size, "%s", src); }

/* Text from a run directory is printed to a terminal and into report.md: its control
 * characters (a terminal escape sequence, say) become '?'; newlines and tabs stay. */
static void printable(char *s) {
  for (unsigned char *p = (unsigned char *)s; *p; p++)
    if ((*p < 0x20 && *p != '\n' && *p != '\t' && *p != '\r') || *p == 0x7f) *p = '?';
}

/* ---------- sizes and statistics ---------- */

int nn_rundir_size_parse(const char *s, uint64_t *out) {
  char buf[64];
  size_t n;
  if (!s || (n = strlen(s)) >= sizeof buf) return -1;
  memcpy(buf, s, n + 1);
  if (n >= 2 && strchr("Bb", buf[n - 1]) && strchr("KkMmGgTt", buf[n - 2]))
    buf[n - 1] = 0; /* "64KB" */
  return nn_u64_parse(buf, 1, UINT64_MAX, out) ? -1 : 0;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double nn_rundir_median(const double *v, int n) {
  if (n <= 0) return NAN;
  double *s = malloc((size_t)n * sizeof *s);
  if (!s) return NAN;
  memcpy(s, v, (size_t)n * sizeof *s);
  qsort(s, (size_t)n, sizeof *s, cmp_double);
  double m = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  free(s);
  return m;
}

/* ---------- meta and runs.tsv ---------- */

int nn_rundir_name_ok(const char *s) {
  if (!s || !*s || !strcmp(s, ".") || !strcmp(s, "..")) return 0;
  for (; *s; s++)
    if (!isalnum((unsigned char)*s) && !strchr("_.-", *s)) return 0;
  return 1;
}

/* A file of the run directory named in runs.tsv: safe names joined by '/'. */
static int rel_path_ok(const char *p) {
  char buf[128];
  if (snprintf(buf, sizeof buf, "%s", p) >= (int)sizeof buf) return 0;
  char *save = NULL;
  int parts = 0;
  for (char *t = strtok_r(buf, "/", &save); t; t = strtok_r(NULL, "/", &save), parts++)
    if (!nn_rundir_name_ok(t)) return 0;
  return parts > 0 && p[0] != '/' && !strstr(p, "//") && p[strlen(p) - 1] != '/';
}

int nn_rundir_openat(int dir_fd, const char *name, enum nn_rundir_open how) {
  const int base = O_WRONLY | O_NOFOLLOW | O_CLOEXEC;
  if (dir_fd <= 0) {
    errno = EBADF;
    return -1;
  }
  if (how != NN_RUNDIR_NEW) {
    int fd = openat(dir_fd, name, base | (how == NN_RUNDIR_APPEND ? O_APPEND : O_TRUNC));
    if (fd >= 0 || errno != ENOENT) return fd;
  }
  int fd =
    openat(dir_fd, name, base | O_CREAT | O_EXCL | (how == NN_RUNDIR_APPEND ? O_APPEND : 0), 0600);
  if (fd >= 0 &&
      fchmod(fd, 0600)) { /* a umask cannot widen it, but the mode is part of the promise */
    close(fd);
    return -1;
  }
  return fd;
}

FILE *nn_rundir_fopen(int dir_fd, const char *name, enum nn_rundir_open how) {
  int fd = nn_rundir_openat(dir_fd, name, how);
  FILE *f = fd >= 0 ? fdopen(fd, how == NN_RUNDIR_APPEND ? "a" : "w") : NULL;
  if (!f && fd >= 0) close(fd);
  return f;
}

const struct nn_arm *nn_rundir_arm(const struct nn_rundir *rd, const char *name) {
  for (int i = 0; i < rd->n_arms; i++)
    if (!strcmp(rd->arms[i].name, name)) return &rd->arms[i];
  return NULL;
}

static const char *kind_name(int k) {
  return k == NN_ARM_NUMA ? "numa" : k == NN_ARM_FORCED ? "forced" : "stock";
}

int nn_rundir_write_meta(const struct nn_rundir *rd) {
  FILE *f = nn_rundir_fopen(rd->dir_fd, "meta", NN_RUNDIR_REWRITE);
  if (!f) return -1;
  fprintf(f,
          "format 1\nkind %s\nhost %s\nmachine %s\ncpu %s\ndate %s\ncommand %s\nnccl %s\n"
          "gpus %d\nsizes %s\niters %d\nwarmup %d\nrepeats %d\n",
          rd->kind, rd->host, rd->machine, rd->cpu, rd->date, rd->command, rd->nccl, rd->gpus,
          rd->sizes, rd->iters, rd->warmup, rd->repeats);
  for (int i = 0; i < rd->n_arms; i++) {
    const struct nn_arm *a = &rd->arms[i];
    fprintf(f, "arm %s kind=%s", a->name, kind_name(a->kind));
    if (a->algo[0]) fprintf(f, " algo=%s", a->algo);
    if (a->proto[0]) fprintf(f, " proto=%s", a->proto);
    if (a->sha256[0]) fprintf(f, " sha256=%s", a->sha256);
    if (a->config) fprintf(f, " config=%s", a->config);
    fputc('\n', f);
  }
  return fclose(f) ? -1 : 0;
}

int nn_rundir_append_run(const struct nn_rundir *rd, const struct nn_run_rec *r) {
  FILE *f = nn_rundir_fopen(rd->dir_fd, "runs.tsv", NN_RUNDIR_APPEND);
  if (!f) return -1;
  fprintf(f, "%d\t%d\t%s\t%s\t%d\t%.3f\t%s\t%s\n", r->seq, r->repeat, r->arm, r->coll, r->rc,
          r->seconds, r->out, r->env);
  return fclose(f) ? -1 : 0;
}

static int parse_arm(char *rest, struct nn_arm *a) {
  memset(a, 0, sizeof *a);
  char *cfg = strstr(rest, " config=");
  if (cfg) {
    *cfg = 0;
    a->config = strdup(cfg + 8);
    if (!a->config) return -1;
  }
  char *save = NULL;
  char *name = strtok_r(rest, " ", &save);
  if (!name || strlen(name) >= sizeof a->name || !nn_rundir_name_ok(name)) return -1;
  copy(a->name, sizeof a->name, name);
  for (char *t; (t = strtok_r(NULL, " ", &save));) {
    if (!strncmp(t, "kind=", 5))
      a->kind = !strcmp(t + 5, "numa")     ? NN_ARM_NUMA
                : !strcmp(t + 5, "forced") ? NN_ARM_FORCED
                                           : NN_ARM_STOCK;
    else if (!strncmp(t, "algo=", 5)) copy(a->algo, sizeof a->algo, t + 5);
    else if (!strncmp(t, "proto=", 6)) copy(a->proto, sizeof a->proto, t + 6);
    else if (!strncmp(t, "sha256=", 7)) copy(a->sha256, sizeof a->sha256, t + 7);
  }
  return 0;
}

static int meta_line(struct nn_rundir *rd, char *line) {
  char *sp = strchr(line, ' ');
  const char *val = sp ? sp + 1 : "";
  if (sp) *sp = 0;
  if (!strcmp(line, "kind")) copy(rd->kind, sizeof rd->kind, val);
  else if (!strcmp(line, "host")) copy(rd->host, sizeof rd->host, val);
  else if (!strcmp(line, "machine")) copy(rd->machine, sizeof rd->machine, val);
  else if (!strcmp(line, "cpu")) copy(rd->cpu, sizeof rd->cpu, val);
  else if (!strcmp(line, "date")) copy(rd->date, sizeof rd->date, val);
  else if (!strcmp(line, "command")) copy(rd->command, sizeof rd->command, val);
  else if (!strcmp(line, "nccl")) copy(rd->nccl, sizeof rd->nccl, val);
  else if (!strcmp(line, "sizes")) copy(rd->sizes, sizeof rd->sizes, val);
  else if (!strcmp(line, "gpus")) return nn_int_parse(val, 0, INT_MAX, &rd->gpus);
  else if (!strcmp(line, "iters")) return nn_int_parse(val, 0, INT_MAX, &rd->iters);
  else if (!strcmp(line, "warmup")) return nn_int_parse(val, 0, INT_MAX, &rd->warmup);
  else if (!strcmp(line, "repeats")) return nn_int_parse(val, 0, INT_MAX, &rd->repeats);
  else if (!strcmp(line, "arm")) {
    if (rd->n_arms >= NN_MAX_ARMS) return -1;
    char *rest = strdup(val);
    if (!rest) return -1;
    int rc = parse_arm(rest, &rd->arms[rd->n_arms]);
    free(rest);
    if (rc) return -1;
    rd->n_arms++;
  }
  return 0;
}

/* Reads a file of the run directory whole: never through a link, never a FIFO or
 * device, never more than cap bytes. */
static char *read_rundir_file(int dfd, const struct nn_rundir *rd, const char *name, size_t cap,
                              char *err, size_t errsz) {
  char *buf = NULL, why[512];
  size_t len = 0;
  if (nn_file_read(dfd, name, NN_FILE_BENEATH, cap, &buf, &len, why, sizeof why)) {
    nn_errbuf_set(err, errsz, "%s/%s%s", rd->path, why,
                  errno == ENOENT && !strcmp(name, "meta")
                    ? " (not a run directory of nccl-numa ab/calibrate?)"
                    : "");
    return NULL;
  }
  return buf;
}

/* The next line of a buffer (cut at '\n', "\r" dropped), or NULL at the end. */
static char *next_line(char **cursor) {
  char *line = *cursor;
  if (!line || !*line) return NULL;
  char *nl = strchr(line, '\n');
  *cursor = nl ? nl + 1 : NULL;
  if (nl) *nl = 0;
  line[strcspn(line, "\r")] = 0;
  return line;
}

static int read_meta(int dfd, struct nn_rundir *rd, char *err, size_t errsz) {
  char *buf = read_rundir_file(dfd, rd, "meta", MAX_META_BYTES, err, errsz);
  if (!buf) return -1;
  printable(buf);
  int lineno = 0, rc = 0;
  char *cursor = buf;
  for (char *line; (line = next_line(&cursor));) {
    lineno++;
    if (meta_line(rd, line)) {
      nn_errbuf_set(err, errsz,
                    "%s/meta:%d: bad line: a number that is not a whole number >= 0, "
                    "a bad arm (names: letters, digits, _ . - only; at most %d characters), or "
                    "more than %d arms",
                    rd->path, lineno, NN_ARM_NAME_MAX - 1, NN_MAX_ARMS);
      rc = -1;
      break;
    }
  }
  free(buf);
  return rc;
}

static int run_line(char *line, struct nn_run_rec *r) {
  char *f[8];
  int n = 0;
  char *save = NULL;
  for (char *t = strtok_r(line, "\t", &save); t && n < 8; t = strtok_r(NULL, "\t", &save))
    f[n++] = t;
  if (n != 8 || strlen(f[2]) >= sizeof r->arm || strlen(f[3]) >= sizeof r->coll ||
      strlen(f[6]) >= sizeof r->out || strlen(f[7]) >= sizeof r->env || !nn_rundir_name_ok(f[2]) ||
      !nn_rundir_name_ok(f[3]) || !rel_path_ok(f[6]) || !rel_path_ok(f[7]))
    return -1;
  memset(r, 0, sizeof *r);
  if (nn_int_parse(f[0], 0, INT_MAX, &r->seq) || nn_int_parse(f[1], 0, INT_MAX, &r->repeat) ||
      nn_int_parse(f[4], -1, INT_MAX, &r->rc) || nn_double_parse(f[5], &r->seconds))
    return -1;
  copy(r->arm, sizeof r->arm, f[2]);
  copy(r->coll, sizeof r->coll, f[3]);
  copy(r->out, sizeof r->out, f[6]);
  copy(r->env, sizeof r->env, f[7]);
  return 0;
}

static int read_runs(int dfd, struct nn_rundir *rd, char *err, size_t errsz) {
  char *buf = read_rundir_file(dfd, rd, "runs.tsv", MAX_RUNS_BYTES, err, errsz);
  if (!buf) return -1;
  int lineno = 0, cap = 0, rc = 0;
  char *cursor = buf;
  for (char *line; (line = next_line(&cursor));) {
    lineno++;
    if (!line[0]) continue;
    if (rd->n_runs == cap) {
      cap = cap ? cap * 2 : 64;
      struct nn_run_rec *g = realloc(rd->runs, (size_t)cap * sizeof *g);
      if (!g) {
        rc = -1;
        nn_errbuf_set(err, errsz, "out of memory");
        break;
      }
      rd->runs = g;
    }
    if (run_line(line, &rd->runs[rd->n_runs])) {
      nn_errbuf_set(err, errsz,
                    "%s/runs.tsv:%d: malformed run record (8 tab-separated fields; "
                    "arm and collective names: letters, digits, _ . - only; files inside the run "
                    "directory)",
                    rd->path, lineno);
      rc = -1;
      break;
    }
    rd->n_runs++;
  }
  free(buf);
  return rc;
}

static int open_rundir(const char *path, char *err, size_t errsz) {
  int dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0)
    nn_errbuf_set(err, errsz, "%s: cannot open the run directory: %s", path, strerror(errno));
  return dfd;
}

int nn_rundir_read(const char *path, struct nn_rundir *rd, char *err, size_t errsz) {
  memset(rd, 0, sizeof *rd);
  rd->path = strdup(path);
  int dfd = rd->path ? open_rundir(path, err, errsz) : -1;
  int rc = dfd < 0 || read_meta(dfd, rd, err, errsz) || read_runs(dfd, rd, err, errsz);
  if (dfd >= 0) close(dfd);
  if (rc) {
    nn_rundir_free(rd);
    return -1;
  }
  return 0;
}

void nn_rundir_free(struct nn_rundir *rd) {
  if (!rd) return;
  for (int i = 0; i < rd->n_arms; i++) free(rd->arms[i].config);
  free(rd->runs);
  free(rd->path);
  if (rd->dir_fd > 0) close(rd->dir_fd);
  memset(rd, 0, sizeof *rd);
}

/* ---------- series ---------- */

static struct nn_series *series_get(struct nn_series **all, int *n, const char *arm,
                                    const char *coll) {
  for (int i = 0; i < *n; i++)
    if (!strcmp((*all)[i].arm, arm) && !strcmp((*all)[i].coll, coll)) return &(*all)[i];
  struct nn_series *g = realloc(*all, (size_t)(*n + 1) * sizeof *g);
  if (!g) return NULL;
  *all = g;
  struct nn_series *s = &g[(*n)++];
  memset(s, 0, sizeof *s);
  copy(s->arm, sizeof s->arm, arm);
  copy(s->coll, sizeof s->coll, coll);
  return s;
}

static struct nn_point *point_get(struct nn_series *s, uint64_t size, int max_values) {
  for (int i = 0; i < s->n_pts; i++)
    if (s->pts[i].size == size) return &s->pts[i];
  struct nn_point *g = realloc(s->pts, (size_t)(s->n_pts + 1) * sizeof *g);
  if (!g) return NULL;
  s->pts = g;
  struct nn_point *p = &g[s->n_pts];
  memset(p, 0, sizeof *p);
  p->size = size;
  p->times = calloc((size_t)max_values, sizeof *p->times);
  if (!p->times) return NULL;
  s->n_pts++;
  return p;
}

static int cmp_point(const void *a, const void *b) {
  uint64_t x = ((const struct nn_point *)a)->size, y = ((const struct nn_point *)b)->size;
  return (x > y) - (x < y);
}

/* Whether one direction's correctness check found wrong results. */
static int measure_wrong(const struct nn_nccltests_measure *m) {
  return m->present && m->wrong_known && m->wrong > 0 && m->failed;
}

/* Adds one run's rows to its series. A size may appear once per run; `checked`: a row
 * without a correctness check (#wrong N/A) fails. */
static int add_rows(struct nn_series *s, const struct nn_nccltests_result *r, int max_values,
                    int checked) {
  for (int i = 0; i < r->n_rows; i++) {
    const struct nn_nccltests_row *row = &r->rows[i];
    if (!row->size) continue; /* size 0 rows carry no timing worth comparing */
    struct nn_point *p = point_get(s, row->size, max_values);
    if (!p) return -1;
    int unchecked = checked && row->oop.present && !row->oop.wrong_known;
    p->n_wrong += measure_wrong(&row->oop) || measure_wrong(&row->inplace);
    p->n_unchecked += unchecked;
    if (nn_nccltests_row_failed(row) || !row->oop.present || unchecked) p->n_bad++;
    else if (p->n_ok < max_values) p->times[p->n_ok++] = row->oop.time_us;
  }
  if (r->n_ranks > s->ranks) s->ranks = r->n_ranks;
  if (!s->ranks && r->n_gpus * (r->n_threads ? r->n_threads : 1) > 0)
    s->ranks = r->n_gpus * (r->n_threads ? r->n_threads : 1);
  if (!s->device[0]) copy(s->device, sizeof s->device, r->device_name);
  if (!s->nccl[0]) copy(s->nccl, sizeof s->nccl, r->nccl_version);
  printable(s->device);
  printable(s->nccl);
  return 0;
}

static void finish_series(struct nn_series *s) {
  if (s->n_pts) qsort(s->pts, (size_t)s->n_pts, sizeof *s->pts, cmp_point);
  for (int i = 0; i < s->n_pts; i++) {
    struct nn_point *p = &s->pts[i];
    p->failed = p->n_ok < s->n_runs || p->n_bad > 0;
    p->median = nn_rundir_median(p->times, p->n_ok);
    p->min = p->max = p->n_ok ? p->times[0] : NAN;
    for (int k = 1; k < p->n_ok; k++) {
      if (p->times[k] < p->min) p->min = p->times[k];
      if (p->times[k] > p->max) p->max = p->times[k];
    }
  }
}

/* One run's output: parsed into r (1), missing or unparsable (0: a failed run, said
 * on log), or refused (-1: a link, a special or oversized file; err set). */
static int read_run_output(int dfd, const struct nn_rundir *rd, const struct nn_run_rec *run,
                           FILE *log, struct nn_nccltests_result *r, char *err, size_t errsz) {
  char *buf = NULL, why[512];
  size_t len = 0;
  int rc = nn_file_read(dfd, run->out, NN_FILE_BENEATH | NN_FILE_MISSING_OK, MAX_OUTPUT_BYTES, &buf,
                        &len, why, sizeof why);
  if (rc < 0) {
    nn_errbuf_set(err, errsz, "%s/%s", rd->path, why);
    return -1;
  }
  if (rc > 0) {
    if (log) fprintf(log, "%s/%s: cannot read: %s\n", rd->path, run->out, strerror(ENOENT));
    return 0;
  }
  int ok = !nn_nccltests_parse(buf, len, r, why, sizeof why);
  if (!ok && log) fprintf(log, "%s/%s: %s\n", rd->path, run->out, why);
  free(buf);
  return ok;
}

int nn_rundir_series(const struct nn_rundir *rd, FILE *log, struct nn_series **out, int *n_out,
                     char *err, size_t errsz) {
  struct nn_series *all = NULL;
  int n = 0;
  *out = NULL;
  *n_out = 0;
  int dfd = open_rundir(rd->path, err, errsz);
  if (dfd < 0) return -1;
  int max_values = rd->n_runs > 0 ? rd->n_runs : 1;
  for (int i = 0; i < rd->n_runs; i++) {
    const struct nn_run_rec *run = &rd->runs[i];
    struct nn_series *s = series_get(&all, &n, run->arm, run->coll);
    if (!s) goto oom;
    s->n_runs++;
    struct nn_nccltests_result r;
    int ok = read_run_output(dfd, rd, run, log, &r, err, errsz);
    if (ok < 0) goto fail;
    if (ok) {
      if (run->rc != 0) {
        /* a non-zero exit discredits every size of the run */
        for (int k = 0; k < r.n_rows; k++) r.rows[k].oop.failed = 1;
      }
      const struct nn_arm *arm = nn_rundir_arm(rd, run->arm);
      int rc = add_rows(s, &r, max_values, arm && arm->kind == NN_ARM_FORCED);
      nn_nccltests_free(&r);
      if (rc) goto oom;
    }
    if (!ok || run->rc != 0) s->n_failed_runs++;
  }
  close(dfd);
  for (int i = 0; i < n; i++) finish_series(&all[i]);
  *out = all;
  *n_out = n;
  return 0;
oom:
  nn_errbuf_set(err, errsz, "out of memory");
fail:
  close(dfd);
  nn_rundir_series_free(all, n);
  return -1;
}

void nn_rundir_series_free(struct nn_series *s, int n) {
  if (!s) return;
  for (int i = 0; i < n; i++) {
    for (int k = 0; k < s[i].n_pts; k++) free(s[i].pts[k].times);
    free(s[i].pts);
  }
  free(s);
}

const struct nn_series *nn_rundir_series_find(const struct nn_series *s, int n, const char *arm,
                                              const char *coll) {
  for (int i = 0; i < n; i++)
    if (!strcmp(s[i].arm, arm) && !strcmp(s[i].coll, coll)) return &s[i];
  return NULL;
}

const struct nn_point *nn_rundir_series_point(const struct nn_series *s, uint64_t size) {
  if (!s) return NULL;
  for (int i = 0; i < s->n_pts; i++)
    if (s->pts[i].size == size) return &s->pts[i];
  return NULL;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

uint64_t *nn_rundir_series_sizes(const struct nn_series *s, int n, const char *coll,
                                 int (*keep)(const struct nn_series *, const void *),
                                 const void *arg, int *n_out) {
  int cap = 0, m = 0;
  for (int i = 0; i < n; i++)
    if (!strcmp(s[i].coll, coll)) cap += s[i].n_pts;
  uint64_t *v = malloc((size_t)(cap ? cap : 1) * sizeof *v);
  if (!v) return NULL;
  for (int i = 0; i < n; i++) {
    if (strcmp(s[i].coll, coll) || (keep && !keep(&s[i], arg))) continue;
    for (int k = 0; k < s[i].n_pts; k++) {
      int seen = 0;
      for (int j = 0; j < m && !seen; j++) seen = v[j] == s[i].pts[k].size;
      if (!seen) v[m++] = s[i].pts[k].size;
    }
  }
  qsort(v, (size_t)m, sizeof *v, cmp_u64);
  *n_out = m;
  return v;
}

int nn_rundir_size_list(const char *list, uint64_t lo, uint64_t hi, uint64_t *out, int max) {
  char buf[512];
  int n = 0;
  if (strlen(list) >= sizeof buf) return -1;
  strcpy(buf, list);
  for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    uint64_t v;
    if (n >= max || nn_rundir_size_parse(t, &v) || v < lo || v > hi) return -1;
    out[n++] = v;
  }
  return n ? n : -1;
}

int nn_rundir_nccl_code(const struct nn_rundir *rd) {
  int code = nn_nccl_version_parse(rd->nccl);
  return code > 0 ? code : 0;
}
