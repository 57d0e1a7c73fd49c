/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * protonotes.h - rules whose protocol NCCL keeps off on a release between PCIe-only GPUs
 * (LL128 on most releases): a tuner chooses among the entries NCCL enabled, so such a rule
 * can never take effect there. explain and check-config say so, per rule.
 */
#ifndef NCCL_NUMA_CLI_PROTONOTES_H
#define NCCL_NUMA_CLI_PROTONOTES_H

#include <stdio.h>

#include "nccl_model.h"
#include "nn_config.h"

/* Writes one line per rule of cfg whose proto= names a protocol release r keeps off between
 * PCIe-only GPUs of compute capability sm (nn_nccl_proto_enabled_pcie): "PREFIXFILE:LINE:
 * TAGproto=ll128 cannot take effect on NCCL X: ...". Returns the number of such rules. */
int nn_protonotes_print(FILE *out, const char *prefix, const char *tag, const struct nn_config *cfg,
                        const struct nn_nccl_release *r, int sm);

#endif
