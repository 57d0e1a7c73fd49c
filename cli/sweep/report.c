/* SPDX-License-Identifier: BSD-3-Clause */
/* report.c - markdown report and gnuplot plots of an A/B run directory. */
#include "cli/sweep/report.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/sweep/costmeasure.h"
#include "cli/sweep/verdict.h"
#include "cli/common/strbuf.h"
#include "errbuf.h"
#include "printable.h"
#include "sizetext.h"

#define MAX_COLLS 16

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

/* Free text of a run directory (meta's values, what nccl-tests printed, paths) goes to the
 * terminal and into report.md: escaped, the backquote too, as some is quoted in `code`. Each
 * call takes the next of eight buffers, enough for one line of the header. */
static const char *txt(const char *s) {
  static char bufs[8][4200];
  static unsigned next;
  return nn_printable(bufs[next++ % 8], sizeof bufs[0], s, NN_PRINTABLE_CSTR, "`");
}

static void header(struct nn_strbuf *t, const struct nn_rundir *rd, const struct nn_series *s,
                   int ns) {
  const char *dev = "", *nccl = rd->nccl;
  int ranks = 0;
  for (int i = 0; i < ns; i++) {
    if (!dev[0]) dev = s[i].device;
    if (!nccl[0]) nccl = s[i].nccl;
    if (s[i].ranks > ranks) ranks = s[i].ranks;
  }
  nn_strbuf_printf(t, "# nccl-numa %s report\n\n",
                   !strcmp(rd->kind, "calibrate") ? "calibration" : "A/B");
  nn_strbuf_printf(t, "- Run directory: `%s`\n", txt(rd->path));
  nn_strbuf_printf(t, "- Machine: %s (%s); CPU: %s\n", rd->host[0] ? txt(rd->host) : "?",
                   rd->machine[0] ? txt(rd->machine) : "?", rd->cpu[0] ? txt(rd->cpu) : "?");
  nn_strbuf_printf(t, "- GPUs: %d per run (-g), %d ranks reported; model: %s\n", rd->gpus, ranks,
                   dev[0] ? txt(dev) : "not reported");
  nn_strbuf_printf(t, "- NCCL version: %s\n", nccl[0] ? txt(nccl) : "unknown");
  nn_strbuf_printf(t, "- Date: %s\n- Command: `%s`\n", txt(rd->date), txt(rd->command));
  nn_strbuf_printf(
    t,
    "- nccl-tests: %s, %d iterations, %d warm-up; %d repeats per arm, arms alternated "
    "in each repeat\n",
    txt(rd->sizes), rd->iters, rd->warmup, rd->repeats);
  nn_strbuf_printf(t, "- Arms:\n");
  for (int i = 0; i < rd->n_arms; i++) {
    const struct nn_arm *a = &rd->arms[i];
    if (a->kind == NN_ARM_STOCK)
      nn_strbuf_printf(
        t, "  - `%s`: stock NCCL (no tuner plugin, no env plugin, no NCCL_TOPO_FILE)\n", a->name);
    else if (a->kind == NN_ARM_NUMA)
      nn_strbuf_printf(t, "  - `%s`: nccl-numa, config `%s`, sha256 `%s`\n", a->name,
                       a->config ? txt(a->config) : "?", a->sha256[0] ? txt(a->sha256) : "?");
    else
      nn_strbuf_printf(t, "  - `%s`: forced NCCL_ALGO=%s NCCL_PROTO=%s%s%s%s\n", a->name,
                       txt(a->algo), txt(a->proto), a->config ? ", topology from config `" : "",
                       a->config ? txt(a->config) : "", a->config ? "`" : "");
  }
  nn_strbuf_printf(
    t, "\nTimes are nccl-tests' out-of-place time per size in microseconds, the median over "
       "the repeats; spread is max - min over the repeats. Verdict: faster (slower) when the "
       "arm's median beats (trails) the baseline's by more than the larger spread; otherwise "
       "within noise; n/a with fewer than 2 good repeats. A size where any run failed "
       "(#wrong > 0, non-zero exit, unreadable output) is FAILED and never a speed result.\n");
}

