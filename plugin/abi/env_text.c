/* SPDX-License-Identifier: BSD-3-Clause */
/* env_text.c - what the env plugin tells the log about the peer access it serves. */
#include "env_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "; NCCL_P2P_DISABLE=0 is set in the environment: the user's value wins" for each variable
 * the served state decides that the user set, appended to msg. */
static void p2p_user_values(const struct nn_p2p_serving *served, char *msg, size_t size) {
  static const char *const names[] = {"NCCL_P2P_LEVEL", "NCCL_P2P_DISABLE", "NCCL_WIN_ENABLE"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    const char *user = nn_config_p2p_served_env(served, names[i]) ? getenv(names[i]) : NULL;
    size_t len = strlen(msg);
    if (user)
      snprintf(msg + len, size - len, "; %s=%s is set in the environment: the user's value wins",
               names[i], user);
  }
}

void nn_env_text_p2p(const struct nn_p2p_serving *p, int line, char *msg, size_t size) {
  if (p->state == NN_P2P_OK)
    snprintf(msg, size,
             "nccl-numa: p2p ok (mapping line %d): NCCL_P2P_LEVEL=%s served, so NCCL uses peer "
             "access between GPUs up to path type %s (in NCCL's flat view every pair; with the "
             "two-socket file served, the pairs of one socket)",
             line, nn_config_p2p_level_name(p->level), nn_config_p2p_level_name(p->level));
  else if (p->untested)
    snprintf(msg, size,
             "nccl-numa: p2p ok (mapping line %d) not served: %s: NCCL_P2P_DISABLE=1 and "
             "NCCL_WIN_ENABLE=0 served",
             line, p->why);
  else if (p->state == NN_P2P_BROKEN)
    snprintf(msg, size,
             "nccl-numa: p2p broken (mapping line %d): NCCL_P2P_DISABLE=1 and NCCL_WIN_ENABLE=0 "
             "served, so NCCL never tries the peer access that failed its test",
             line);
  else
    snprintf(msg, size,
             "nccl-numa: p2p unsupported (mapping line %d): the driver offers no peer access; "
             "nothing served",
             line);
  p2p_user_values(p, msg, size);
}

void nn_env_text_graph(const struct nn_config *cfg, const char *name, const char *var, char *msg,
                       size_t size) {
  const char *user = getenv(name), *mapped = nn_config_env(cfg, name);
  static const char hang[] = "NCCL's peer access with CUDA-graph buffer registration and PyTorch's "
                             "expandable segments has hung graph capture (pytorch/pytorch#158029)";
  if (user)
    snprintf(msg, size,
             "nccl-numa: NCCL_GRAPH_REGISTER=%s is set in the environment: the user's value "
             "wins (%s; 0 avoids it)",
             user, hang);
  else if (mapped)
    snprintf(msg, size,
             "nccl-numa: NCCL_GRAPH_REGISTER=%s from the mapping's env line wins (%s; 0 avoids "
             "it)",
             mapped, hang);
  else
    snprintf(msg, size,
             "nccl-numa: NCCL_GRAPH_REGISTER=0 served: p2p ok (mapping line %d) is served and "
             "%s turns on expandable_segments; %s. Set NCCL_GRAPH_REGISTER to choose otherwise",
             cfg->p2p.line, var, hang);
}
