/* SPDX-License-Identifier: BSD-3-Clause */
/* tuner.c - communicator init and finalize: load the mapping, compile, log, edit constants. */
#include "ascii.h"
#include "tuner.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cache.h"
#include "log.h"
#include "nccl_forced.h"
#include "nccl_log.h"
#include "nccl_model.h"
#include "ncclload.h"
#include "nn_version.h"
#include "numparse.h"
#include "topology.h"
#include "visible.h"

#define NN_LOG_TABLE_LINES 64

/* The core indexes NCCL's cost table and ncclFunc_t with its own enums (nn_config.h), so
 * that it knows no ABI: here, where both are known, they are tied. */
#define NN_SAME(a, b) ((int)(a) == (int)(b))
_Static_assert(NN_SAME(NN_ALGO_TREE, NN_NCCL_ALGO_TREE) &&
                 NN_SAME(NN_ALGO_RING, NN_NCCL_ALGO_RING) &&
                 NN_SAME(NN_ALGO_COLLNET_DIRECT, NN_NCCL_ALGO_COLLNET_DIRECT) &&
                 NN_SAME(NN_ALGO_COLLNET_CHAIN, NN_NCCL_ALGO_COLLNET_CHAIN) &&
                 NN_SAME(NN_ALGO_NVLS, NN_NCCL_ALGO_NVLS) &&
                 NN_SAME(NN_ALGO_NVLS_TREE, NN_NCCL_ALGO_NVLS_TREE) &&
                 NN_SAME(NN_ALGO_PAT, NN_NCCL_ALGO_PAT) &&
                 NN_SAME(NN_ALGO_COUNT, NN_NCCL_NUM_ALGORITHMS),
               "enum nn_algo must equal NCCL's algorithm indices");
_Static_assert(NN_SAME(NN_PROTO_LL, NN_NCCL_PROTO_LL) &&
                 NN_SAME(NN_PROTO_LL128, NN_NCCL_PROTO_LL128) &&
                 NN_SAME(NN_PROTO_SIMPLE, NN_NCCL_PROTO_SIMPLE) &&
                 NN_SAME(NN_PROTO_COUNT, NN_NCCL_NUM_PROTOCOLS) &&
                 NN_SAME(NN_FAST_PROTOS, NN_NCCL_NUM_PROTOCOLS),
               "enum nn_proto must equal NCCL's protocol indices");
#undef NN_SAME

static void apply_model(const struct nn_config *cfg, const struct nn_tuner_init_args *a, char *note,
                        size_t size) {
  if (cfg->pci_latency_us <= 0) {
    snprintf(note, size, "constants unchanged");
    return;
  }
  if (a->abi_version < 5) {
    snprintf(note, size,
             "constants unchanged: `model pci-latency-us` needs tuner v5+ (this NCCL uses v%d)",
             a->abi_version);
    return;
  }
  if (!a->hw_latencies) {
    snprintf(note, size, "constants unchanged: NCCL passed none");
    return;
  }
  double(*lat)[NN_NCCL_NUM_PROTOCOLS] = (*a->hw_latencies)[NN_NCCL_HW_PCI];
  snprintf(note, size,
           "hwLatencies[PCI] tree ll/simple %.2f/%.2f ring ll/simple %.2f/%.2f -> %.2f us",
           lat[NN_NCCL_ALGO_TREE][NN_NCCL_PROTO_LL], lat[NN_NCCL_ALGO_TREE][NN_NCCL_PROTO_SIMPLE],
           lat[NN_NCCL_ALGO_RING][NN_NCCL_PROTO_LL], lat[NN_NCCL_ALGO_RING][NN_NCCL_PROTO_SIMPLE],
           cfg->pci_latency_us);
  int algos[] = {NN_NCCL_ALGO_TREE, NN_NCCL_ALGO_RING};
  int protos[] = {NN_NCCL_PROTO_LL, NN_NCCL_PROTO_SIMPLE};
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++) lat[algos[i]][protos[j]] = cfg->pci_latency_us;
  char why[200];
  int ignored = nn_nccl_constants_ignored(nn_nccl_loaded_version(), why, sizeof why);
  if (ignored) {
    size_t used = strlen(note);
    snprintf(note + used, size - used, "; %s", why);
    static atomic_flag warned = ATOMIC_FLAG_INIT;
    if (ignored == 1 && !atomic_flag_test_and_set(&warned))
      nn_log_warn(a->log, "nccl-numa: `model pci-latency-us` (%s:%d): %s",
                  cfg->path ? cfg->path : "?", cfg->model_line, why);
  }
}

