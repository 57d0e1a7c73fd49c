/* SPDX-License-Identifier: BSD-3-Clause */
/* p2pprint.h - `nccl-numa p2p`'s report as text (a row per pair, the verdict in words, the
 * mapping line on a line of its own) or as one JSON document. */
#ifndef NCCL_NUMA_CLI_P2PPRINT_H
#define NCCL_NUMA_CLI_P2PPRINT_H

#include <stdio.h>

#include "cli/p2p/p2preport.h"

/* `subset`: --gpus left some of the machine's GPUs out; `updated`: the mapping --update wrote
 * the line into (NULL: the line is to be added by hand). */
void nn_p2pprint_text(FILE *out, const struct nn_p2p_report *r, int subset, const char *updated);
void nn_p2pprint_json(FILE *out, const struct nn_p2p_report *r, int subset);

#endif
