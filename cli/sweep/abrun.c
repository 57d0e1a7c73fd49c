/* SPDX-License-Identifier: BSD-3-Clause */
/* abrun.c - the A/B harness over nccl-tests (and the run engine of calibrate); its options
 * are abrun_opts.c's. */
#include "cli/sweep/abrun.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/common/monotonic.h"
#include "cli/common/supervise.h"
#include "cli/predict/ncclver.h"
#include "cli/sweep/nccltests.h"
#include "nccl_model.h"
#include "errbuf.h"
#include "fileread.h"
#include "nn_config.h"
#include "numparse.h"

extern char **environ;

/* ---------- running ---------- */

static char *find_binary(const char *dir, const char *coll) {
  static const char *const subdirs[] = {"", "/build"};
  for (size_t i = 0; dir && i < sizeof subdirs / sizeof subdirs[0]; i++) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s%s/%s_perf", dir, subdirs[i], coll);
    if (!access(path, X_OK)) return strdup(path);
  }
  return NULL;
}

/* The command of one collective's runs, without the size and iteration options:
 * --bench-cmd's words, else nccl-tests' COLL_perf. NULL-terminated, free with
 * nn_abenv_free; NULL when there is none (err says why). */
static char **bench_argv(const struct nn_ab_opts *o, const char *coll, char *err, size_t errsz) {
  if (o->bench_cmd) {
    char **av = nn_ab_bench_words(o->bench_cmd, coll);
    if (av && av[0] && !access(av[0], X_OK)) return av;
    nn_errbuf_set(err, errsz, "--bench-cmd '%s': %s", o->bench_cmd,
                  !av      ? "out of memory"
                  : !av[0] ? "empty command"
                           : "the first word is not an executable path");
    nn_abenv_free(av);
    return NULL;
  }
  char *bin = find_binary(o->tests_dir, coll);
  char **av = bin ? calloc(2, sizeof *av) : NULL;
  if (av) {
    av[0] = bin;
    return av;
  }
  free(bin);
  nn_errbuf_set(err, errsz,
                "no executable %s_perf in %s or %s/build "
                "(build nccl-tests: make MPI=0 NCCL_HOME=..., or give --bench-cmd)",
                coll, o->tests_dir ? o->tests_dir : "?", o->tests_dir ? o->tests_dir : "?");
  return NULL;
}

/* runs/NNNN-ARM-COLL.env: the command line, then what of the environment bears on the
 * measurement (nn_abenv_recorded); never the rest of the operator's environment. */
static int write_env_file(const struct nn_rundir *rd, const char *name, char **av, char **env) {
  FILE *f = nn_rundir_fopen(rd->dir_fd, name, NN_RUNDIR_NEW);
  if (!f) return -1;
  fputs("# command:", f);
  for (char **a = av; *a; a++) fprintf(f, " %s", *a);
  fputc('\n', f);
  for (char **e = env; *e; e++)
    if (nn_abenv_recorded(*e)) fprintf(f, "%s\n", *e);
  return fclose(f);
}

/* ---------- the benchmark under the supervisor ---------- */

/* Runs argv with env, its output into out_fd (at most NN_SUP_CAP bytes, then a line saying
 * what was dropped); returns the exit code (128+signal, 124 on timeout, 127 when it could
 * not start). Its processes, whatever group or session they move to, end with it or at the
 * timeout (supervise.h). SIGINT, SIGTERM or SIGHUP meanwhile end the benchmark's group, then
 * this process by the same signal. */
static int spawn(char **argv, char **env, int out_fd, int timeout_s, FILE *progress) {
  struct nn_sup_job job = {.argv = argv, .env = env, .sink_fd = out_fd, .deadline_s = timeout_s};
  struct nn_sup_result res;
  char err[128];
  if (nn_supervise(&job, &res, err, sizeof err)) {
    fprintf(progress, "nccl-numa: cannot run %s: %s\n", argv[0], err);
    return 127;
  }
  if (res.end == NN_SUP_STOPPED) {
    fprintf(stderr, "nccl-numa: %s: the benchmark's process group is ended; stopping\n",
            strsignal(res.signal));
    nn_supervise_raise(res.signal); /* exit as the signal asked */
  }
  if (res.unkillable)
    fprintf(progress,
            "nccl-numa: %d of the benchmark's processes still there after SIGKILL "
            "(unkillable: in the kernel, a driver call?); going on\n",
            res.unkillable);
  return nn_supervise_exit_code(&res);
}

