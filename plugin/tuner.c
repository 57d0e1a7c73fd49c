/* tuner.c - communicator init and finalize: load the mapping, compile, log, edit constants. */
#include "tuner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "cache.h"
#include "log.h"
#include "topology.h"

#define NN_LOG_TABLE_LINES 64

static void warn_invalid_config(struct nn_cfgver *v, nn_ncclDebugLogger_t logger) {
  if (!nn_cfgver_claim_warning(v)) return;
  const struct nn_diag *d = nn_cfgver_diag(v);
  for (int i = 0; d && i < d->n; i++)
    nn_log_warn(logger, "nccl-numa: %s", d->msgs[i]);
  if (d && d->dropped) nn_log_warn(logger, "nccl-numa: ... and %d more problems", d->dropped);
  nn_log_warn(logger, "nccl-numa: config %s rejected: the plugin is a pass-through "
              "(no topology, no overrides, constants untouched)", nn_cfgver_path(v));
}

static void apply_model(const struct nn_config *cfg, const struct nn_tuner_init_args *a,
                        char *note, size_t size) {
  if (cfg->pci_latency_us <= 0) { snprintf(note, size, "constants unchanged"); return; }
  if (a->abi_version < 5) {
    snprintf(note, size, "constants unchanged: `model pci-latency-us` needs tuner v5+ (this NCCL uses v%d)",
             a->abi_version);
    return;
  }
  if (!a->constants) { snprintf(note, size, "constants unchanged: NCCL passed none"); return; }
  double (*lat)[NN_NCCL_NUM_PROTOCOLS] = a->constants->hwLatencies[NN_NCCL_HW_PCI];
  snprintf(note, size, "hwLatencies[PCI] tree ll/simple %.2f/%.2f ring ll/simple %.2f/%.2f -> %.2f us",
           lat[NN_NCCL_ALGO_TREE][NN_NCCL_PROTO_LL], lat[NN_NCCL_ALGO_TREE][NN_NCCL_PROTO_SIMPLE],
           lat[NN_NCCL_ALGO_RING][NN_NCCL_PROTO_LL], lat[NN_NCCL_ALGO_RING][NN_NCCL_PROTO_SIMPLE],
           cfg->pci_latency_us);
  int algos[] = {NN_NCCL_ALGO_TREE, NN_NCCL_ALGO_RING};
  int protos[] = {NN_NCCL_PROTO_LL, NN_NCCL_PROTO_SIMPLE};
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++) lat[algos[i]][protos[j]] = cfg->pci_latency_us;
}

struct table_log {
  const struct nn_config *cfg;
  nn_ncclDebugLogger_t logger;
  int lines, skipped;
  char *json;
  size_t json_size, json_len;
};

static void count_segment(void *arg, int coll, uint64_t lo, uint64_t hi, int rule) {
  (void)coll; (void)lo; (void)hi; (void)rule;
  ((struct table_log *)arg)->lines++;
}

static void log_segment(void *arg, int coll, uint64_t lo, uint64_t hi, int rule) {
  struct table_log *t = arg;
  int shown = rule >= 0 || lo != 0 || hi != UINT64_MAX;
  if (!t->json && (!shown || t->lines >= NN_LOG_TABLE_LINES)) {
    t->skipped += shown && t->lines >= NN_LOG_TABLE_LINES;
    t->lines += shown;
    return;
  }
  char l[32], h[32], choice[64] = "NCCL default", where[300] = "";
  nn_policy_format_bytes(lo, l, sizeof l);
  nn_policy_format_bytes(hi, h, sizeof h);
  if (rule >= 0) {
    const struct nn_rule *r = &t->cfg->rules[rule];
    nn_policy_describe_choice(r, choice, sizeof choice);
    snprintf(where, sizeof where, "%s:%d", r->file ? r->file : "?", r->line);
  }
  if (shown) {
    if (t->lines < NN_LOG_TABLE_LINES)
      nn_log_info(t->logger, NN_NCCL_TUNING, "nccl-numa:   %-13s %s-%s -> %s%s%s", nn_coll_name(coll),
                  l, h, choice, rule >= 0 ? " from " : "", where);
    else
      t->skipped++;
    t->lines++;
  }
  if (!t->json) return;
  nn_log_appendf(t->json, t->json_size, &t->json_len,
                 "%s{\"coll\":\"%s\",\"lo\":%llu,\"hi\":%llu,\"choice\":", t->json_len && t->json[t->json_len - 1] == '[' ? "" : ",",
                 nn_coll_name(coll), (unsigned long long)lo, (unsigned long long)hi);
  nn_log_json_string(t->json, t->json_size, &t->json_len, choice);
  nn_log_appendf(t->json, t->json_size, &t->json_len, ",\"rule\":");
  nn_log_json_string(t->json, t->json_size, &t->json_len, rule >= 0 ? where : "NCCL default");
  nn_log_appendf(t->json, t->json_size, &t->json_len, "}");
}

