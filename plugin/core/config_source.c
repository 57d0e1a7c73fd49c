/* SPDX-License-Identifier: BSD-3-Clause */
/* config_source.c - the configuration found and loaded as the plugin does (config_source.h). */
#include "config_source.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "snapshot.h"

void nn_config_source_find(const char *arg, struct nn_config_source *src) {
  const char *env = getenv("NCCL_NUMA_CONFIG");
  const char *csv = getenv("NCCL_TUNER_CONFIG_FILE");
  if (arg && *arg) *src = (struct nn_config_source){arg, "--config", 1, NULL};
  else if (env && *env) *src = (struct nn_config_source){env, "NCCL_NUMA_CONFIG", 1, NULL};
  else *src = (struct nn_config_source){NN_DEFAULT_CONFIG_PATH, "default", 0, NULL};
  src->tuner_csv = csv && *csv ? csv : NULL;
}

/* The default path names no file: there is no mapping (the load already recorded the miss). */
static int default_missing(const struct nn_config_source *src) {
  struct stat st;
  return !src->named && stat(src->path, &st) != 0 && errno == ENOENT;
}

/* NCCL_TUNER_CONFIG_FILE's rules into *cfg (an empty config when there is no mapping). */
static int add_tuner_csv(const struct nn_config_source *src, struct nn_config **cfg,
                         struct nn_diag *diag) {
  if (!*cfg && nn_config_parse(src->tuner_csv, "", 0, NULL, cfg, diag) != 0) return -1;
  if ((*cfg)->n_rules) return 0;
  if (nn_config_add_csv_rules(*cfg, src->tuner_csv, diag) == 0) return 0;
  nn_config_free(*cfg);
  *cfg = NULL;
  return -1;
}

static int resolve(const struct nn_config_source *src, const struct nn_parse_opts *opts,
                   struct nn_config **out, struct nn_diag *diag, const char **culprit);

/* Outside the plugin's recording (a command), the mapping and NCCL_TUNER_CONFIG_FILE share one
 * recording of their own: one trust walk budget for the configuration, as in the plugin. */
int nn_config_resolve(const struct nn_config_source *src, const struct nn_parse_opts *opts,
                      struct nn_config **out, struct nn_diag *diag, const char **culprit) {
  struct nn_snapshot_record rec;
  int began = nn_snapshot_record_if_none(&rec);
  int status = resolve(src, opts, out, diag, culprit);
  nn_snapshot_record_close(&rec, began);
  return status;
}

static int resolve(const struct nn_config_source *src, const struct nn_parse_opts *opts,
                   struct nn_config **out, struct nn_diag *diag, const char **culprit) {
  struct nn_config *cfg = NULL;
  struct nn_diag mine = {0};
  *out = NULL;
  if (culprit) *culprit = src->path;
  if (nn_config_load(src->path, opts, &cfg, &mine) != 0) {
    if (!default_missing(src)) {
      for (int i = 0; i < mine.n; i++) nn_diag_add(diag, "%s", mine.msgs[i]);
      if (diag) diag->dropped += mine.dropped;
      nn_diag_clear(&mine);
      return NN_CFG_INVALID;
    }
    if (!src->tuner_csv) {
      nn_diag_clear(&mine);
      return NN_CFG_ABSENT;
    }
  }
  nn_diag_clear(&mine);
  if (src->tuner_csv && add_tuner_csv(src, &cfg, diag) != 0) {
    if (culprit) *culprit = src->tuner_csv;
    return NN_CFG_INVALID;
  }
  *out = cfg;
  return NN_CFG_OK;
}

void nn_config_rejected_name(const struct nn_config_source *src, const char *culprit, char *buf,
                             size_t size) {
  if (culprit && src->tuner_csv && culprit == src->tuner_csv)
    snprintf(buf, size, "NCCL_TUNER_CONFIG_FILE %s (for config %s)", src->tuner_csv, src->path);
  else snprintf(buf, size, "config %s", src->path);
}