/* Text lines of the decision table: segments that differ from "NCCL default everywhere",
 * at most NN_LOG_TABLE_LINES of them. */
struct table_text {
  const struct nn_config *cfg;
  const struct nn_logger *logger;
  int lines;
};

static void log_segment(void *arg, int coll, uint64_t lo, uint64_t hi, int rule) {
  struct table_text *t = arg;
  if (rule < 0 && lo == 0 && hi == UINT64_MAX) return;
  if (t->lines++ >= NN_LOG_TABLE_LINES) return;
  char l[32], h[32], choice[64], where[300];
  nn_policy_format_bytes(lo, l, sizeof l);
  nn_policy_format_bytes(hi, h, sizeof h);
  nn_policy_describe_rule(t->cfg, rule, NN_CHOICE_TERSE, choice, sizeof choice, where,
                          sizeof where);
  nn_log_info(t->logger, NN_LOG_TUNING, "nccl-numa:   %-13s %s-%s -> %s%s%s", nn_coll_name(coll), l,
              h, choice, rule >= 0 ? " from " : "", rule >= 0 ? where : "");
}

/* A segment of the chunk= rules: "chunk allreduce 1M-max -> 256K when NCCL runs ring/simple". */
static void log_chunk_segment(void *arg, int coll, uint64_t lo, uint64_t hi, int rule) {
  struct table_text *t = arg;
  if (rule < 0 || rule >= t->cfg->n_rules || t->lines++ >= NN_LOG_TABLE_LINES) return;
  const struct nn_rule *r = &t->cfg->rules[rule];
  char l[32], h[32], c[32];
  nn_policy_format_bytes(lo, l, sizeof l);
  nn_policy_format_bytes(hi, h, sizeof h);
  nn_policy_format_bytes(r->chunk, c, sizeof c);
  nn_log_info(t->logger, NN_LOG_TUNING,
              "nccl-numa:   chunk %-13s %s-%s -> %s when NCCL runs %s/%s from %s:%d",
              nn_coll_name(coll), l, h, c, r->algo >= 0 ? nn_algo_name(r->algo) : "*",
              r->proto >= 0 ? nn_proto_name(r->proto) : "*", r->file ? r->file : "?", r->line);
}

/* The JSON record's "table": every segment, with the rule behind it. */
struct table_json {
  const struct nn_config *cfg;
  char *buf;
  size_t size, len;
  int entries;
};

static void count_segment(void *arg, int coll, uint64_t lo, uint64_t hi, int rule) {
  (void)coll;
  (void)lo;
  (void)hi;
  (void)rule;
  ((struct table_json *)arg)->entries++;
}

static void json_segment(void *arg, int coll, uint64_t lo, uint64_t hi, int rule) {
  struct table_json *t = arg;
  char choice[64], where[300];
  nn_policy_describe_rule(t->cfg, rule, NN_CHOICE_TERSE, choice, sizeof choice, where,
                          sizeof where);
  nn_log_appendf(t->buf, t->size, &t->len,
                 "%s{\"coll\":\"%s\",\"lo\":%llu,\"hi\":%llu,\"choice\":", t->entries++ ? "," : "",
                 nn_coll_name(coll), (unsigned long long)lo, (unsigned long long)hi);
  nn_log_json_string(t->buf, t->size, &t->len, choice);
  nn_log_appendf(t->buf, t->size, &t->len, ",\"rule\":");
  nn_log_json_string(t->buf, t->size, &t->len, where);
  nn_log_appendf(t->buf, t->size, &t->len, "}");
}

