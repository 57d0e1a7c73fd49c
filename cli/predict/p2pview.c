/* SPDX-License-Identifier: BSD-3-Clause */
/* p2pview.c - the summary's sentence on GPU peer access; see p2pview.h. */
#include "cli/predict/p2pview.h"

#include <stdio.h>

int nn_p2pview_words(const struct nn_config *cfg, char *buf, size_t size) {
  const struct nn_p2p *p = &cfg->p2p;
  struct nn_p2p_serving all;
  nn_config_p2p_serve_all(cfg, &all);
  if (p->state == NN_P2P_OK && all.untested) {
    snprintf(buf, size,
             "the mapping's `p2p\x01ok` (line %d) does not cover all the mapping's GPUs: %s",
             p->line, all.why);
    return 1;
  }
  if (p->state == NN_P2P_OK) {
    const char *level = nn_config_p2p_level_name(p->level);
    snprintf(
      buf, size,
      "the mapping's `p2p\x01ok` (line %d) has the env plugin serve NCCL_P2P_LEVEL=%s, so NCCL "
      "moves data between GPUs directly (peer-to-peer) for pairs up to path type %s instead of "
      "through host "
      "memory (in NCCL's flat view every pair is PHB; where the two-socket file is served, the "
      "pairs within "
      "a socket); NCCL's own model picks the same algorithms either way, so only `nccl-numa\x01"
      "ab` shows "
      "the gain",
      p->line, level, level);
    return 1;
  }
  if (p->state == NN_P2P_BROKEN) {
    snprintf(buf, size,
             "the mapping's `p2p\x01"
             "broken` (line %d) has the env plugin serve NCCL_P2P_DISABLE=1 and "
             "NCCL_WIN_ENABLE=0, so NCCL never tries the GPU peer access that failed its test",
             p->line);
    return 1;
  }
  char why[64];
  if (p->state == NN_P2P_UNSUPPORTED)
    snprintf(why, sizeof why, "`p2p\x01unsupported`, line %d", p->line);
  else snprintf(why, sizeof why, "no `p2p` line");
  snprintf(
    buf, size,
    "GPU peer-to-peer is off (%s): every transfer between GPUs goes through host memory. In a "
    "VM it is the largest gain left (public reports, not measured here: 15.2 -> 1.0 us a "
    "transfer), once "
    "tested: docs/user/p2p.md",
    why);
  return 0;
}