/* Runs one benchmark command, through the launcher when there is one. */
static int run_cmd(const struct nn_ab_opts *o, char **av, char **env, int out_fd) {
  if (!o->launch.style) return spawn(av, env, out_fd, o->timeout_s, o->progress);
  char err[256];
  char **lav = nn_launcher_argv(&o->launch, env, av, err, sizeof err);
  if (!lav) { /* this run fails; the progress line says so */
    fprintf(o->progress, "nccl-numa: --launcher: %s\n", err);
    return 127;
  }
  int rc = spawn(lav, env, out_fd, o->timeout_s, o->progress);
  nn_launcher_argv_free(lav);
  return rc;
}

/* Runs one benchmark command with its output into the new file `name` of the run directory. */
static int run_into(const struct nn_rundir *rd, const struct nn_ab_opts *o, char **av, char **env,
                    const char *name) {
  int fd = nn_rundir_openat(rd->dir_fd, name, NN_RUNDIR_NEW);
  if (fd < 0) {
    fprintf(o->progress, "nccl-numa %s: cannot create %s/%s: %s\n", rd->kind, rd->path, name,
            strerror(errno));
    return 127;
  }
  int rc = run_cmd(o, av, env, fd);
  close(fd);
  return rc;
}

/* With a launcher: which host ran which rank, into RUNDIR/placement.tsv and the progress. */
static void record_placement(const struct nn_rundir *rd, const struct nn_ab_opts *o,
                             const char *out, const struct nn_run_rec *rec) {
  char where[512];
  int n = nn_launcher_record(rd->dir_fd, out, rec->arm, rec->seq, rec->coll, where, sizeof where);
  if (n < 0)
    fprintf(o->progress, "nccl-numa %s: cannot record the placement of %s\n", rd->kind, out);
  else if (n == 0) fprintf(o->progress, "nccl-numa %s:   no rank lines in %s\n", rd->kind, out);
  else fprintf(o->progress, "nccl-numa %s:   %d ranks: %s\n", rd->kind, n, where);
}

/* argv for one nccl-tests run; returns the count. */
static int build_argv(char **av, int cap, char **cmd, const struct nn_ab_opts *o, int probe,
                      char num[3][16]) {
  int n = 0;
  while (cmd && *cmd && n < cap - 16) av[n++] = *cmd++;
  snprintf(num[0], 16, "%d", o->gpus);
  snprintf(num[1], 16, "%d", probe ? 1 : o->iters);
  snprintf(num[2], 16, "%d", probe ? 0 : o->warmup);
  av[n++] = "-b";
  av[n++] = (char *)(probe ? "8" : o->minb);
  av[n++] = "-e";
  av[n++] = (char *)(probe ? "8" : o->maxb);
  av[n++] = "-f";
  av[n++] = (char *)o->factor;
  av[n++] = "-g";
  av[n++] = num[0];
  av[n++] = "-n";
  av[n++] = num[1];
  av[n++] = "-w";
  av[n++] = num[2];
  for (int i = 0; i < o->n_extra && n < cap - 1; i++) av[n++] = o->extra[i];
  av[n] = NULL;
  return n;
}

/* Finds the NCCL version a run printed. */
static int version_in_output(const char *path, char *text, size_t size) {
  char *buf = NULL;
  size_t n = 0;
  /* the head of the output is enough: the version is printed first */
  FILE *f = nn_file_fopen(path, 0, NN_FILE_ANY_SIZE); /* a bounded part is read */
  if (f) {
    buf = malloc(1 << 20);
    n = buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
    fclose(f);
  }
  if (!buf) return 0;
  buf[n] = 0;
  struct nn_nccltests_result r;
  char err[128];
  int code = 0;
  if (!nn_nccltests_parse(buf, n, &r, err, sizeof err)) {
    code = r.nccl_code;
    nn_nccltests_free(&r);
  }
  const char *p = strstr(buf, "NCCL version ");
  if (!code && p) code = nn_nccl_version_parse_word(p + strlen("NCCL version "));
  p = strstr(buf, "nccl-library="); /* the header of nccl-tests >= 2.17, even when the run failed */
  if (!code && p) nn_int_parse_prefix(p + strlen("nccl-library="), 0, INT_MAX, &code, NULL);
  if (!nn_nccl_version_plausible(code)) code = 0;
  free(buf);
  if (code) nn_nccl_version_format(code, text, size);
  return code;
}

