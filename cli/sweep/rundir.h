/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rundir.h - the directory a measurement run (`ab`, `calibrate`) writes and
 * `report` / `calibrate --from` read back.
 *
 * Layout of RUNDIR:
 *   meta           "key value" lines: format, kind, host, machine, cpu, date,
 *                  command, nccl, gpus, sizes, iters, warmup, repeats, colls;
 *                  and one "arm NAME kind=K [algo=A] [proto=P] [sha256=H] [config=PATH]"
 *                  line per arm (config last: it runs to the end of the line).
 *   runs.tsv       one line per nccl-tests run, in the order run:
 *                  seq, repeat, arm, coll, exit code, seconds, output file, env file
 *   runs/NNNN-ARM-COLL.out   everything the run printed (stdout and stderr)
 *   runs/NNNN-ARM-COLL.env   the run's command line ("# command: ..."), then the part of its
 *                  environment that bears on the measurement (abenv.h, nn_abenv_recorded),
 *                  one NAME=value a line; never the rest (tokens, keys)
 *   report.md, plot-COLL.{png,svg,dat,gp}   written by `report`
 *
 * A sweep makes the directory 0700 and writes into it only through the descriptor it opened
 * right after making it (dir_fd), every file new (O_EXCL, never through a link) and 0600:
 * the runs' environments are the operator's, and nobody else may read or redirect them.
 */
#ifndef NCCL_NUMA_CLI_RUNDIR_H
#define NCCL_NUMA_CLI_RUNDIR_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define NN_ARM_NAME_MAX 32
#define NN_MAX_ARMS 32
#define NN_RUN_MAX_REPEATS 1000

enum nn_arm_kind { NN_ARM_STOCK = 0, NN_ARM_NUMA, NN_ARM_FORCED };

struct nn_arm {
  char name[NN_ARM_NAME_MAX];
  int kind;                 /* enum nn_arm_kind */
  char algo[24], proto[16]; /* forced NCCL_ALGO / NCCL_PROTO, "" when not forced */
  char sha256[65];          /* of the config file, "" when none */
  char *config;             /* absolute path of the mapping, NULL when none */
};

struct nn_run_rec {
  int seq, repeat;
  char arm[NN_ARM_NAME_MAX];
  char coll[32];
  int rc; /* exit status; 128+N for signal N; -1 could not start */
  double seconds;
  char out[128], env[128]; /* relative to the run directory */
};

struct nn_rundir {
  char *path;
  int dir_fd;    /* the directory, opened once by nn_abdir_create; 0 when not open
                  * (a descriptor below 3 is never kept); nn_rundir_free closes it */
  char kind[16]; /* "ab" or "calibrate" */
  char host[128], machine[256], cpu[128], date[64];
  char nccl[32]; /* NCCL version the runs reported, "" unknown (nn_rundir_nccl_code) */
  char command[1024];
  int gpus, repeats, iters, warmup;
  char sizes[64]; /* "-b 8 -e 256M -f 2" as given */
  struct nn_arm arms[NN_MAX_ARMS];
  int n_arms;
  struct nn_run_rec *runs;
  int n_runs;
};

/* One size of one arm and collective, over all its runs. */
struct nn_point {
  uint64_t size;
  double *times;           /* out-of-place times (us) of the good runs */
  int n_ok;                /* good values */
  int n_bad;               /* rows with #wrong > 0 or a bad time; for a forced arm also
                            * rows whose #wrong is N/A (nccl-tests ran with -c 0) */
  int failed;              /* some run did not give a good value: never a speed result */
  double median, min, max; /* of times, when n_ok > 0 */
  int n_wrong;             /* rows whose correctness check found wrong results */
  int n_unchecked;         /* rows of a forced arm without a correctness check (#wrong N/A) */
};

struct nn_series {
  char arm[NN_ARM_NAME_MAX];
  char coll[32];
  int n_runs;           /* runs of this arm and collective */
  int n_failed_runs;    /* non-zero exit or unreadable output */
  int ranks;            /* ranks the runs reported (largest), 0 unknown */
  char device[96];      /* GPU model rank 0 reported */
  char nccl[32];        /* NCCL version the runs reported */
  struct nn_point *pts; /* sorted by size */
  int n_pts;
};

