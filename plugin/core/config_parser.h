/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * config_parser.h - the mapping parser's state and the helpers its directive
 * modules share (private to plugin/core/config_*.c; not part of the core's API).
 *
 * config_parse.c reads a buffer line by line and hands each directive to its
 * module: config_machine.c (gpu, numa, cpu: what the machine is) and
 * config_rules.c (rule, env, model, topology, include-csv: what to change) and
 * config_p2p.c (p2p: what peer access was proven).
 * Both report through nn_perr, which counts the error and records it with the
 * file name and line, so one run shows every problem of a file.
 */
#ifndef NCCL_NUMA_CONFIG_PARSER_H
#define NCCL_NUMA_CONFIG_PARSER_H

#include <stddef.h>
#include <stdint.h>

#include "nn_config.h"
#include "snapshot.h"

#define NN_MAX_ENVS 4096
#define NN_MAX_FIELDS (NN_MAX_LINE_BYTES / 2 + 2)
#define NN_QUOTE_MAX 48
#define NN_BUS_SLOTS 4096 /* hash slots for bus ids, 4x NN_MAX_GPUS */
#define NN_ENV_SLOTS 8192 /* hash slots for env names, 2x NN_MAX_ENVS */
#define NN_CSV_SLOTS 512  /* hash slots for included files, 2x NN_MAX_INCLUDES */

#define NN_COUNT_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* A file include-csv read: its identity when read (or, when stat failed, its path), where
 * its rules went, or the line of the include that reported it bad. */
struct nn_csv_seen {
  struct nn_file_key key;
  const char *path; /* owned by the config */
  int first, n;     /* cfg->rules[first .. first + n) */
  int bad_line;     /* 0: it was read fine */
};

struct nn_parser {
  const char *name;
  const struct nn_parse_opts *opts;
  struct nn_diag *diag;
  struct nn_config *cfg;
  int line;
  int errors;
  char buf[NN_MAX_LINE_BYTES + 1];
  char *f[NN_MAX_FIELDS];
  int nf;
  char quote[4][NN_QUOTE_MAX * 4 + 8];
  int quote_next;
  /* gpu bookkeeping */
  struct nn_gpu *gpus; /* file order */
  int n_gpus, gpu_cap;
  int last_gpu_line, gpu_line_errors, gpus_over;
  unsigned char node_used[NN_MAX_NUMA_ID + 1];
  int distinct_nodes;
  int rules_cap, rules_over, envs_cap, envs_over, numas_cap;
  int cpu_line, topo_line, gpu_without_bus;
  /* nic bookkeeping (config_nic.c): lines in file order, the first line of each index */
  struct nn_nic nics[NN_MAX_NICS];
  int n_nics, last_nic_line, nic_line_errors, nics_over;
  int nic_index_line[NN_MAX_NICS];
  /* first line of each accepted value, so duplicates cost O(1) even in a
   * hostile 16 MiB file */
  int index_line[NN_MAX_GPUS];
  int numa_line[NN_MAX_NUMA_ID + 1];
  struct nn_bus_slot {
    uint64_t key; /* bus id key + 1; 0 = empty */
    int line;
  } bus_tab[NN_BUS_SLOTS], host_tab[NN_BUS_SLOTS];
  int env_tab[NN_ENV_SLOTS]; /* index into cfg->envs + 1; 0 = empty */
  /* include-csv: at most NN_MAX_INCLUDES lines; each file (by identity, however the line
   * spells it; a missing one by its path) read once per parse, found again by hash, and at
   * most NN_MAX_INCLUDE_BYTES read in all */
  int n_includes;
  struct nn_csv_seen csv_seen[NN_MAX_INCLUDES];
  int n_csv_seen;
  int csv_tab[NN_CSV_SLOTS]; /* index into csv_seen + 1; 0 = empty */
  uint64_t include_bytes;
};

/* A KEY=VALUE field a directive accepts. */
struct nn_kv {
  const char *key;
  const char *val; /* NULL when not given */
};

/* Records a problem at the current line ("NAME:LINE: ..." or "NAME: ..." at line 0)
 * and counts it; any counted problem rejects the file. */
void nn_perr(struct nn_parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Records a line the file's reader drops without rejecting the file ("NAME:LINE: ...",
 * into p->cfg->refused; see nn_config.h). */
void nn_prefuse(struct nn_parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Text from the file, made safe to print: non-printable bytes as \xNN, long text cut.
 * The result lives in one of four rotating buffers of p (four per message at most). */
const char *nn_quote(struct nn_parser *p, const char *s);

/* Grows *arr (of *cap elements of `elem` bytes) to hold `need`. Returns 0 or -1. */
int nn_grow(void **arr, int *cap, int need, size_t elem);

/* Fields first.. of the current line as KEY=VALUE, matched case-insensitively against
 * keys (whose val is set). Unknown keys, repeats and non-KEY=VALUE fields are reported
 * with the directive name `dir`; returns how many. */
int nn_take_keys(struct nn_parser *p, const char *dir, int first, struct nn_kv *keys, int nkeys);

/* Hands `name` (malloc'd) to the config, which frees it; rules point to it as their
 * file. Returns it, or NULL (name freed) when out of memory. */
const char *nn_config_own_file(struct nn_config *c, char *name);

/* The slot of bus_tab or host_tab (gpu and nic lines share them: one PCI function is one
 * device) holding `b`, or the empty slot where it would go; and the key it stores there. */
struct nn_bus_slot *nn_bus_slot(struct nn_bus_slot *tab, const struct nn_busid *b);
uint64_t nn_busid_key(const struct nn_busid *b);

/* `s` as a NUMA node 0..NN_MAX_NUMA_ID, or -1 with "DIR: bad WHAT '...'" reported. */
int nn_parse_node_id(struct nn_parser *p, const char *dir, const char *what, const char *s);

/* One directive of the mapping: its name, the parser of its line (the fields of the current
 * line, p->f[0] its name) and the step that runs after the last line (NULL: none). The table
 * in config_parse.c is the one list: a new directive is one row there (then the fuzz
 * dictionary and docs/user/mapping.md, which test_config_parse.c checks against it). */
struct nn_config_directive {
  const char *name;
  void (*parse)(struct nn_parser *p);
  void (*finish)(struct nn_parser *p);
};
extern const struct nn_config_directive nn_config_directives[];
extern const int nn_config_n_directives;

/* The directives' parsers and finish steps. */
void nn_config_parser_gpu(struct nn_parser *p);
void nn_config_parser_numa(struct nn_parser *p);
void nn_config_parser_cpu(struct nn_parser *p);
void nn_config_parser_rule(struct nn_parser *p);
void nn_config_parser_env(struct nn_parser *p);
void nn_config_parser_model(struct nn_parser *p);
void nn_config_parser_topology(struct nn_parser *p);
void nn_config_parser_include_csv(struct nn_parser *p);
void nn_config_parser_p2p(struct nn_parser *p);
void nn_config_parser_nic(struct nn_parser *p);
/* After the last line: nic indices 0..N-1 each once, then the nics by index into the config. */
void nn_config_parser_nic_finish(struct nn_parser *p);
/* After the last line: env lines that contradict the p2p line. */
void nn_config_parser_p2p_finish(struct nn_parser *p);

/* After the last line: every gpu index 0..N-1 exactly once (reported at the last gpu
 * line). nn_gpus_install then sorts the gpus by index into the config (-1: out of memory). */
void nn_gpus_finish(struct nn_parser *p);
int nn_gpus_install(struct nn_parser *p);

#endif