/* Who wrote the record, for `nccl-numa check --compare` across the hosts of one job:
 * the host name and, when a launcher set one, the process's rank in the job (NCCL gives
 * the tuner no rank). */
static void append_process(struct table_json *t) {
  static const char *const rank_vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK",
                                          "SLURM_PROCID", "RANK"};
  char host[256] = "";
  if (gethostname(host, sizeof host - 1) != 0) host[0] = 0;
  nn_log_appendf(t->buf, t->size, &t->len, ",\"host\":");
  nn_log_json_string(t->buf, t->size, &t->len, host);
  for (size_t i = 0; i < sizeof rank_vars / sizeof rank_vars[0]; i++) {
    int rank;
    const char *val = getenv(rank_vars[i]);
    if (val && nn_int_parse(val, 0, 1 << 30, &rank) == 0) {
      nn_log_appendf(t->buf, t->size, &t->len, ",\"rank\":%d,\"rankFrom\":\"%s\"", rank,
                     rank_vars[i]);
      return;
    }
  }
}

/* The NCCL this process loaded the plugin into (ncclload.h): "nccl" its release, "ncclLib"
 * its file; null when none was found. */
static void append_nccl(struct table_json *t) {
  const struct nn_ncclload *l = nn_ncclload_get();
  char release[32];
  if (!l->code) {
    nn_log_appendf(t->buf, t->size, &t->len, ",\"nccl\":null,\"ncclLib\":null");
    return;
  }
  nn_nccl_version_format(l->code, release, sizeof release);
  nn_log_appendf(t->buf, t->size, &t->len, ",\"nccl\":\"%s\",\"ncclLib\":", release);
  nn_log_json_string(t->buf, t->size, &t->len, l->path);
}

/* Formats the record into t->buf (t->size bytes). Returns 0 when it fitted whole. */
static int format_json_record(const struct nn_tuner_init_args *a, struct nn_cache_version *v,
                              const struct nn_policy *p, struct table_json *t) {
  char stamp[64];
  time_t now = time(NULL);
  struct tm tm;
  strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
  t->len = 0;
  t->entries = 0;
  nn_log_appendf(t->buf, t->size, &t->len,
                 "{\"time\":\"%s\",\"version\":\"" NN_VERSION
                 "\",\"pid\":%ld,\"commId\":\"0x%016llx\",\"nRanks\":%zu,\"nNodes\":%zu,"
                 "\"abi\":%d,\"scope\":\"%s\",\"config\":",
                 stamp, (long)getpid(), (unsigned long long)a->comm_id, a->n_ranks, a->n_nodes,
                 a->abi_version, nn_scope_name(nn_policy_scope(p)));
  nn_log_json_string(t->buf, t->size, &t->len, nn_cache_path(v));
  nn_log_appendf(t->buf, t->size, &t->len, ",\"configHash\":\"%s\"", nn_cache_hash(v));
  append_nccl(t);
  append_process(t);
  nn_log_appendf(t->buf, t->size, &t->len, ",\"table\":[");
  nn_policy_visit(p, json_segment, t);
  nn_log_appendf(t->buf, t->size, &t->len, "]}\n");
  return t->len + 1 < t->size ? 0 : -1; /* nn_log_appendf stops at size - 1 */
}

/* Whether to WARN about a record not written: a write error (a full disk, the size limit)
 * each time, a refused path once per process (until another path is refused), not once
 * per communicator. */
static int first_refusal(int rc, const char *path) {
  static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  static char told[4096];
  if (rc != NN_LOG_REFUSED) return 1;
  pthread_mutex_lock(&lock);
  int first = strcmp(told, path) != 0;
  if (first) snprintf(told, sizeof told, "%s", path);
  pthread_mutex_unlock(&lock);
  return first;
}