/* Whether a name from a run directory (arm, collective, one part of a file name) is
 * safe in a file name and a gnuplot string: letters, digits, '_', '.', '-', not "."
 * or "..". */
int nn_rundir_name_ok(const char *s);

/* Reads meta and runs.tsv (a run directory is untrusted input: regular files only,
 * never through a link, bounded; names as nn_rundir_name_ok; output files inside the
 * directory). Returns 0, or -1 with a message in err. */
int nn_rundir_read(const char *path, struct nn_rundir *rd, char *err, size_t errsz);
/* Frees what nn_rundir_read (or the writer) allocated. */
void nn_rundir_free(struct nn_rundir *rd);
/* How nn_rundir_openat opens a file of a run directory. */
enum nn_rundir_open {
  NN_RUNDIR_NEW,    /* created, never there before (O_EXCL) */
  NN_RUNDIR_APPEND, /* appended to; created first when missing */
  NN_RUNDIR_REWRITE /* emptied and written; created first when missing */
};
/* Opens `name` (relative) for writing inside the run directory open as dir_fd, never
 * through a link, close-on-exec; a file it creates is 0600 whatever the umask. Only our
 * own files can be there (the directory is 0700, reached by its descriptor), so an
 * existing one is appended or rewritten. Returns the descriptor, or -1 (errno set). */
int nn_rundir_openat(int dir_fd, const char *name, enum nn_rundir_open how);
/* nn_rundir_openat as a stdio stream ("a" when appending, else "w"), or NULL. */
FILE *nn_rundir_fopen(int dir_fd, const char *name, enum nn_rundir_open how);
/* Writes rd's meta file into the run directory (rd->dir_fd). Returns 0 or -1 (errno set). */
int nn_rundir_write_meta(const struct nn_rundir *rd);
/* Appends one run to runs.tsv. Returns 0 or -1. */
int nn_rundir_append_run(const struct nn_rundir *rd, const struct nn_run_rec *run);
/* The arm named `name`, or NULL. */
const struct nn_arm *nn_rundir_arm(const struct nn_rundir *rd, const char *name);

/* Parses every run's output and groups the out-of-place times by arm,
 * collective and size. A forced arm's row counts only with nccl-tests'
 * correctness check on: forcing an algorithm or protocol can give wrong
 * results, so a row whose #wrong is N/A fails it. Problems with single runs (missing or truncated
 * output) are reported on `log` (may be NULL) and count as failed runs; an
 * output that is a link, a FIFO, a device or oversized refuses the whole run
 * directory. Returns 0 with *out (n_out entries, in arm then collective
 * order), or -1 with the reason in err. */
int nn_rundir_series(const struct nn_rundir *rd, FILE *log, struct nn_series **out, int *n_out,
                     char *err, size_t errsz);
void nn_rundir_series_free(struct nn_series *s, int n);
/* The series of one arm and collective, or NULL. */
const struct nn_series *nn_rundir_series_find(const struct nn_series *s, int n, const char *arm,
                                              const char *coll);
/* The point of a size in a series, or NULL. */
const struct nn_point *nn_rundir_series_point(const struct nn_series *s, uint64_t size);
/* Every size measured for `coll` by the series `keep` accepts (all of them
 * when keep is NULL; keep gets arg), ascending, each once. Returns a malloc'd
 * array (caller frees) of *n_out sizes, or NULL when out of memory. */
uint64_t *nn_rundir_series_sizes(const struct nn_series *s, int n, const char *coll,
                                 int (*keep)(const struct nn_series *, const void *),
                                 const void *arg, int *n_out);

/* Median of n values (sorted copy); NAN when n == 0. */
double nn_rundir_median(const double *v, int n);

/* Parses "8", "64K", "256M", "1G" (powers of 1024). Returns 0 or -1. */
int nn_rundir_size_parse(const char *s, uint64_t *out);
/* A comma-separated list of such sizes, each in [lo, hi], at most max of them, into out.
 * Returns the count, or -1 (an empty list, a bad size, one out of range, too many). */
int nn_rundir_size_list(const char *list, uint64_t lo, uint64_t hi, uint64_t *out, int max);

/* The version code of rd->nccl (nn_nccl_version_parse), 0 when unknown or not a version. */
int nn_rundir_nccl_code(const struct nn_rundir *rd);

#endif
