/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * config_source.h - where the configuration comes from, found the same way by the plugin
 * and by every command: the mapping named by the command's --config, else by
 * NCCL_NUMA_CONFIG (the real environment: an `env` line cannot move it), else
 * NN_DEFAULT_CONFIG_PATH; and the CSV rule file named by NCCL_TUNER_CONFIG_FILE, whose rules
 * apply when the mapping has none or there is no mapping at all (as NCCL's example tuner
 * reads that variable, so a file written for it keeps working behind nccl-numa).
 */
#ifndef NCCL_NUMA_CONFIG_SOURCE_H
#define NCCL_NUMA_CONFIG_SOURCE_H

#include <stddef.h>

#include "nn_config.h"

#define NN_DEFAULT_CONFIG_PATH "/etc/nccl-numa.conf"

struct nn_config_source {
  const char *path;      /* the mapping; never NULL */
  const char *origin;    /* how path was found: "--config", "NCCL_NUMA_CONFIG" or "default" */
  int named;             /* 1 unless the default: a missing named file is an error */
  const char *tuner_csv; /* NCCL_TUNER_CONFIG_FILE, or NULL when unset or empty */
};

/* Fills src from `arg` (a command's --config; NULL or "" for none) and the environment.
 * The strings point into arg, the environment or static storage. */
void nn_config_source_find(const char *arg, struct nn_config_source *src);

/* Loads the configuration as the plugin does: the mapping (a missing default file means no
 * mapping, not an error), then NCCL_TUNER_CONFIG_FILE's rules when the mapping has no rules
 * or there is no mapping. Returns NN_CFG_OK with *out set; NN_CFG_ABSENT (no mapping and no
 * CSV file; *out NULL, diag untouched); or NN_CFG_INVALID with every problem in diag
 * ("FILE:LINE: problem") and *culprit (when culprit is not NULL) the file at fault,
 * src->path or src->tuner_csv. A bad CSV file rejects the whole configuration. */
int nn_config_resolve(const struct nn_config_source *src, const struct nn_parse_opts *opts,
                      struct nn_config **out, struct nn_diag *diag, const char **culprit);

/* Names what was rejected, for the line after the problems: "config PATH", or, when the
 * CSV file was at fault, "NCCL_TUNER_CONFIG_FILE CSV (for config PATH)". */
void nn_config_rejected_name(const struct nn_config_source *src, const char *culprit, char *buf,
                             size_t size);

#endif
