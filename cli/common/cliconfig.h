/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cliconfig.h - the configuration for a command, found and loaded exactly as the plugin
 * does (config_source.h: --config, else NCCL_NUMA_CONFIG, else /etc/nccl-numa.conf, with
 * NCCL_TUNER_CONFIG_FILE's rules merged), and the one way commands report it: every
 * problem as "FILE:LINE: problem" on stderr, then "FILE: invalid (N problems)" naming the
 * file at fault (the mapping, or the CSV file).
 */
#ifndef NCCL_NUMA_CLI_CLICONFIG_H
#define NCCL_NUMA_CLI_CLICONFIG_H

#include <stddef.h>

#include "config_source.h"
#include "nn_config.h"

struct nn_cli_config {
  struct nn_config_source src;
  int status;            /* enum nn_cfg_status */
  struct nn_config *cfg; /* when NN_CFG_OK */
};

/* Finds and loads the configuration for `arg` (a --config value; NULL: none). On
 * NN_CFG_INVALID prints the problems as above (an untrusted file among them); on NN_CFG_OK
 * what nn_cli_print_notes prints; on NN_CFG_ABSENT prints, unless
 * quiet_absent, "nccl-numa CMD: no mapping: give --config FILE, set NCCL_NUMA_CONFIG, or
 * create /etc/nccl-numa.conf". Returns the status. */
int nn_cli_config_load(const char *cmd, const char *arg, const struct nn_parse_opts *opts,
                       int quiet_absent, struct nn_cli_config *out);

/* Prints, one per line on stderr, what an accepted config holds that is not applied or must
 * be told (nn_config.h): each refused `env` line, each file read only because of trust.h's
 * opt-out. NULL cfg: nothing. */
void nn_cli_print_notes(const struct nn_config *cfg);

/* Frees what nn_cli_config_load made. */
void nn_cli_config_free(struct nn_cli_config *c);

/* Prints the problems in d and the closing "NAME: invalid (N problems)" line. */
void nn_cli_print_problems(const char *name, const struct nn_diag *d);

/* Validates the configuration with the mapping `path` as the plugin would load it (the
 * problems printed as above). Returns 0 when valid. */
int nn_config_validate(const char *path);

#endif
