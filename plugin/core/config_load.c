/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * config_load.c - a mapping read from its file (whole, by nn_snapshot_read), rules merged in from a
 * CSV file named outside the mapping (NCCL_TUNER_CONFIG_FILE), and the questions the plugin asks of
 * a parsed config.
 */
#include "nn_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_parser.h"
#include "csv_rules.h"
#include "snapshot.h"

static int load_file(const char *path, const struct nn_parse_opts *opts, struct nn_config **out,
                     struct nn_diag *diag);

/* One reader for the plugin and every command: a load outside a recording (a command's) gets
 * one of its own, so its trust walks share the plugin's budget, NN_SNAP_WALK_BUDGET, and what
 * a command calls valid is what the plugin serves. */
int nn_config_load(const char *path, const struct nn_parse_opts *opts, struct nn_config **out,
                   struct nn_diag *diag) {
  struct nn_snapshot_record rec;
  int began = nn_snapshot_record_if_none(&rec);
  int r = load_file(path, opts, out, diag);
  nn_snapshot_record_close(&rec, began);
  return r;
}

static int load_file(const char *path, const struct nn_parse_opts *opts, struct nn_config **out,
                     struct nn_diag *diag) {
  if (out) *out = NULL;
  if (!path || !*path) {
    nn_diag_add(diag, "(empty path): cannot open: no file name");
    return -1;
  }
  char *buf, err[600];
  size_t len;
  if (nn_snapshot_read(path, NN_MAX_FILE_BYTES, &buf, &len, err, sizeof err) != NN_SNAP_OK) {
    nn_diag_add(diag, "%s", err);
    return -1;
  }
  int r = nn_config_parse(path, buf, len, opts, out, diag);
  free(buf);
  if (r == 0 && err[0] && out && *out) nn_diag_add(&(*out)->notes, "%s", err);
  return r;
}

int nn_config_add_csv_rules(struct nn_config *cfg, const char *path, struct nn_diag *diag) {
  char *copy = strdup(path);
  const char *owned = copy ? nn_config_own_file(cfg, copy) : NULL;
  if (!owned) {
    nn_diag_add(diag, "%s: out of memory", path);
    return -1;
  }
  struct nn_rule *rules = NULL;
  int n = 0;
  struct nn_diag sub = {0};
  int rc = nn_csv_rules_load(owned, &rules, &n, &sub);
  for (int i = 0; i < sub.n; i++) nn_diag_add(rc ? diag : &cfg->notes, "%s", sub.msgs[i]);
  if (rc && diag) diag->dropped += sub.dropped;
  nn_diag_clear(&sub);
  if (rc != 0) return -1;
  if (cfg->n_rules + n > NN_MAX_RULES) {
    nn_diag_add(diag, "%s: %d more rules would exceed %d rules", owned, n, NN_MAX_RULES);
    free(rules);
    return -1;
  }
  struct nn_rule *grown =
    n ? realloc(cfg->rules, (size_t)(cfg->n_rules + n) * sizeof *grown) : cfg->rules;
  if (n && !grown) {
    nn_diag_add(diag, "%s: out of memory", owned);
    free(rules);
    return -1;
  }
  cfg->rules = grown;
  if (n) memcpy(cfg->rules + cfg->n_rules, rules, (size_t)n * sizeof *rules);
  cfg->n_rules += n;
  free(rules);
  return 0;
}

/* ------------------------------------------------------------------ queries */

int nn_config_numa_count(const struct nn_config *cfg) {
  if (!cfg) return 0;
  unsigned char used[NN_MAX_NUMA_ID + 1] = {0};
  int n = 0;
  for (int i = 0; i < cfg->n_gpus; i++) {
    int node = cfg->gpus[i].numa;
    if (node >= 0 && node <= NN_MAX_NUMA_ID && !used[node]++) n++;
  }
  return n;
}

int nn_config_max_gpus_per_numa(const struct nn_config *cfg) {
  if (!cfg) return 0;
  int count[NN_MAX_NUMA_ID + 1] = {0};
  int best = 0;
  for (int i = 0; i < cfg->n_gpus; i++) {
    int node = cfg->gpus[i].numa;
    if (node >= 0 && node <= NN_MAX_NUMA_ID && ++count[node] > best) best = count[node];
  }
  return best;
}

const struct nn_numa *nn_config_find_numa(const struct nn_config *cfg, int node) {
  for (int i = 0; cfg && i < cfg->n_numas; i++)
    if (cfg->numas[i].node == node) return &cfg->numas[i];
  return NULL;
}

const char *nn_config_env(const struct nn_config *cfg, const char *name) {
  const char *p2p = nn_config_p2p_env(cfg, name);
  if (p2p) return p2p;
  for (int i = 0; cfg && name && i < cfg->n_envs; i++)
    if (!strcmp(cfg->envs[i].name, name)) return cfg->envs[i].value;
  return NULL;
}