/* Whether the driver shows this process a GPU the mapping's bus ids lack (visible.h): then no
 * rule applies. WARNs once per process, not once per communicator. */
static int gpus_unmapped(const struct nn_config *cfg, const struct nn_logger *log) {
  static atomic_int told;
  struct nn_visible vis;
  nn_visible_of_process(cfg, &vis);
  if (vis.kind != NN_VISIBLE_UNMAPPED) return 0;
  if (!atomic_exchange(&told, 1)) nn_log_warn(log, "nccl-numa: %s", vis.why);
  return 1;
}

/* A record is one whole JSON line or nothing: the buffer starts at a typical entry's size per
 * segment and doubles until the record fits, up to 4 MiB (some 10,000 segments of long rule
 * locations; a typical record is a few KiB). Beyond that the record is skipped with a WARN:
 * init never allocates or formats more than that for a log line. */
#define NN_JSON_RECORD_MAX (4u << 20)

/* The next buffer size to try: twice this one, the last try at exactly the limit; 0 after it. */
static size_t next_record_size(size_t size) {
  if (size >= NN_JSON_RECORD_MAX) return 0;
  return size * 2 < NN_JSON_RECORD_MAX ? size * 2 : NN_JSON_RECORD_MAX;
}

static void write_json_record(const struct nn_tuner_init_args *a, struct nn_cache_version *v,
                              const struct nn_policy *p, const char *path) {
  struct table_json t = {.cfg = nn_cache_config(v)};
  nn_policy_visit(p, count_segment, &t);
  int whole = 0, oom = 0, rc;
  char err[4096 + 256];
  size_t first = 4096 + (size_t)t.entries * 320;
  for (size_t size = first < NN_JSON_RECORD_MAX ? first : NN_JSON_RECORD_MAX; !whole && size;
       size = next_record_size(size)) {
    char *grown = realloc(t.buf, size);
    if (!grown) {
      oom = 1;
      break;
    }
    t.buf = grown;
    t.size = size;
    whole = format_json_record(a, v, p, &t) == 0;
  }
  if (!whole)
    nn_log_warn(a->log, "nccl-numa: JSON record for comm 0x%016llx not written to %s: %s",
                (unsigned long long)a->comm_id, path, oom ? "out of memory" : "larger than 4 MiB");
  else if ((rc = nn_log_append_line(path, t.buf, t.len, err, sizeof err)) != 0 &&
           first_refusal(rc, path))
    nn_log_warn(a->log,
                "nccl-numa: JSON record for comm 0x%016llx not written: cannot append to "
                "NCCL_NUMA_LOG_FILE %s",
                (unsigned long long)a->comm_id, err);
  free(t.buf);
}

/* NCCL drops INFO lines unless NCCL_DEBUG asks for them, and TUNING lines unless
 * NCCL_DEBUG_SUBSYS does; formatting a table nobody sees would cost most of init. The
 * values may come from the real environment or from an `env` line the env plugin serves. */
static const char *nccl_setting(const struct nn_config *cfg, const char *name) {
  const char *v = getenv(name);
  return v ? v : nn_config_env(cfg, name);
}

static int info_wanted(const struct nn_config *cfg) {
  const char *level = nccl_setting(cfg, "NCCL_DEBUG");
  return level && (nn_ascii_caseeq(level, "INFO") || nn_ascii_caseeq(level, "TRACE"));
}

static int tuning_wanted(const struct nn_config *cfg) {
  const char *subsys = nccl_setting(cfg, "NCCL_DEBUG_SUBSYS");
  if (!subsys) return 0;
  if (subsys[0] == '^') return !strcasestr(subsys, "TUNING"); /* "^X,Y": all but X and Y */
  return strcasestr(subsys, "TUNING") != NULL || strcasestr(subsys, "ALL") != NULL;
}

