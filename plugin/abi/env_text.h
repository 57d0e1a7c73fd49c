/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * env_text.h - the env plugin's sentences about peer access (env.c decides when to say them).
 */
#ifndef NCCL_NUMA_ENV_TEXT_H
#define NCCL_NUMA_ENV_TEXT_H

#include <stddef.h>

#include "nn_config.h"

/* What the p2p line of mapping line `line`, served as `p`, does, with each variable it decides
 * that the user set (theirs wins), into msg. */
void nn_env_text_p2p(const struct nn_p2p_serving *p, int line, char *msg, size_t size);

/* Why NCCL_GRAPH_REGISTER (`name`) is what it is where peer access meets expandable segments
 * (`var` turned them on): the user's value, the mapping's env line, else the 0 served. */
void nn_env_text_graph(const struct nn_config *cfg, const char *name, const char *var, char *msg,
                       size_t size);

#endif