/* A time cell: the median and, with two or more good repeats, its spread (max - min). */
static void cell_time(struct nn_strbuf *t, const struct nn_point *p, int n_runs) {
  if (!p) nn_strbuf_printf(t, " - |");
  else if (p->failed) nn_strbuf_printf(t, " FAILED (%d/%d good) |", p->n_ok, n_runs);
  else if (p->n_ok < 2) nn_strbuf_printf(t, " %.2f |", p->median);
  else nn_strbuf_printf(t, " %.2f ±%.2f |", p->median, p->max - p->min);
}

/* An arm against the baseline: the ratio base/arm (above 1: the arm is faster) and the verdict. */
static void cell_versus(struct nn_strbuf *t, const struct nn_point *bp, const struct nn_point *ap,
                        int v) {
  if (v == NN_VERDICT_FAILED) nn_strbuf_printf(t, " %s |", nn_verdict_name(v));
  else if (bp && ap && ap->median > 0)
    nn_strbuf_printf(t, " %.3fx %s |", bp->median / ap->median, nn_verdict_name(v));
  else nn_strbuf_printf(t, " - |");
}

static void table_head(struct nn_strbuf *t, const struct nn_rundir *rd, const char *coll,
                       const char *base) {
  nn_strbuf_printf(
    t,
    "\n## %s\n\nEach time is the median over the repeats ± their spread (us); "
    "\"vs %s\" is %s's time over the arm's (above 1: the arm is faster) and the verdict.\n\n"
    "| size | %s |",
    coll, base, base, base);
  for (int a = 0; a < rd->n_arms; a++)
    if (strcmp(rd->arms[a].name, base))
      nn_strbuf_printf(t, " %s | vs %s |", rd->arms[a].name, base);
  nn_strbuf_printf(t, "\n|---:|---:|");
  for (int a = 0; a < rd->n_arms; a++)
    if (strcmp(rd->arms[a].name, base)) nn_strbuf_printf(t, "---:|:---|");
  nn_strbuf_printf(t, "\n");
}

static void coll_table(struct nn_strbuf *t, const struct nn_rundir *rd, const struct nn_series *s,
                       int ns, const char *coll, const char *base, int plots) {
  int nsz = 0;
  uint64_t *sizes = nn_rundir_series_sizes(s, ns, coll, NULL, NULL, &nsz);
  if (!sizes) {
    t->oom = 1;
    return;
  }
  const struct nn_series *bs = nn_rundir_series_find(s, ns, base, coll);
  if (!nsz) {
    nn_strbuf_printf(
      t, "\n## %s\n\nNo size was measured: every run of %s failed (see runs/*.out).\n", coll, coll);
    free(sizes);
    return;
  }
  table_head(t, rd, coll, base);
  int counts[MAX_COLLS][5] = {{0}};
  for (int i = 0; i < nsz; i++) {
    char sz[32];
    nn_sizetext(sizes[i], sz, sizeof sz);
    const struct nn_point *bp = nn_rundir_series_point(bs, sizes[i]);
    nn_strbuf_printf(t, "| %s |", sz);
    cell_time(t, bp, bs ? bs->n_runs : 0);
    for (int a = 0, k = 0; a < rd->n_arms; a++) {
      if (!strcmp(rd->arms[a].name, base)) continue;
      const struct nn_series *as = nn_rundir_series_find(s, ns, rd->arms[a].name, coll);
      const struct nn_point *ap = nn_rundir_series_point(as, sizes[i]);
      int v = nn_verdict_compare(bp, ap);
      cell_time(t, ap, as ? as->n_runs : 0);
      cell_versus(t, bp, ap, v);
      if (k < MAX_COLLS) counts[k++][v]++;
    }
    nn_strbuf_printf(t, "\n");
  }
  nn_strbuf_printf(t, "\n");
  for (int a = 0, k = 0; a < rd->n_arms; a++) {
    if (!strcmp(rd->arms[a].name, base) || k >= MAX_COLLS) continue;
    nn_strbuf_printf(
      t,
      "%s vs %s: faster at %d sizes, slower at %d, within noise at %d, failed at %d, "
      "n/a at %d.\n\n",
      rd->arms[a].name, base, counts[k][NN_VERDICT_FASTER], counts[k][NN_VERDICT_SLOWER],
      counts[k][NN_VERDICT_NOISE], counts[k][NN_VERDICT_FAILED], counts[k][NN_VERDICT_UNKNOWN]);
    k++;
  }
  if (plots)
    nn_strbuf_printf(
      t,
      "![%s: time vs size](plot-%s.svg)\n\n![%s: %s's time over each arm's](plot-%s-ratio.svg)\n",
      coll, coll, coll, base, coll);
  free(sizes);
}

