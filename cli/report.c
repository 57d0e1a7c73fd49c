/* report.c - markdown report and gnuplot plots of an A/B run directory. */
#include "cli/report.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/commands.h"
#include "errbuf.h"

#define MAX_COLLS 16

int nn_report_verdict(const struct nn_point *base, const struct nn_point *arm) {
  if (!base || !arm) return NN_VERDICT_UNKNOWN;
  if (base->failed || arm->failed) return NN_VERDICT_FAILED;
  if (base->n_ok < 2 || arm->n_ok < 2) return NN_VERDICT_UNKNOWN;
  double noise = fmax(base->max - base->min, arm->max - arm->min);
  double gain = base->median - arm->median;
  if (gain > noise) return NN_VERDICT_FASTER;
  if (-gain > noise) return NN_VERDICT_SLOWER;
  return NN_VERDICT_NOISE;
}

const char *nn_verdict_name(int v) {
  switch (v) {
    case NN_VERDICT_FASTER: return "faster";
    case NN_VERDICT_SLOWER: return "slower";
    case NN_VERDICT_NOISE: return "within noise";
    case NN_VERDICT_FAILED: return "FAILED";
    default: return "n/a";
  }
}

/* A growable text buffer: the report is built once, then written twice. */
struct text {
  char *s;
  size_t len, cap;
  int oom;
};

static void put(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct text *t, const char *fmt, ...) {
  va_list ap;
  for (;;) {
    va_start(ap, fmt);
    int n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if (t->s && t->len + (size_t)n < t->cap) {
      t->len += (size_t)n;
      return;
    }
    size_t ncap = (t->cap + (size_t)n + 1) * 2;
    char *g = realloc(t->s, ncap);
    if (!g) {
      t->oom = 1;
      return;
    }
    t->s = g;
    t->cap = ncap;
  }
}

static const char *baseline_arm(const struct nn_rundir *rd) {
  if (nn_rundir_arm(rd, "stock")) return "stock";
  return rd->n_arms ? rd->arms[0].name : "";
}

/* Collectives in the order they were run. */
static int list_colls(const struct nn_rundir *rd, const char *colls[MAX_COLLS]) {
  int n = 0;
  for (int i = 0; i < rd->n_runs && n < MAX_COLLS; i++) {
    int seen = 0;
    for (int k = 0; k < n && !seen; k++) seen = !strcmp(colls[k], rd->runs[i].coll);
    if (!seen) colls[n++] = rd->runs[i].coll;
  }
  return n;
}

static void header(struct text *t, const struct nn_rundir *rd, const struct nn_series *s, int ns) {
  const char *dev = "", *nccl = rd->nccl;
  int ranks = 0;
  for (int i = 0; i < ns; i++) {
    if (!dev[0]) dev = s[i].device;
    if (!nccl[0]) nccl = s[i].nccl;
    if (s[i].ranks > ranks) ranks = s[i].ranks;
  }
  put(t, "# nccl-numa %s report\n\n", !strcmp(rd->kind, "calibrate") ? "calibration" : "A/B");
  put(t, "- Run directory: `%s`\n", rd->path);
  put(t, "- Machine: %s (%s); CPU: %s\n", rd->host[0] ? rd->host : "?",
      rd->machine[0] ? rd->machine : "?", rd->cpu[0] ? rd->cpu : "?");
  put(t, "- GPUs: %d per run (-g), %d ranks reported; model: %s\n", rd->gpus, ranks,
      dev[0] ? dev : "not reported");
  put(t, "- NCCL version: %s\n", nccl[0] ? nccl : "unknown");
  put(t, "- Date: %s\n- Command: `%s`\n", rd->date, rd->command);
  put(t, "- nccl-tests: %s, %d iterations, %d warm-up; %d repeats per arm, arms alternated "
      "in each repeat\n", rd->sizes, rd->iters, rd->warmup, rd->repeats);
  put(t, "- Arms:\n");
  for (int i = 0; i < rd->n_arms; i++) {
    const struct nn_arm *a = &rd->arms[i];
    if (a->kind == NN_ARM_STOCK)
      put(t, "  - `%s`: stock NCCL (no tuner plugin, no env plugin, no NCCL_TOPO_FILE)\n", a->name);
    else if (a->kind == NN_ARM_NUMA)
      put(t, "  - `%s`: nccl-numa, config `%s`, sha256 `%s`\n", a->name,
          a->config ? a->config : "?", a->sha256[0] ? a->sha256 : "?");
    else
      put(t, "  - `%s`: forced NCCL_ALGO=%s NCCL_PROTO=%s%s%s%s\n", a->name, a->algo, a->proto,
          a->config ? ", topology from config `" : "", a->config ? a->config : "",
          a->config ? "`" : "");
  }
  put(t, "\nTimes are nccl-tests' out-of-place time per size in microseconds, the median over "
      "the repeats; spread is max - min over the repeats. Verdict: faster (slower) when the "
      "arm's median beats (trails) the baseline's by more than the larger spread; otherwise "
      "within noise; n/a with fewer than 2 good repeats. A size where any run failed "
      "(#wrong > 0, non-zero exit, unreadable output) is FAILED and never a speed result.\n");
}

