/* SPDX-License-Identifier: BSD-3-Clause */
/* cliconfig.c - the configuration for a command, as the plugin finds it (cliconfig.h). */
#include "cli/common/cliconfig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void nn_cli_print_problems(const char *name, const struct nn_diag *d) {
  for (int i = 0; i < d->n; i++) fprintf(stderr, "%s\n", d->msgs[i]);
  if (d->dropped)
    fprintf(stderr, "%s: ... and %d more problem%s not shown\n", name, d->dropped,
            d->dropped == 1 ? "" : "s");
  fprintf(stderr, "%s: invalid (%d problem%s)\n", name, d->n + d->dropped,
          d->n + d->dropped == 1 ? "" : "s");
}

void nn_cli_print_notes(const struct nn_config *cfg) {
  for (int i = 0; cfg && i < cfg->refused.n; i++) fprintf(stderr, "%s\n", cfg->refused.msgs[i]);
  for (int i = 0; cfg && i < cfg->notes.n; i++) fprintf(stderr, "%s\n", cfg->notes.msgs[i]);
}

int nn_cli_config_load(const char *cmd, const char *arg, const struct nn_parse_opts *opts,
                       int quiet_absent, struct nn_cli_config *out) {
  struct nn_diag d = {0};
  const char *culprit = NULL;
  memset(out, 0, sizeof *out);
  nn_config_source_find(arg, &out->src);
  out->status = nn_config_resolve(&out->src, opts, &out->cfg, &d, &culprit);
  if (out->status == NN_CFG_INVALID) {
    nn_cli_print_problems(culprit ? culprit : out->src.path, &d);
    if (culprit && culprit == out->src.tuner_csv)
      fprintf(stderr,
              "nccl-numa %s: the rules of NCCL_TUNER_CONFIG_FILE %s are rejected; the plugin would "
              "reject config %s with them\n",
              cmd, culprit, out->src.path);
  } else if (out->status == NN_CFG_OK) {
    nn_cli_print_notes(out->cfg);
  } else if (out->status == NN_CFG_ABSENT && !quiet_absent) {
    fprintf(stderr,
            "nccl-numa %s: no mapping: give --config FILE, set NCCL_NUMA_CONFIG, or create %s\n",
            cmd, NN_DEFAULT_CONFIG_PATH);
  }
  nn_diag_clear(&d);
  return out->status;
}

void nn_cli_config_free(struct nn_cli_config *c) {
  nn_config_free(c->cfg);
  c->cfg = NULL;
}

int nn_config_validate(const char *path) {
  struct nn_cli_config c;
  int status = nn_cli_config_load("config", path, NULL, 0, &c);
  nn_cli_config_free(&c);
  return status == NN_CFG_OK ? 0 : -1;
}