/* One INFO line for each of NCCL_ALGO / NCCL_PROTO that NCCL applies before calling us (the
 * environment, or an `env` line the env plugin serves): its own line, as NCCL cuts a message
 * at 1024 bytes. */
static void log_forced(const struct nn_tuner_init_args *a, const struct nn_config *cfg) {
  struct nn_forced f;
  char text[768];
  nn_forced_read(cfg, &f);
  for (int var = 0; var < NN_FORCED_COUNT; var++) {
    if (!f.value[var]) continue;
    nn_forced_describe(cfg, &f, var, text, sizeof text);
    nn_log_info(a->log, NN_LOG_INIT | NN_LOG_TUNING, "nccl-numa: %s", text);
  }
}

static void log_init(const struct nn_tuner_init_args *a, struct nn_cache_version *v,
                     const struct nn_policy *p, const char *model_note) {
  const struct nn_config *cfg = nn_cache_config(v);
  if (info_wanted(cfg)) {
    char sockets[256];
    nn_topology_describe_sockets(cfg, sockets, sizeof sockets);
    char nccl[PATH_MAX + 64];
    nn_ncclload_describe(nn_ncclload_get(), nccl, sizeof nccl);
    nn_log_info(a->log, NN_LOG_INIT | NN_LOG_TUNING,
                "nccl-numa " NN_VERSION
                ": tuner v%d on %s, config %s hash %s (%s), comm 0x%016llx nRanks %zu nNodes %zu "
                "scope %s, %d of %d rules apply, %s",
                a->abi_version, nccl, nn_cache_path(v), nn_cache_hash(v), sockets,
                (unsigned long long)a->comm_id, a->n_ranks, a->n_nodes,
                nn_scope_name(nn_policy_scope(p)), nn_policy_rule_count(p), cfg->n_rules,
                model_note);
    log_forced(a, cfg);
    if (tuning_wanted(cfg)) {
      struct table_text t = {.cfg = cfg, .logger = a->log};
      nn_policy_visit(p, log_segment, &t);
      nn_policy_visit_chunk(p, log_chunk_segment, &t);
      if (t.lines > NN_LOG_TABLE_LINES)
        nn_log_info(a->log, NN_LOG_TUNING,
                    "nccl-numa:   ... %d more segments (`nccl-numa explain` shows all)",
                    t.lines - NN_LOG_TABLE_LINES);
    }
  }
  const char *path = getenv("NCCL_NUMA_LOG_FILE");
  if (path && *path) write_json_record(a, v, p, path);
}

static int env_forces_choice(void) {
  const char *algo = getenv("NCCL_ALGO"), *proto = getenv("NCCL_PROTO");
  return (algo && *algo) || (proto && *proto);
}