static void cell_time(struct text *t, const struct nn_point *p, int n_runs) {
  if (!p) put(t, " - |");
  else if (p->failed) put(t, " FAILED (%d/%d good) |", p->n_ok, n_runs);
  else put(t, " %.2f |", p->median);
}

static void cell_spread(struct text *t, const struct nn_point *p) {
  if (!p || p->failed || p->n_ok < 2) put(t, " - |");
  else put(t, " %.2f (%.1f%%) |", p->max - p->min, 100 * (p->max - p->min) / p->median);
}

static void coll_table(struct text *t, const struct nn_rundir *rd, const struct nn_series *s,
                       int ns, const char *coll, const char *base, int plots) {
  int nsz = 0;
  uint64_t *sizes = nn_series_sizes(s, ns, coll, NULL, NULL, &nsz);
  if (!sizes) {
    t->oom = 1;
    return;
  }
  const struct nn_series *bs = nn_series_find(s, ns, base, coll);
  if (!nsz) {
    put(t, "\n## %s\n\nNo size was measured: every run of %s failed (see runs/*.out).\n", coll, coll);
    free(sizes);
    return;
  }
  put(t, "\n## %s\n\n| size | %s (us) |", coll, base);
  for (int a = 0; a < rd->n_arms; a++)
    if (strcmp(rd->arms[a].name, base))
      put(t, " %s (us) | %s/%s | spread %s | spread %s | verdict %s |", rd->arms[a].name, base,
          rd->arms[a].name, base, rd->arms[a].name, rd->arms[a].name);
  put(t, "\n|---:|---:|");
  for (int a = 0; a < rd->n_arms; a++)
    if (strcmp(rd->arms[a].name, base)) put(t, "---:|---:|---:|---:|:---|");
  put(t, "\n");
  int counts[MAX_COLLS][5] = {{0}};
  for (int i = 0; i < nsz; i++) {
    char sz[32];
    nn_size_format(sizes[i], sz, sizeof sz);
    const struct nn_point *bp = nn_series_point(bs, sizes[i]);
    put(t, "| %s |", sz);
    cell_time(t, bp, bs ? bs->n_runs : 0);
    for (int a = 0, k = 0; a < rd->n_arms; a++) {
      if (!strcmp(rd->arms[a].name, base)) continue;
      const struct nn_series *as = nn_series_find(s, ns, rd->arms[a].name, coll);
      const struct nn_point *ap = nn_series_point(as, sizes[i]);
      cell_time(t, ap, as ? as->n_runs : 0);
      if (bp && ap && !bp->failed && !ap->failed && ap->median > 0)
        put(t, " %.3f |", bp->median / ap->median);
      else
        put(t, " - |");
      cell_spread(t, bp);
      cell_spread(t, ap);
      int v = nn_report_verdict(bp, ap);
      put(t, " %s |", nn_verdict_name(v));
      if (k < MAX_COLLS) counts[k++][v]++;
    }
    put(t, "\n");
  }
  put(t, "\n");
  for (int a = 0, k = 0; a < rd->n_arms; a++) {
    if (!strcmp(rd->arms[a].name, base) || k >= MAX_COLLS) continue;
    put(t, "%s vs %s: faster at %d sizes, slower at %d, within noise at %d, failed at %d, "
        "n/a at %d.\n\n", rd->arms[a].name, base, counts[k][NN_VERDICT_FASTER],
        counts[k][NN_VERDICT_SLOWER], counts[k][NN_VERDICT_NOISE], counts[k][NN_VERDICT_FAILED],
        counts[k][NN_VERDICT_UNKNOWN]);
    k++;
  }
  if (plots) put(t, "![%s: time vs size](plot-%s.svg)\n", coll, coll);
  free(sizes);
}

