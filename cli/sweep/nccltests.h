/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nccltests.h - reading the results of one nccl-tests run.
 *
 * Two inputs are understood:
 *  - the text every nccl-tests release prints on stdout: header lines starting
 *    with '#', then one row per size: size, count, type, redop, [root], then
 *    time/algbw/busbw/#wrong (or a float `error` in old releases) for the
 *    out-of-place run and again for the in-place run, possibly followed by
 *    per-iteration columns and a timestamp. NCCL's own log lines (NCCL INFO,
 *    WARN, "NCCL version ...") may be interleaved anywhere; lines may be indented.
 *  - the JSON document written by `-J FILE` (nccl-tests >= 2.17.3): an object
 *    with "nccl_version", "config" {"nthreads", "ngpus", "devices": [...]},
 *    "results": [{"size", "count", "type", "redop", "root", "out_of_place":
 *    {"time"|"cpu_time", "alg_bw", "bus_bw", "nwrong"}, "in_place": {...}}],
 *    "out_of_bounds" {"count"}.
 *
 * The parser is a pure function over a buffer (no I/O, no global state), so a
 * fuzzer can drive it directly.
 */
#ifndef NCCL_NUMA_CLI_NCCLTESTS_H
#define NCCL_NUMA_CLI_NCCLTESTS_H

#include <stddef.h>
#include <stdint.h>

#define NN_NT_MAX_ROWS 4096
#define NN_NT_MAX_DEVICES 256

/* Results of one direction (out-of-place or in-place) of one size. */
struct nn_nccltests_measure {
  int present; /* 0: the run printed nothing for this direction */
  double time_us;
  double algbw, busbw; /* GB/s */
  int wrong_known;     /* 0 when #wrong was N/A (-c 0) */
  double wrong;        /* #wrong count, or the old float error */
  int failed;          /* #wrong > 0, error above tolerance, or a non-finite time */
};

struct nn_nccltests_row {
  uint64_t size; /* bytes, the same quantity as the tuner's nBytes */
  uint64_t count;
  char type[16];
  char redop[16];
  int root; /* -1 when absent or not applicable */
  struct nn_nccltests_measure oop, inplace;
  int line; /* line of the row in the text (0 for JSON) */
};

struct nn_nccltests_result {
  int format;                    /* NN_NT_TEXT or NN_NT_JSON */
  char test_name[64];            /* e.g. "all_reduce_perf", "" when not printed */
  char tests_version[32];        /* nccl-tests version, "" when not printed */
  int nccl_code;                 /* NCCL version code (e.g. 22809), 0 when unknown */
  char nccl_version[32];         /* "2.28.9" (suffix such as +cuda12.9 dropped), "" when unknown */
  int n_threads, n_gpus;         /* from the parameter line, 0 when absent */
  int n_ranks;                   /* ranks listed under "Using devices", 0 when absent */
  int n_hosts;                   /* distinct host names among those ranks */
  char device_name[96];          /* device model of rank 0, "" when absent */
  int error_column_float;        /* the table had the old float `error` column */
  int has_root;                  /* the table had a `root` column */
  int oob_count;                 /* "Out of bounds values" count, -1 when absent */
  int concluded;                 /* a footer line ("Avg bus bandwidth" or "concluded") was seen */
  struct nn_nccltests_row *rows; /* n_rows rows, in output order; free with nn_nccltests_free */
  int n_rows;
};

#define NN_NT_TEXT 1
#define NN_NT_JSON 2

/* Parses the output of one run (text or JSON, detected from the first
 * non-blank byte). Returns 0 and fills *out (which the caller then frees
 * with nn_nccltests_free), or -1 with a message naming the line and the
 * problem in err; *out is left empty on failure. A table that stops in the
 * middle of a row, a row with missing columns, or a header with no rows are
 * errors ("truncated"). */
int nn_nccltests_parse(const char *buf, size_t len, struct nn_nccltests_result *out, char *err,
                       size_t errsz);

/* Frees what nn_nccltests_parse allocated; leaves *r empty. */
void nn_nccltests_free(struct nn_nccltests_result *r);

/* Whether a row counts as failed: either direction failed. */
int nn_nccltests_row_failed(const struct nn_nccltests_row *row);

#endif