nn_ncclResult_t nn_tuner_init(const struct nn_tuner_init_args *nccl_args, void **ctx) {
  if (!ctx) return nn_ncclSuccess;
  /* NCCL's logger, seen by the core as its own; init is the only place the tuner logs. */
  struct nn_nccl_logger nl;
  struct nn_tuner_init_args args = *nccl_args;
  args.log = nn_nccl_logger(&nl, nccl_args->logger);
  const struct nn_tuner_init_args *a = &args;
  struct nn_tuner_ctx *c = calloc(1, sizeof *c);
  *ctx = c;
  if (!c) return nn_ncclSuccess;
  c->version = nn_cache_acquire(a->log);
  int status = nn_cache_status(c->version);
  if (status == NN_CFG_INVALID) {
    nn_cache_warn_rejected(
      c->version, a->log,
      "the plugin is a pass-through (no topology, no overrides, constants untouched)");
    return nn_ncclSuccess;
  }
  if (status == NN_CFG_MOVING) return nn_ncclSuccess; /* the cache has said so */
  if (status == NN_CFG_ABSENT) {
    if (nn_cache_claim_warning(c->version))
      nn_log_info(a->log, NN_LOG_INIT | NN_LOG_TUNING,
                  "nccl-numa: no NCCL_NUMA_CONFIG and no %s: "
                  "pass-through",
                  NN_DEFAULT_CONFIG_PATH);
    return nn_ncclSuccess;
  }
  nn_cache_warn_refused(c->version, a->log);
  if (gpus_unmapped(nn_cache_config(c->version), a->log)) return nn_ncclSuccess;
  c->policy = nn_cache_policy(c->version, a->n_ranks, a->n_nodes);
  c->coll_mask = nn_policy_coll_mask(c->policy);
  c->chunk_mask = nn_policy_chunk_mask(c->policy);
  if (c->policy) c->hot = *nn_policy_hot_of(c->policy);
  c->v2_blocked = a->abi_version == 2 && env_forces_choice();
  char model_note[256];
  apply_model(nn_cache_config(c->version), a, model_note, sizeof model_note);
  if (c->policy) log_init(a, c->version, c->policy, model_note);
  if (c->v2_blocked)
    nn_log_info(a->log, NN_LOG_INIT | NN_LOG_TUNING,
                "nccl-numa: NCCL_ALGO/NCCL_PROTO set: tuner v2 makes no choices (NCCL 2.21 would "
                "run them unchecked)");
  return nn_ncclSuccess;
}

/* What the fast path leaves, from the segment g it found: out of line, so the fast path
 * keeps few registers saved. */
__attribute__((noinline, cold)) static void get_coll_info_general(void *ctx, const struct nn_seg *g,
                                                                  int coll, size_t n_bytes,
                                                                  int pipe_ops, float **table,
                                                                  int num_algo, int num_proto,
                                                                  int reg_buff, int *n_channels) {
  const struct nn_tuner_ctx *c = ctx;
  float *t = (float *)(void *)table;
  /* A crowded bucket's segment, which the fast check may answer, found without a call. */
  g = nn_policy_crowded(&c->hot.coll[coll], g, n_bytes);
  if (nn_policy_fast_ok(g, t, num_algo, num_proto)) nn_policy_fast_write(g, t, n_channels);
  else if (g->entry != NN_SEG_NONE)
    nn_policy_apply_general(c->policy, g, coll, n_bytes, pipe_ops, reg_buff, t, num_algo, num_proto,
                            n_channels);
}

/* A set bit of coll_mask (checked by the caller) means a policy and a collective below
 * NN_COLL_COUNT, what the fast path needs. NCCL's float** is a contiguous
 * float[numAlgo][numProto]. */
nn_ncclResult_t nn_tuner_get_coll_info_ruled(void *ctx, int coll, size_t n_bytes, int pipe_ops,
                                             float **table, int num_algo, int num_proto,
                                             int reg_buff, int *n_channels) {
  const struct nn_tuner_ctx *c = ctx;
  const struct nn_seg *g;
  if (!nn_policy_apply_fast(&c->hot, coll, n_bytes, (float *)(void *)table, num_algo, num_proto,
                            n_channels, &g))
    get_coll_info_general(ctx, g, coll, n_bytes, pipe_ops, table, num_algo, num_proto, reg_buff,
                          n_channels);
  return nn_ncclSuccess;
}

nn_ncclResult_t nn_tuner_get_chunk_size_ruled(void *ctx, int coll, size_t n_bytes, int algo,
                                              int proto, int n_channels, size_t *chunk) {
  (void)n_channels; /* a rule has no channel condition */
  const struct nn_tuner_ctx *c = ctx;
  nn_policy_chunk(c->policy, coll, n_bytes, algo, proto, chunk);
  return nn_ncclSuccess;
}

nn_ncclResult_t nn_tuner_finalize(void *ctx) {
  struct nn_tuner_ctx *c = ctx;
  if (!c) return nn_ncclSuccess;
  nn_cache_release(c->version);
  free(c);
  return nn_ncclSuccess;
}