/* ---------- plots ---------- */

static FILE *open_in(const char *dir, const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return fopen(path, "w");
}

static int write_plot_files(const struct nn_rundir *rd, const struct nn_series *s, int ns,
                            const char *coll) {
  char name[128];
  int nsz = 0;
  uint64_t *sizes = nn_series_sizes(s, ns, coll, NULL, NULL, &nsz);
  if (!sizes) return -1;
  snprintf(name, sizeof name, "plot-%s.dat", coll);
  FILE *d = open_in(rd->path, name);
  if (!d) {
    free(sizes);
    return -1;
  }
  fprintf(d, "# size");
  for (int a = 0; a < rd->n_arms; a++) fprintf(d, " %s", rd->arms[a].name);
  fprintf(d, "\n");
  for (int i = 0; i < nsz; i++) {
    fprintf(d, "%llu", (unsigned long long)sizes[i]);
    for (int a = 0; a < rd->n_arms; a++) {
      const struct nn_point *p =
          nn_series_point(nn_series_find(s, ns, rd->arms[a].name, coll), sizes[i]);
      if (p && !p->failed && p->median > 0) fprintf(d, " %.4f", p->median);
      else fprintf(d, " ?");
    }
    fprintf(d, "\n");
  }
  free(sizes);
  if (fclose(d)) return -1;
  snprintf(name, sizeof name, "plot-%s.gp", coll);
  FILE *g = open_in(rd->path, name);
  if (!g) return -1;
  fprintf(g, "# gnuplot script written by nccl-numa report; run it inside the run directory.\n"
          "set logscale xy 2\nset datafile missing '?'\nset key top left\nset grid\n"
          "set xlabel 'size (bytes)'\nset ylabel 'time (us), median of repeats'\n"
          "set title '%s: time vs size (%s)'\nset format x '%%.0s%%cB'\n", coll, rd->host);
  for (int pass = 0; pass < 2; pass++) {
    if (pass == 0)
      fprintf(g, "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) { set terminal pngcairo size 1000,650 } "
              "else { set terminal png size 1000,650 }\nset output 'plot-%s.png'\n", coll);
    else
      fprintf(g, "set terminal svg size 1000,650 dynamic\nset output 'plot-%s.svg'\n", coll);
    fprintf(g, "plot");
    for (int a = 0; a < rd->n_arms; a++)
      fprintf(g, "%s 'plot-%s.dat' using 1:%d with linespoints title '%s'", a ? "," : "", coll,
              a + 2, rd->arms[a].name);
    fprintf(g, "\nunset output\n");
  }
  return fclose(g) ? -1 : 0;
}

/* Runs gnuplot on a script inside dir. Returns 0 drawn, 1 gnuplot missing, -1 failed. */
static int run_gnuplot(const char *dir, const char *script, FILE *log) {
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    if (chdir(dir)) _exit(126);
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0) dup2(null, 1);
    execlp("gnuplot", "gnuplot", script, (char *)NULL);
    _exit(errno == ENOENT ? 127 : 126);
  }
  int st;
  while (waitpid(pid, &st, 0) < 0)
    if (errno != EINTR) return -1;
  if (WIFEXITED(st) && WEXITSTATUS(st) == 127) return 1;
  if (!WIFEXITED(st) || WEXITSTATUS(st)) {
    if (log) fprintf(log, "nccl-numa report: gnuplot failed on %s/%s\n", dir, script);
    return -1;
  }
  return 0;
}

