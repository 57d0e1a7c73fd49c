/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * config_p2p.c - the `p2p` directive: what `nccl-numa p2p` proved about GPU peer access
 * on this machine, and the NCCL variables that follow from it.
 *
 *   p2p ok [level=LOC|PIX|PXB|PHB|SYS] [tested=TEXT] [driver=TEXT]
 *   p2p broken [tested=TEXT] [driver=TEXT]
 *   p2p unsupported [tested=TEXT] [driver=TEXT]
 *
 * NCCL allows peer access only up to PXB by default (ncclTopoCheckP2p, src/graph/paths.cc,
 * 2.28.9 to 2.30.7); inside a VM every GPU pair is at least PHB, so a verified `ok` must
 * raise NCCL_P2P_LEVEL or NCCL keeps the host-memory path. `broken` must stop NCCL from
 * trying peer access at all, since a fabric that drops peer writes hangs NCCL's P2P
 * protocols or corrupts data rather than failing. `ok` without level= means PHB: the
 * widest level that stays on one host bridge, so pairs across sockets keep the host path
 * until a test proved them too.
 */
#include "config_parser.h"

#include <string.h>

#include "ascii.h"

static const char *const state_names[] = {[NN_P2P_OK] = "ok", [NN_P2P_BROKEN] = "broken",
                                          [NN_P2P_UNSUPPORTED] = "unsupported"};
/* NCCL's path types, as NCCL_P2P_LEVEL spells them (src/graph/paths.cc); NVL and the
 * switch types are not what a PCIe VM has, so a mapping cannot name them. */
static const char *const level_names[] = {[NN_P2P_LEVEL_LOC] = "LOC", [NN_P2P_LEVEL_PIX] = "PIX",
                                          [NN_P2P_LEVEL_PXB] = "PXB", [NN_P2P_LEVEL_PHB] = "PHB",
                                          [NN_P2P_LEVEL_SYS] = "SYS"};

static int name_index(const char *const *names, int n, const char *s) {
  for (int i = 0; i < n; i++)
    if (names[i] && nn_ascii_caseeq(names[i], s)) return i;
  return -1;
}

const char *nn_config_p2p_state_name(int state) {
  return state > 0 && state < NN_COUNT_OF(state_names) ? state_names[state] : "none";
}

const char *nn_config_p2p_level_name(int level) {
  return level >= 0 && level < NN_COUNT_OF(level_names) ? level_names[level] : "?";
}

void nn_config_parser_p2p(struct nn_parser *p) {
  struct nn_p2p *out = &p->cfg->p2p;
  if (out->line) {
    nn_perr(p, "p2p: second p2p line (first on line %d)", out->line);
    return;
  }
  out->line = p->line;
  int state = p->nf >= 2 ? name_index(state_names, NN_COUNT_OF(state_names), p->f[1]) : -1;
  if (state < 0) {
    nn_perr(p, "p2p: expected ok, broken or unsupported after p2p%s%s%s", p->nf >= 2 ? ", got '" : "",
            p->nf >= 2 ? nn_quote(p, p->f[1]) : "", p->nf >= 2 ? "'" : "");
    return;
  }
  struct nn_kv k[] = {{"level", NULL}, {"tested", NULL}, {"driver", NULL}};
  if (nn_take_keys(p, "p2p", 2, k, NN_COUNT_OF(k))) return;
  int level = NN_P2P_LEVEL_PHB;
  if (k[0].val && state != NN_P2P_OK) {
    nn_perr(p, "p2p: level= goes only with p2p ok (a %s pair is used at no level)", state_names[state]);
    return;
  }
  if (k[0].val && (level = name_index(level_names, NN_COUNT_OF(level_names), k[0].val)) < 0) {
    nn_perr(p, "p2p: unknown level '%s' (expected LOC, PIX, PXB, PHB or SYS)", nn_quote(p, k[0].val));
    return;
  }
  out->state = state;
  out->level = level;
}

/* The variable a p2p line sets; NULL for none. */
static const char *p2p_variable(const struct nn_p2p *p2p) {
  return p2p->state == NN_P2P_OK ? "NCCL_P2P_LEVEL" : p2p->state == NN_P2P_BROKEN ? "NCCL_P2P_DISABLE" : NULL;
}

const char *nn_config_p2p_env(const struct nn_config *cfg, const char *name) {
  const char *var = cfg && name ? p2p_variable(&cfg->p2p) : NULL;
  if (!var || strcmp(var, name)) return NULL;
  return cfg->p2p.state == NN_P2P_OK ? level_names[cfg->p2p.level] : "1";
}

/* After the last line: with ok or broken, an `env` line may not set NCCL's peer-access
 * variables, since two lines of one file would then disagree; `unsupported` decides
 * nothing, so the file's own env lines stand. */
void nn_config_parser_p2p_finish(struct nn_parser *p) {
  static const char *const owned[] = {"NCCL_P2P_LEVEL", "NCCL_P2P_DISABLE"};
  const struct nn_config *c = p->cfg;
  if (!p2p_variable(&c->p2p)) return;
  for (int i = 0; i < c->n_envs; i++)
    for (int j = 0; j < NN_COUNT_OF(owned); j++)
      if (!strcmp(c->envs[i].name, owned[j])) {
        p->line = c->envs[i].line;
        nn_perr(p, "env: %s conflicts with the p2p line (line %d), which decides peer access; "
                "remove one of them", owned[j], c->p2p.line);
      }
}
