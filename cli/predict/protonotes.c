/* SPDX-License-Identifier: BSD-3-Clause */
/* protonotes.c - rules whose protocol the release keeps off (protonotes.h). */
#include "cli/predict/protonotes.h"

int nn_protonotes_print(FILE *out, const char *prefix, const char *tag, const struct nn_config *cfg,
                        const struct nn_nccl_release *r, int sm) {
  int n = 0;
  for (int i = 0; cfg && r && i < cfg->n_rules; i++) {
    const struct nn_rule *rl = &cfg->rules[i];
    if (rl->proto == NN_ANY || nn_nccl_proto_enabled_pcie(r, rl->proto, sm)) continue;
    fprintf(
      out,
      "%s%s:%d: %sproto=%s cannot take effect on NCCL %s: it keeps %s off between PCIe-only GPUs, "
      "and a tuner chooses only among the protocols NCCL enabled\n",
      prefix, rl->file ? rl->file : "?", rl->line, tag, nn_proto_name(rl->proto), r->name,
      nn_proto_name(rl->proto));
    n++;
  }
  return n;
}