/* ---------- outputs ---------- */

/* A run directory is shared: a file planted under an output's name (a link to a
 * file of the user running report) must be replaced, never written through. Every
 * output is written into a fresh private directory inside the run directory (gnuplot
 * runs there too) and renamed into place. */
struct stage {
  int dfd; /* the run directory */
  int tfd; /* the private staging directory inside it */
  char name[64];
};

static int stage_open(struct stage *st, const char *rundir, char *err, size_t errsz) {
  static unsigned seq;
  st->tfd = -1;
  st->dfd = open(rundir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (st->dfd < 0) {
    nn_errbuf_set(err, errsz, "%s: cannot open: %s", rundir, strerror(errno));
    return -1;
  }
  for (int tries = 0; tries < 100; tries++) {
    snprintf(st->name, sizeof st->name, ".report-%ld-%u", (long)getpid(), seq++);
    if (!mkdirat(st->dfd, st->name, 0700)) {
      st->tfd = openat(st->dfd, st->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (st->tfd >= 0) return 0;
      break;
    }
    if (errno != EEXIST) break;
  }
  nn_errbuf_set(err, errsz, "%s: cannot create a private directory for the outputs: %s", rundir,
                strerror(errno));
  close(st->dfd);
  return -1;
}

/* A new file in the staging directory. */
static FILE *stage_file(const struct stage *st, const char *name) {
  int fd = openat(st->tfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (!f && fd >= 0) close(fd);
  return f;
}

/* Moves a staged file into the run directory (replacing whatever has its name). */
static int stage_commit(const struct stage *st, const char *name) {
  return renameat(st->tfd, name, st->dfd, name);
}

/* Removes the staging directory and whatever is left in it. */
static void stage_close(struct stage *st) {
  int fd = dup(st->tfd);
  DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
  if (!d && fd >= 0) close(fd);
  for (struct dirent *e; d && (e = readdir(d));)
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) unlinkat(st->tfd, e->d_name, 0);
  if (d) closedir(d);
  close(st->tfd);
  unlinkat(st->dfd, st->name, AT_REMOVEDIR);
  close(st->dfd);
}

/* Writes s as a gnuplot single-quoted string: inside one, only a quote is special
 * (written twice); no backquote or macro substitution happens. Control characters
 * become '?' so a string stays on its line. */
static void gp_string(FILE *f, const char *s) {
  fputc('\'', f);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '\'') fputs("''", f);
    else fputc(*p < 0x20 || *p == 0x7f ? '?' : *p, f);
  }
  fputc('\'', f);
}

/* ---------- plots ---------- */

static int write_plot_data(const struct stage *st, const struct nn_rundir *rd,
                           const struct nn_series *s, int ns, const char *coll) {
  char name[128];
  int nsz = 0;
  uint64_t *sizes = nn_rundir_series_sizes(s, ns, coll, NULL, NULL, &nsz);
  if (!sizes) return -1;
  snprintf(name, sizeof name, "plot-%s.dat", coll);
  FILE *d = stage_file(st, name);
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
        nn_rundir_series_point(nn_rundir_series_find(s, ns, rd->arms[a].name, coll), sizes[i]);
      if (p && !p->failed && p->median > 0) fprintf(d, " %.4f", p->median);
      else fprintf(d, " ?");
    }
    fprintf(d, "\n");
  }
  free(sizes);
  return fclose(d) ? -1 : 0;
}

