/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * p2pview.h - what the mapping's `p2p` line means for a job, in the user's words, for the
 * summary `explain` and `check` end with (summary.h): the NCCL variable it has the env plugin
 * serve and why, or, where peer access is not in use, that it is the largest gain a VM has
 * and the order to get it (docs/user/p2p.md).
 */
#ifndef NCCL_NUMA_CLI_P2PVIEW_H
#define NCCL_NUMA_CLI_P2PVIEW_H

#include <stddef.h>

#include "nn_config.h"

/* The sentence (no leading capital, no final stop) into buf; returns 1 when the line has the
 * plugin serve something (ok, broken), 0 otherwise. Summary text marks a space that must not
 * wrap as \x01, as summary.c does. */
int nn_p2pview_words(const struct nn_config *cfg, char *buf, size_t size);

#endif