static void draw_plots(struct text *t, const struct nn_rundir *rd, const struct nn_series *s,
                       int ns, const char **colls, int nc, FILE *log) {
  int missing = 0;
  for (int c = 0; c < nc; c++) {
    char script[128];
    snprintf(script, sizeof script, "plot-%s.gp", colls[c]);
    if (write_plot_files(rd, s, ns, colls[c])) {
      put(t, "\nPlot files for %s could not be written: %s\n", colls[c], strerror(errno));
      continue;
    }
    int rc = run_gnuplot(rd->path, script, log);
    if (rc == 1) missing = 1;
    else if (rc < 0) put(t, "\ngnuplot failed on %s: no plot for %s\n", script, colls[c]);
  }
  if (missing)
    put(t, "\ngnuplot is not installed: the plots were not drawn. Install it and run "
        "`gnuplot plot-COLL.gp` inside the run directory.\n");
}

static int build_report(struct text *t, const struct nn_rundir *rd, int plots, FILE *log) {
  struct nn_series *s = NULL;
  int ns = 0;
  if (nn_rundir_series(rd, log, &s, &ns)) return -1;
  const char *colls[MAX_COLLS];
  int nc = list_colls(rd, colls);
  header(t, rd, s, ns);
  const char *base = baseline_arm(rd);
  for (int c = 0; c < nc; c++) coll_table(t, rd, s, ns, colls[c], base, plots);
  int failed_runs = 0;
  for (int i = 0; i < ns; i++) failed_runs += s[i].n_failed_runs;
  if (failed_runs)
    put(t, "\n%d run(s) failed (non-zero exit or unreadable output); see runs.tsv and "
        "runs/*.out.\n", failed_runs);
  if (plots) draw_plots(t, rd, s, ns, colls, nc, log);
  nn_series_free(s, ns);
  return t->oom ? -1 : 0;
}

int nn_report_write(const char *rundir, int plots, FILE *out, FILE *log, char *err, size_t errsz) {
  struct nn_rundir rd;
  if (nn_rundir_read(rundir, &rd, err, errsz)) return -1;
  struct text t = {0};
  int rc = build_report(&t, &rd, plots, log);
  if (rc) {
    nn_errbuf_set(err, errsz, "%s: out of memory while building the report", rundir);
  } else {
    FILE *f = open_in(rundir, "report.md");
    if (!f || fwrite(t.s, 1, t.len, f) != t.len) {
      nn_errbuf_set(err, errsz, "%s/report.md: cannot write: %s", rundir, strerror(errno));
      rc = -1;
    }
    if (f && fclose(f) && !rc) {
      nn_errbuf_set(err, errsz, "%s/report.md: cannot write: %s", rundir, strerror(errno));
      rc = -1;
    }
    if (!rc && out) fwrite(t.s, 1, t.len, out);
  }
  free(t.s);
  nn_rundir_free(&rd);
  return rc;
}

static void usage(FILE *f) {
  fprintf(f, "usage: nccl-numa report RUNDIR [--no-plot]\n\n"
          "Writes RUNDIR/report.md (printed too) and plot-COLL.{png,svg} for a run directory\n"
          "made by `nccl-numa ab` or `nccl-numa calibrate`.\n");
}

int nn_cmd_report(int argc, char **argv) {
  const char *dir = NULL;
  int plots = 1;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      usage(stdout);
      return NN_EXIT_OK;
    } else if (!strcmp(argv[i], "--no-plot")) {
      plots = 0;
    } else if (argv[i][0] == '-' || dir) {
      usage(stderr);
      return NN_EXIT_USAGE;
    } else {
      dir = argv[i];
    }
  }
  if (!dir) {
    usage(stderr);
    return NN_EXIT_USAGE;
  }
  char err[512];
  if (nn_report_write(dir, plots, stdout, stderr, err, sizeof err)) {
    fprintf(stderr, "nccl-numa report: %s\n", err);
    return NN_EXIT_INVALID;
  }
  return NN_EXIT_OK;
}