#define PLOT_MAX_TICS 12

/* x tics at measured sizes, labelled in binary units ("32 KiB"; gnuplot's own %c would say 33k). */
static void plot_xtics(FILE *g, const struct nn_series *s, int ns, const char *coll) {
  int nsz = 0;
  uint64_t *sizes = nn_rundir_series_sizes(s, ns, coll, NULL, NULL, &nsz);
  if (!sizes || !nsz) {
    free(sizes);
    return;
  }
  int step = (nsz + PLOT_MAX_TICS - 1) / PLOT_MAX_TICS;
  fprintf(g, "set xtics (");
  for (int i = 0; i < nsz; i += step) {
    char sz[32];
    nn_sizetext(sizes[i], sz, sizeof sz);
    fprintf(g, "%s", i ? ", " : "");
    gp_string(g, sz);
    fprintf(g, " %llu", (unsigned long long)sizes[i]);
  }
  fprintf(g, ")\n");
  free(sizes);
}

/* The png and svg outputs of one plot, `plot` the command that draws it. */
static void plot_outputs(FILE *g, const char *stem, const char *plot) {
  fprintf(g,
          "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) { set terminal pngcairo size 1000,650 } "
          "else { set terminal png size 1000,650 }\nset output '%s.png'\n%s\nunset output\n"
          "set terminal svg size 1000,650 dynamic\nset output '%s.svg'\n%s\nunset output\n",
          stem, plot, stem, plot);
}

/* The plot command, malloc'd: every arm's time (ratio 0), or the time of the baseline (data
 * column bcol) over each other arm's (ratio 1). NULL when out of memory. */
static char *plot_cmd(const struct nn_rundir *rd, const char *coll, const char *base, int bcol,
                      int ratio) {
  char *cmd = NULL;
  size_t len = 0;
  FILE *p = open_memstream(&cmd, &len);
  if (!p) return NULL;
  if (ratio) fprintf(p, "plot 1 with lines dashtype 2 linecolor 'gray' title 'same as %s'", base);
  else fprintf(p, "plot");
  /* the baseline (stock) last and dashed: drawn over an arm it equals, not hidden behind it */
  for (int k = 0, n = 0; k < rd->n_arms; k++) {
    int a = k == rd->n_arms - 1 ? bcol - 2 : k >= bcol - 2 ? k + 1 : k;
    if (ratio && a + 2 == bcol) continue;
    fprintf(p, "%s 'plot-%s.dat' using 1:", ratio || n ? "," : "", coll);
    if (ratio) fprintf(p, "(column(%d)/column(%d))", bcol, a + 2);
    else fprintf(p, "%d", a + 2);
    fprintf(p, " with linespoints%s title ", a + 2 == bcol ? " dashtype 2 linewidth 2" : "");
    gp_string(p, rd->arms[a].name);
    n++;
  }
  if (fclose(p)) {
    free(cmd);
    return NULL;
  }
  return cmd;
}

/* The gnuplot script: time against size for every arm, then the baseline's time over each
 * other arm's. Names (collective, arms) passed nn_rundir_name_ok; the host name is free text
 * from meta and goes in as a quoted string. */