/* The probe's environment: stock (or with config, the served topology but no
 * tuner); for `tuning` NCCL's INFO log of the tuning table, with no forced
 * algorithm or protocol so that the table shows what NCCL itself enables. */
static char **probe_env(const struct nn_ab_opts *o, const char *config, int tuning) {
  struct nn_arm arm = {.name = "probe", .kind = NN_ARM_STOCK};
  if (config && o->plugin) {
    arm.kind = NN_ARM_FORCED;
    arm.config = (char *)config;
  }
  char **env = nn_abenv_arm(environ, &arm, o->plugin, 0);
  if (!env) return NULL;
  nn_abenv_unset(env, "NCCL_TUNER_PLUGIN"); /* safe on every version */
  nn_abenv_unset(env, "NCCL_ALGO");
  nn_abenv_unset(env, "NCCL_PROTO");
  if (tuning) {
    if (nn_abenv_set(env, "NCCL_DEBUG", "INFO") ||
        nn_abenv_set(env, "NCCL_DEBUG_SUBSYS", "TUNING")) {
      nn_abenv_free(env);
      return NULL;
    }
  } else if (nn_abenv_set(env, "NCCL_DEBUG", "VERSION")) {
    nn_abenv_free(env);
    return NULL;
  }
  return env;
}

static int probe_with(struct nn_rundir *rd, struct nn_ab_opts *o, char **bin, const char *config,
                      int tuning, char *out, size_t out_size) {
  char **env = probe_env(o, config, tuning);
  if (!env) return -1;
  char *av[NN_AB_MAX_EXTRA + 16], num[3][16];
  build_argv(av, NN_AB_MAX_EXTRA + 16, bin, o, 1, num);
  snprintf(out, out_size, "%s/runs/probe.out", rd->path);
  int rc = run_into(rd, o, av, env, "runs/probe.out");
  nn_abenv_free(env);
  o->probed = 1;
  if (o->nccl_code) return rc;
  o->nccl_code = version_in_output(out, rd->nccl, sizeof rd->nccl);
  if (!o->nccl_code)
    fprintf(o->progress,
            "nccl-numa %s: could not read NCCL's version from a probe run "
            "(exit %d, %s); assuming >= 2.28 (stock arm: NCCL_TUNER_PLUGIN=none). "
            "Give --nccl-version to be exact.\n",
            rd->kind, rc, out);
  else fprintf(o->progress, "nccl-numa %s: NCCL %s\n", rd->kind, rd->nccl);
  return rc;
}

int nn_ab_probe(struct nn_rundir *rd, struct nn_ab_opts *o, const char *config, int tuning,
                char *out, size_t out_size, char *err, size_t errsz) {
  char **bin = bench_argv(o, o->n_colls > 0 ? o->colls[0] : "all_reduce", err, errsz);
  if (!bin) return -1;
  int rc = probe_with(rd, o, bin, config, tuning, out, out_size);
  if (rc < 0) nn_errbuf_set(err, errsz, "cannot run the probe (out of memory)");
  nn_abenv_free(bin);
  return rc;
}

/* The first error line of a failed run's output (else its last line), for the progress line. */
static void last_line(const char *path, char *buf, size_t size) {
  FILE *f = nn_file_fopen(path, 0, NN_FILE_ANY_SIZE); /* a bounded part is read */
  char line[512];
  int found = 0;
  if (!f) return;
  while (!found && fgets(line, sizeof line, f)) {
    line[strcspn(line, "\r\n")] = 0;
    const char *p = line + strspn(line, " \t#.");
    if (!*p) continue;
    found = strcasestr(p, "error") || strcasestr(p, "failure") || strstr(p, "WARN");
    snprintf(buf, size, "%s", p);
  }
  fclose(f);
}

