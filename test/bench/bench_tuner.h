/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_tuner.h - what the files of bench_tuner share: the rules and calls it feeds the
 * tuners (bench_rules.c, with the comparison tuners), the timed loop, the verification and the
 * report of the rule-count benchmark (bench_tuner.c), the random layouts (bench_layouts.c). */
#ifndef NCCL_NUMA_BENCH_TUNER_H
#define NCCL_NUMA_BENCH_TUNER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "nccl_abi.h"

/* Instruction counts (-I, under valgrind --tool=callgrind): deterministic where timings on a
 * shared VM are not. Without the header the client requests compile to nothing. */
#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define BENCH_HAVE_CALLGRIND 1
#endif
#endif
#ifndef BENCH_HAVE_CALLGRIND
#define CALLGRIND_ZERO_STATS
#define CALLGRIND_DUMP_STATS_AT(s) ((void)(s))
#endif

#define NA NN_NCCL_NUM_ALGORITHMS
#define NP NN_NCCL_NUM_PROTOCOLS
#define CALLS_MASK 4095u /* workload length - 1 (a power of two) */
#define N_RULE_COUNTS 5
#define MAX_RUNS 101
#define RANKS 4
#define NODES 1
#define ANY (-1)

/* The benchmark's own view of a rule: the reference scan reads these, and the config
 * file handed to the plugin is printed from them. */
struct bench_rule {
  int coll;
  uint64_t lo, hi;         /* inclusive; hi UINT64_MAX = open */
  long ranks_lo, ranks_hi; /* ANY hi = open */
  long nodes_lo, nodes_hi;
  int algo, proto, channels;
};

/* Colls that get rules; reduce (1) gets none and makes the non-matching calls. */
extern const int rule_colls[4];
extern const char *const coll_name[5];

void set_conditions(struct bench_rule *x, int j);
struct bench_rule *make_rules(int n);
int write_config(const char *path, const struct bench_rule *r, int n, long serial);

/* The comparison tuners (bench_rules.c): "linear" scans the rules ref_rules_use named. */
extern const nn_ncclTuner_v5_t ref_tuner, floor_tuner;
void ref_rules_use(const struct bench_rule *rules, int n);

enum { Q_POW2, Q_BETWEEN, Q_EDGES, N_QUERIES }; /* the random layouts' kinds of query */
enum { N_LAYOUTS = 5 };

struct call {
  int coll;
  size_t bytes;
};

struct stat_line {
  double median, lo, hi;
};

struct opts {
  const char *lib;
  int runs;
  long calls;
  int cycles;
  int instr;     /* -I: one callgrind dump per tuner and workload, no timing */
  int check;     /* -Q: verify every rule count, time one row, no targets */
  uint64_t seed; /* -s: of the random layouts */
};

/* One layout and query kind: calls a rule decided; ns per call of the layout's
 * communicator, the 1-rule one (over its own calls) and the floor, in alternate runs; and
 * per run, the layout's time over the floor's and over the 1-rule one's. */
struct layout_row {
  int decided;
  struct stat_line st[3];
  struct stat_line per_floor, per_one;
};

/* A workload kept with its live communicator, to be timed again beside another. */
struct kept {
  void *ctx;
  struct call calls[CALLS_MASK + 1];
  float tmpl[CALLS_MASK + 1][NA][NP];
};

struct bench {
  struct opts o;
  const nn_ncclTuner_v5_t *ours;
  char dir[64];
  char path[128];
  struct call calls[CALLS_MASK + 1];
  float tmpl[CALLS_MASK + 1][NA][NP];
  double call_ns[N_RULE_COUNTS][2][3]; /* [rules][match][ours, linear, floor] medians */
  struct stat_line call_st[N_RULE_COUNTS][2][3];
  struct stat_line init_cached[N_RULE_COUNTS], init_reread[N_RULE_COUNTS];
  double mem_comm[N_RULE_COUNTS], mem_policy[N_RULE_COUNTS], mem_version[N_RULE_COUNTS];
  long serial;                    /* files written so far */
  struct kept one_rule[2];        /* [match]: the 1-rule communicator and its calls */
  struct stat_line pair_st[2][2]; /* [match][1 rule, 1000 rules], interleaved runs */
  struct layout_row lay[N_LAYOUTS][N_QUERIES];
};

__attribute__((format(printf, 1, 2))) int fail(const char *fmt, ...);
void fill_table(float t[NA][NP], size_t n_bytes);
double time_calls(const nn_ncclTuner_v5_t *volatile *tuner, void *ctx, const struct call *calls,
                  long n_calls, float tmpl[][NA][NP]);
struct stat_line summarize(double *v, int n);
double spread_pct(const struct stat_line *s);
int verify_calls(struct bench *b, void *ours_ctx, void *ref_ctx, const char *what);
int init_pair(struct bench *b, void **ours_ctx, void **ref_ctx, int n_rules);

/* The random layouts (bench_layouts.c): layout li verified, then timed or counted; its table;
 * the verdict on its worst row (returns the number of targets missed). */
int bench_layout(struct bench *b, int li);
void print_layout_table(const struct bench *b);
int print_layout_verdict(const struct bench *b);

#endif