static int write_plot_script(const struct stage *st, const struct nn_rundir *rd,
                             const struct nn_series *s, int ns, const char *coll,
                             const char *base) {
  char name[128], title[512], stem[128];
  int bcol = 2;
  for (int a = 0; a < rd->n_arms; a++)
    if (!strcmp(rd->arms[a].name, base)) bcol = a + 2;
  char *times = plot_cmd(rd, coll, base, bcol, 0), *ratios = plot_cmd(rd, coll, base, bcol, 1);
  snprintf(name, sizeof name, "plot-%s.gp", coll);
  FILE *g = times && ratios ? stage_file(st, name) : NULL;
  if (g) {
    snprintf(title, sizeof title, "%s: time vs size (%s)", coll, rd->host);
    fprintf(g, "# gnuplot script written by nccl-numa report; run it inside the run directory.\n"
               "set logscale xy 2\nset datafile missing '?'\nset key below noenhanced\nset grid\n"
               "set xlabel 'size'\nset ylabel 'time (us), median of repeats'\nset title ");
    gp_string(g, title);
    fprintf(g, " noenhanced\n");
    plot_xtics(g, s, ns, coll);
    snprintf(stem, sizeof stem, "plot-%s", coll);
    plot_outputs(g, stem, times);
    snprintf(title, sizeof title, "%s: %s time / arm time, above 1 = the arm is faster (%s)", coll,
             base, rd->host);
    fprintf(g, "unset logscale y\nset ylabel 'time of %s / time of the arm'\nset title ", base);
    gp_string(g, title);
    fprintf(g, " noenhanced\n");
    snprintf(stem, sizeof stem, "plot-%s-ratio", coll);
    plot_outputs(g, stem, ratios);
  }
  free(times);
  free(ratios);
  return !g || fclose(g) ? -1 : 0;
}

/* gnuplot's messages (its log in the staging directory), indented, after a failure. */
static void print_gnuplot_log(const struct stage *st, FILE *log) {
  char buf[2048];
  int fd = log ? openat(st->tfd, "gnuplot.log", O_RDONLY | O_NOFOLLOW | O_CLOEXEC) : -1;
  ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
  if (fd >= 0) close(fd);
  if (n <= 0) return;
  buf[n] = 0;
  for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
    fprintf(log, "  gnuplot: %s\n", txt(line));
}

/* Runs gnuplot on a script inside the staging directory. Returns 0 drawn, 1 gnuplot
 * missing, -1 failed. */
static int run_gnuplot(const struct stage *st, const char *rundir, const char *script, FILE *log) {
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    if (fchdir(st->tfd)) _exit(126);
    /* gnuplot's own warnings (an arm without points, say) stay in its log, not on the terminal */
    int null = open("/dev/null", O_WRONLY);
    int err =
      openat(st->tfd, "gnuplot.log", O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (null >= 0) dup2(null, 1);
    if (err >= 0) dup2(err, 2);
    execlp("gnuplot", "gnuplot", script, (char *)NULL);
    _exit(errno == ENOENT ? 127 : 126);
  }
  int status;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127) return 1;
  if (!WIFEXITED(status) || WEXITSTATUS(status)) {
    if (log) fprintf(log, "nccl-numa report: gnuplot failed on %s/%s\n", rundir, script);
    print_gnuplot_log(st, log);
    return -1;
  }
  return 0;
}

/* Moves one collective's plot files into place; those gnuplot did not draw are skipped. */
static int commit_plot(const struct stage *st, const char *coll) {
  static const char *const ext[] = {"dat", "gp", "png", "svg", "ratio.png", "ratio.svg"};
  int rc = 0;
  for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++) {
    char name[128];
    snprintf(name, sizeof name, "plot-%s%s%s", coll, i < 4 ? "." : "-", ext[i]);
    if (stage_commit(st, name) && errno != ENOENT) rc = -1;
  }
  return rc;
}

static void draw_plots(struct nn_strbuf *t, const struct stage *st, const struct nn_rundir *rd,
                       const struct nn_series *s, int ns, const char **colls, int nc,
                       const char *base, FILE *log) {
  int missing = 0;
  for (int c = 0; c < nc; c++) {
    char script[128];
    snprintf(script, sizeof script, "plot-%s.gp", colls[c]);
    if (write_plot_data(st, rd, s, ns, colls[c]) ||
        write_plot_script(st, rd, s, ns, colls[c], base)) {
      nn_strbuf_printf(t, "\nPlot files for %s could not be written: %s\n", colls[c],
                       strerror(errno));
      continue;
    }
    int rc = run_gnuplot(st, rd->path, script, log);
    if (rc == 1) missing = 1;
    else if (rc < 0)
      nn_strbuf_printf(t, "\ngnuplot failed on %s: no plot for %s\n", script, colls[c]);
    if (commit_plot(st, colls[c]))
      nn_strbuf_printf(t, "\nPlot files for %s could not be moved into the run directory: %s\n",
                       colls[c], strerror(errno));
  }
  if (missing)
    nn_strbuf_printf(t, "\ngnuplot is not installed: the plots were not drawn. Install it and run "
                        "`gnuplot plot-COLL.gp` inside the run directory.\n");
}