static int run_one(struct nn_rundir *rd, const struct nn_ab_opts *o, char **bin, const char *coll,
                   const struct nn_arm *arm, int seq, int repeat, int total, char *err,
                   size_t errsz) {
  struct nn_run_rec rec = {.seq = seq, .repeat = repeat};
  snprintf(rec.arm, sizeof rec.arm, "%s", arm->name);
  snprintf(rec.coll, sizeof rec.coll, "%s", coll);
  snprintf(rec.out, sizeof rec.out, "runs/%04d-%s-%s.out", seq, arm->name, coll);
  snprintf(rec.env, sizeof rec.env, "runs/%04d-%s-%s.env", seq, arm->name, coll);
  char out[PATH_MAX], envp[PATH_MAX];
  snprintf(out, sizeof out, "%s/%s", rd->path, rec.out);
  snprintf(envp, sizeof envp, "%s/%s", rd->path, rec.env);
  char *av[NN_AB_MAX_EXTRA + 16], num[3][16];
  build_argv(av, NN_AB_MAX_EXTRA + 16, bin, o, 0, num);
  char **env = nn_abenv_arm(environ, arm, o->plugin, o->nccl_code);
  if (!env || write_env_file(rd, rec.env, av, env)) {
    nn_abenv_free(env);
    nn_errbuf_set(err, errsz, "cannot write %s: %s", envp, env ? strerror(errno) : "out of memory");
    return -1;
  }
  double t0 = nn_monotonic_s();
  rec.rc = run_into(rd, o, av, env, rec.out);
  rec.seconds = nn_monotonic_s() - t0;
  nn_abenv_free(env);
  if (nn_rundir_append_run(rd, &rec)) {
    nn_errbuf_set(err, errsz, "cannot append to %s/runs.tsv", rd->path);
    return -1;
  }
  char last[160] = "";
  if (rec.rc) last_line(out, last, sizeof last);
  fprintf(o->progress, "nccl-numa %s: [%d/%d] repeat %d/%d %-14s %-12s %s %.1f s%s%s%s\n", rd->kind,
          seq, total, repeat, o->repeats, coll, arm->name, rec.rc ? "FAILED" : "ok", rec.seconds,
          rec.rc == 124 ? " (timed out)" : "", last[0] ? ": " : "", last);
  if (o->launch.style) record_placement(rd, o, out, &rec);
  return rec.rc ? 1 : 0;
}

int nn_ab_execute(struct nn_rundir *rd, struct nn_ab_opts *o, char *err, size_t errsz) {
  char **bins[NN_AB_MAX_COLLS] = {0};
  int rc = -1, failed = 0;
  nn_errbuf_set(err, errsz, "no collective to run"); /* the option parser never leaves none */
  if (o->n_colls < 1) return -1;
  for (int c = 0; c < o->n_colls; c++) {
    if (!(bins[c] = bench_argv(o, o->colls[c], err, errsz))) goto out;
  }
  nn_errbuf_set(err, errsz, "cannot run the probe (out of memory)");
  char probe_out[PATH_MAX];
  /* ab's version probe logs NCCL's tuning table too: report predicts NCCL's choice from it
   * (calibrate's own probe does that; with --algos/--protos it wants none) */
  if (!o->nccl_code && !o->probed &&
      probe_with(rd, o, bins[0], NULL, !strcmp(rd->kind, "ab"), probe_out, sizeof probe_out) < 0)
    goto out;
  if (o->nccl_code && !rd->nccl[0]) nn_nccl_version_format(o->nccl_code, rd->nccl, sizeof rd->nccl);
  if (nn_nccl_lacks_env_plugin(o->nccl_code))
    for (int a = 0; a < rd->n_arms; a++)
      if (rd->arms[a].config) {
        char since[16];
        nn_nccl_env_plugin_since(since, sizeof since);
        fprintf(o->progress,
                "nccl-numa %s: NCCL %s has no env plugin (%s+): arm %s gets "
                "the tuner only, no served topology\n",
                rd->kind, rd->nccl, since, rd->arms[a].name);
        break;
      }
  if (nn_rundir_write_meta(rd)) {
    nn_errbuf_set(err, errsz, "cannot write %s/meta", rd->path);
    goto out;
  }
  if (o->launch.style && nn_launcher_write(&o->launch, rd->dir_fd)) {
    nn_errbuf_set(err, errsz, "cannot write %s/launch", rd->path);
    goto out;
  }
  int total = o->repeats * o->n_colls * rd->n_arms, seq = 0;
  for (int r = 1; r <= o->repeats; r++)
    for (int c = 0; c < o->n_colls; c++)
      for (int a = 0; a < rd->n_arms; a++) {
        int x = run_one(rd, o, bins[c], o->colls[c], &rd->arms[a], ++seq, r, total, err, errsz);
        if (x < 0) goto out;
        failed += x;
      }
  rc = failed;
out:
  for (int c = 0; c < o->n_colls; c++) nn_abenv_free(bins[c]);
  return rc;
}