static void write_json_record(const struct nn_tuner_init_args *a, struct nn_cfgver *v,
                              const struct nn_policy *p, struct table_log *t, const char *path) {
  size_t len = 0;
  char stamp[64];
  time_t now = time(NULL);
  struct tm tm;
  strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
  nn_log_appendf(t->json, t->json_size, &len,
                 "{\"time\":\"%s\",\"pid\":%ld,\"commId\":\"0x%016llx\",\"nRanks\":%zu,\"nNodes\":%zu,"
                 "\"abi\":%d,\"scope\":\"%s\",\"config\":", stamp, (long)getpid(),
                 (unsigned long long)a->comm_id, a->n_ranks, a->n_nodes, a->abi_version,
                 nn_scope_name(nn_policy_scope(p)));
  nn_log_json_string(t->json, t->json_size, &len, nn_cfgver_path(v));
  nn_log_appendf(t->json, t->json_size, &len, ",\"table\":[");
  t->json_len = len;
  struct table_log quiet = *t;
  quiet.lines = NN_LOG_TABLE_LINES; /* the text lines were already logged */
  nn_policy_visit(p, log_segment, &quiet);
  nn_log_appendf(t->json, t->json_size, &quiet.json_len, "]}");
  if (quiet.json_len + 1 >= t->json_size)
    nn_log_warn(a->logger, "nccl-numa: decision table too large for %s; record truncated", path);
  if (nn_log_append_line(path, t->json) != 0)
    nn_log_warn(a->logger, "nccl-numa: cannot append to NCCL_NUMA_LOG_FILE %s", path);
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
  return level && (!strcasecmp(level, "INFO") || !strcasecmp(level, "TRACE"));
}

static int tuning_wanted(const struct nn_config *cfg) {
  const char *subsys = nccl_setting(cfg, "NCCL_DEBUG_SUBSYS");
  if (!subsys) return 0;
  int listed = strcasestr(subsys, "TUNING") != NULL || strcasestr(subsys, "ALL") != NULL;
  return subsys[0] == '^' ? !strcasestr(subsys, "TUNING") : listed;
}

static void log_init(const struct nn_tuner_init_args *a, struct nn_cfgver *v,
                     const struct nn_policy *p, const char *model_note) {
  const struct nn_config *cfg = nn_cfgver_config(v);
  const char *path = getenv("NCCL_NUMA_LOG_FILE");
  int info = info_wanted(cfg), table = info && tuning_wanted(cfg), json = path && *path;
  if (info) {
    char sockets[256];
    nn_topology_describe_sockets(cfg, sockets, sizeof sockets);
    nn_log_info(a->logger, NN_NCCL_INIT | NN_NCCL_TUNING,
                "nccl-numa: tuner v%d, config %s (%s), comm 0x%016llx nRanks %zu nNodes %zu scope %s, "
                "%d of %d rules apply, %s", a->abi_version, nn_cfgver_path(v), sockets,
                (unsigned long long)a->comm_id, a->n_ranks, a->n_nodes, nn_scope_name(nn_policy_scope(p)),
                nn_policy_rule_count(p), cfg->n_rules, model_note);
  }
  struct table_log t = {.cfg = cfg, .logger = a->logger, .lines = table ? 0 : NN_LOG_TABLE_LINES};
  if (table) nn_policy_visit(p, log_segment, &t);
  if (t.skipped)
    nn_log_info(a->logger, NN_NCCL_TUNING, "nccl-numa:   ... %d more segments (`nccl-numa explain` shows all)",
                t.skipped);
  if (!json) return;
  t.lines = 0;
  nn_policy_visit(p, count_segment, &t);
  t.json_size = 4096 + (size_t)t.lines * 320;
  t.json = malloc(t.json_size);
  if (t.json) write_json_record(a, v, p, &t, path);
  free(t.json);
}

static int env_forces_choice(void) {
  const char *algo = getenv("NCCL_ALGO"), *proto = getenv("NCCL_PROTO");
  return (algo && *algo) || (proto && *proto);
}

nn_ncclResult_t nn_tuner_init(const struct nn_tuner_init_args *a, void **ctx) {
  if (!ctx) return nn_ncclSuccess;
  struct nn_tuner_ctx *c = calloc(1, sizeof *c);
  *ctx = c;
  if (!c) return nn_ncclSuccess;
  c->version = nn_cache_acquire();
  int status = nn_cfgver_status(c->version);
  if (status == NN_CFG_INVALID) { warn_invalid_config(c->version, a->logger); return nn_ncclSuccess; }
  if (status == NN_CFG_ABSENT) {
    if (nn_cfgver_claim_warning(c->version))
      nn_log_info(a->logger, NN_NCCL_INIT | NN_NCCL_TUNING, "nccl-numa: no NCCL_NUMA_CONFIG and no %s: "
                  "pass-through", NN_DEFAULT_CONFIG_PATH);
    return nn_ncclSuccess;
  }
  c->policy = nn_cfgver_policy(c->version, a->n_ranks, a->n_nodes);
  c->has_rules = nn_policy_rule_count(c->policy) > 0;
  c->v2_blocked = a->abi_version == 2 && env_forces_choice();
  char model_note[256];
  apply_model(nn_cfgver_config(c->version), a, model_note, sizeof model_note);
  if (c->policy) log_init(a, c->version, c->policy, model_note);
  if (c->v2_blocked)
    nn_log_info(a->logger, NN_NCCL_INIT | NN_NCCL_TUNING,
                "nccl-numa: NCCL_ALGO/NCCL_PROTO set: tuner v2 makes no choices (contract note 16)");
  return nn_ncclSuccess;
}

nn_ncclResult_t nn_tuner_finalize(void *ctx) {
  struct nn_tuner_ctx *c = ctx;
  if (!c) return nn_ncclSuccess;
  nn_cache_release(c->version);
  free(c);
  return nn_ncclSuccess;
}