/* NCCL's predicted choice beside the measurements (costmeasure.h). */
static void cost_section(struct nn_strbuf *t, const struct nn_rundir *rd, const struct nn_series *s,
                         int ns, const char *const *colls, int nc) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f) {
    t->oom = 1;
    return;
  }
  nn_costmeasure_report_section(f, rd, s, ns, colls, nc);
  char *line = fclose(f) == 0 && buf ? malloc(4 * len + 1) : NULL;
  /* it quotes what NCCL logged (runs/probe.out): each line made printable, as txt() does */
  for (size_t at = 0, n; line && at < len; at += n + 1) {
    n = strcspn(buf + at, "\n");
    nn_strbuf_printf(t, "%s\n", nn_printable(line, 4 * len + 1, buf + at, n, NULL));
  }
  if (!line) t->oom = 1;
  free(line);
  free(buf);
}

static int build_report(struct nn_strbuf *t, const struct stage *st, const struct nn_rundir *rd,
                        int plots, FILE *log, char *err, size_t errsz) {
  struct nn_series *s = NULL;
  int ns = 0;
  if (nn_rundir_series(rd, log, &s, &ns, err, errsz)) return -1;
  const char *colls[MAX_COLLS];
  int nc = list_colls(rd, colls);
  header(t, rd, s, ns);
  const char *base = baseline_arm(rd);
  for (int c = 0; c < nc; c++) coll_table(t, rd, s, ns, colls[c], base, plots);
  cost_section(t, rd, s, ns, colls, nc);
  int failed_runs = 0;
  for (int i = 0; i < ns; i++) failed_runs += s[i].n_failed_runs;
  if (failed_runs)
    nn_strbuf_printf(t,
                     "\n%d run(s) failed (non-zero exit or unreadable output); see runs.tsv and "
                     "runs/*.out.\n",
                     failed_runs);
  if (plots) draw_plots(t, st, rd, s, ns, colls, nc, base, log);
  nn_rundir_series_free(s, ns);
  if (t->oom) nn_errbuf_set(err, errsz, "%s: out of memory while building the report", rd->path);
  return t->oom ? -1 : 0;
}

/* report.md: staged, then renamed into place. */
static int write_report_md(const struct stage *st, const char *rundir, const struct nn_strbuf *t,
                           char *err, size_t errsz) {
  FILE *f = stage_file(st, "report.md");
  int bad = !f || fwrite(t->s, 1, t->len, f) != t->len;
  if (f && fclose(f)) bad = 1;
  if (!bad && stage_commit(st, "report.md")) bad = 1;
  if (bad) nn_errbuf_set(err, errsz, "%s/report.md: cannot write: %s", rundir, strerror(errno));
  return bad ? -1 : 0;
}

int nn_report_write(const char *rundir, int plots, FILE *out, FILE *log, char *err, size_t errsz) {
  struct nn_rundir rd;
  if (nn_rundir_read(rundir, &rd, err, errsz)) return -1;
  struct stage st;
  if (stage_open(&st, rundir, err, errsz)) {
    nn_rundir_free(&rd);
    return -1;
  }
  struct nn_strbuf t = {0}; /* built once, then written twice */
  int rc = build_report(&t, &st, &rd, plots, log, err, errsz);
  if (!rc) rc = write_report_md(&st, rundir, &t, err, errsz);
  if (!rc && out) fwrite(t.s, 1, t.len, out);
  stage_close(&st);
  free(t.s);
  nn_rundir_free(&rd);
  return rc;
}
