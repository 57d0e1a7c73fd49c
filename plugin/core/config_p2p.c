/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * config_p2p.c - the `p2p` directive: what `nccl-numa p2p` proved about GPU peer access
 * on this machine, and the NCCL variables that follow from it.
 *
 *   p2p ok|broken|unsupported [level=LOC|PIX|PXB|PHB|SYS] [gpus=LIST] [driver=VERSION]
 *       [xproc=ok|failed] [tested=TEXT]
 *
 * level= goes with ok alone. gpus= lists the mapping's GPU numbers (its `gpu N` lines) that
 * were tested, as a CPU list ("0-3", "0,1,4,5"); driver= is the NVIDIA driver version tested,
 * as /proc/driver/nvidia/version prints it; xproc=ok says the cross-process test passed.
 *
 * What NCCL does with the level: NCCL allows peer access only up to PXB by default
 * (ncclTopoCheckP2p, src/graph/paths.cc, 2.28.9 to 2.30.7), except on AMD CPUs with at most
 * two GPUs, where its default is SYS. NCCL_P2P_LEVEL is one global limit on the path type
 * of a pair: in the flat view a VM gives NCCL (no topology file served), every pair is PHB,
 * so `ok` (PHB) puts every pair, across sockets too, on peer access; only where the
 * two-socket file is served are the cross-socket pairs SYS and kept on host memory.
 *
 * An ok line is served only to a process whose GPUs it lists in gpus= and while the driver
 * it names runs, and only when it says the test across processes passed (xproc=ok;
 * nn_config_p2p_serve); a line without gpus=, driver= or xproc=ok (written before the command
 * recorded them) counts as untested. P2P off is NCCL_P2P_DISABLE=1 and
 * NCCL_WIN_ENABLE=0: NCCL's symmetric memory is gated by the raw CUDA P2P capability and
 * NCCL_WIN_ENABLE, not by NCCL_P2P_DISABLE (src/init.cc, 2.28.9).
 */
#include "config_parser.h"

#include <stdio.h>
#include <string.h>

#include "ascii.h"

/* The one table of the states' names (the CLI's verdicts print these too). */
static const char *const state_names[] = {[NN_P2P_NONE] = "none",
                                          [NN_P2P_OK] = "ok",
                                          [NN_P2P_BROKEN] = "broken",
                                          [NN_P2P_UNSUPPORTED] = "unsupported"};
/* NCCL's path types, as NCCL_P2P_LEVEL spells them (src/graph/paths.cc); NVL and the
 * switch types are not what a PCIe VM has, so a mapping cannot name them. */
static const char *const level_names[] = {[NN_P2P_LEVEL_LOC] = "LOC",
                                          [NN_P2P_LEVEL_PIX] = "PIX",
                                          [NN_P2P_LEVEL_PXB] = "PXB",
                                          [NN_P2P_LEVEL_PHB] = "PHB",
                                          [NN_P2P_LEVEL_SYS] = "SYS"};
static const char *const xproc_names[] = {
  [NN_P2P_XPROC_OK] = "ok", [NN_P2P_XPROC_FAILED] = "failed"};

static int name_index(const char *const *names, int n, const char *s) {
  for (int i = 0; i < n; i++)
    if (names[i] && nn_ascii_caseeq(names[i], s)) return i;
  return -1;
}

const char *nn_config_p2p_state_name(int state) {
  return state >= 0 && state < NN_COUNT_OF(state_names) ? state_names[state] : "none";
}

const char *nn_config_p2p_level_name(int level) {
  return level >= 0 && level < NN_COUNT_OF(level_names) ? level_names[level] : "?";
}

void nn_config_p2p_gpus_format(uint64_t gpus, char *buf, size_t size) {
  size_t used = 0;
  if (size) buf[0] = '\0';
  for (int g = 0; g < NN_P2P_MAX_TESTED; g++) {
    if (!(gpus >> g & 1)) continue;
    int end = g;
    while (end + 1 < NN_P2P_MAX_TESTED && (gpus >> (end + 1) & 1)) end++;
    int n = end > g ? snprintf(buf + used, size - used, "%s%d-%d", used ? "," : "", g, end)
                    : snprintf(buf + used, size - used, "%s%d", used ? "," : "", g);
    if (n < 0 || (size_t)n >= size - used) return;
    used += (size_t)n;
    g = end;
  }
}

/* gpus=LIST into *out; -1 after reporting. */
static int parse_gpus(struct nn_parser *p, const char *list, uint64_t *out) {
  uint32_t mask[NN_CPUMASK_WORDS];
  char err[128];
  int highest = nn_cpulist_parse(list, mask, err, sizeof err);
  if (highest < 0) {
    nn_perr(p, "p2p: gpus='%s': %s (a list of the mapping's GPU numbers such as 0-3 or 0,1,4,5)",
            nn_quote(p, list), err);
    return -1;
  }
  if (highest >= NN_P2P_MAX_TESTED) {
    nn_perr(p, "p2p: gpus= names GPU %d; a p2p line records GPUs 0 to %d", highest,
            NN_P2P_MAX_TESTED - 1);
    return -1;
  }
  *out = (uint64_t)mask[0] | (uint64_t)mask[1] << 32;
  return 0;
}

/* driver=VERSION: digits and dots, as the driver prints its version. */
static int parse_driver(struct nn_parser *p, const char *v, char *out) {
  size_t len = strlen(v);
  if (!len || len >= NN_P2P_DRIVER_CHARS || strspn(v, "0123456789.") != len || v[0] == '.') {
    nn_perr(p, "p2p: driver='%s': expected the NVIDIA driver's version, such as 580.95.05",
            nn_quote(p, v));
    return -1;
  }
  memcpy(out, v, len + 1);
  return 0;
}

/* The fields after the state; 0, or -1 after reporting. */
static int parse_fields(struct nn_parser *p, int state, struct nn_p2p *out) {
  struct nn_kv k[] = {
    {"level", NULL}, {"tested", NULL}, {"driver", NULL}, {"gpus", NULL}, {"xproc", NULL}};
  if (nn_take_keys(p, "p2p", 2, k, NN_COUNT_OF(k))) return -1;
  out->level = NN_P2P_LEVEL_PHB;
  if (k[0].val && state != NN_P2P_OK) {
    nn_perr(p, "p2p: level= goes only with p2p ok (a %s pair is used at no level)",
            state_names[state]);
    return -1;
  }
  if (k[0].val && (out->level = name_index(level_names, NN_COUNT_OF(level_names), k[0].val)) < 0) {
    nn_perr(p, "p2p: unknown level '%s' (expected LOC, PIX, PXB, PHB or SYS)",
            nn_quote(p, k[0].val));
    return -1;
  }
  if (k[2].val && parse_driver(p, k[2].val, out->driver)) return -1;
  if (k[3].val && parse_gpus(p, k[3].val, &out->gpus)) return -1;
  if (k[4].val && (out->xproc = name_index(xproc_names, NN_COUNT_OF(xproc_names), k[4].val)) <= 0) {
    nn_perr(p, "p2p: xproc='%s': expected ok or failed", nn_quote(p, k[4].val));
    return -1;
  }
  if (state == NN_P2P_OK && out->xproc == NN_P2P_XPROC_FAILED) {
    nn_perr(p, "p2p: ok with xproc=failed: a failed cross-process test makes the verdict broken");
    return -1;
  }
  return 0;
}

void nn_config_parser_p2p(struct nn_parser *p) {
  struct nn_p2p *out = &p->cfg->p2p;
  if (out->line) {
    nn_perr(p, "p2p: second p2p line (first on line %d)", out->line);
    return;
  }
  out->line = p->line;
  int state = p->nf >= 2 ? name_index(state_names, NN_COUNT_OF(state_names), p->f[1]) : -1;
  if (state <= NN_P2P_NONE) {
    nn_perr(p, "p2p: expected ok, broken or unsupported after p2p%s%s%s",
            p->nf >= 2 ? ", got '" : "", p->nf >= 2 ? nn_quote(p, p->f[1]) : "",
            p->nf >= 2 ? "'" : "");
    return;
  }
  struct nn_p2p parsed = {.line = p->line};
  if (parse_fields(p, state, &parsed)) return;
  parsed.state = state;
  *out = parsed;
}

bool nn_config_p2p_covers(const struct nn_config *cfg, const int *mapping_gpus, int n) {
  if (!cfg || !cfg->p2p.gpus || n <= 0) return false;
  for (int i = 0; i < n; i++)
    if (mapping_gpus[i] < 0 || mapping_gpus[i] >= NN_P2P_MAX_TESTED ||
        !(cfg->p2p.gpus >> mapping_gpus[i] & 1))
      return false;
  return true;
}

/* "4,5": the GPUs of `gpus` the line does not list. */
static void untested_list(const struct nn_config *cfg, const int *gpus, int n, char *buf,
                          size_t size) {
  uint64_t missing = 0;
  int beyond = -1;
  for (int i = 0; i < n; i++) {
    if (gpus[i] >= 0 && gpus[i] < NN_P2P_MAX_TESTED) missing |= (uint64_t)1 << gpus[i];
    else beyond = gpus[i];
  }
  nn_config_p2p_gpus_format(missing & ~cfg->p2p.gpus, buf, size);
  size_t len = strlen(buf);
  if (beyond >= 0) snprintf(buf + len, size - len, "%s%d", len ? "," : "", beyond);
}

#define NN_P2P_RETEST \
  "P2P stays off for this process; test again with `nccl-numa p2p --update MAPPING`"

/* Why an ok line is not served to this process, into why; 0 when it is. */
static int untested_why(const struct nn_config *cfg, const int *gpus, int n, const char *driver,
                        char *why, size_t size) {
  const struct nn_p2p *l = &cfg->p2p;
  char list[160], tested[160];
  nn_config_p2p_gpus_format(l->gpus, tested, sizeof tested);
  if (!l->gpus || !l->driver[0]) {
    snprintf(why, size,
             "the p2p line (line %d) does not say which %s tested (%s=, written by `nccl-numa "
             "p2p` since it records them): an untested line; " NN_P2P_RETEST,
             l->line, !l->gpus ? "GPUs were" : "driver was", !l->gpus ? "gpus" : "driver");
  } else if (l->xproc != NN_P2P_XPROC_OK) {
    snprintf(why, size,
             "the p2p line (line %d) does not say the test across processes passed (xproc=ok), as "
             "a job of one process per GPU uses peer memory; " NN_P2P_RETEST,
             l->line);
  } else if (n == 0) {
    snprintf(why, size,
             "this process uses none of the mapping's GPUs, so the p2p line (line %d, gpus=%s) "
             "cannot say its GPUs were tested; " NN_P2P_RETEST,
             l->line, tested);
  } else if (n < 0) {
    snprintf(why, size,
             "this process's GPUs could not be matched to the mapping's, so the p2p line (line %d, "
             "gpus=%s) cannot say they were tested; " NN_P2P_RETEST,
             l->line, tested);
  } else if (!nn_config_p2p_covers(cfg, gpus, n)) {
    untested_list(cfg, gpus, n, list, sizeof list);
    int many = strpbrk(list, ",-") != NULL;
    snprintf(why, size,
             "GPU%s %s of this process %s not tested (p2p line %d: gpus=%s); " NN_P2P_RETEST,
             many ? "s" : "", list, many ? "were" : "was", l->line, tested);
  } else if (driver && !driver[0]) {
    snprintf(why, size,
             "the running NVIDIA driver's version cannot be read (/proc/driver/nvidia/version), so "
             "it cannot be the one tested (p2p line %d: driver=%s); " NN_P2P_RETEST,
             l->line, l->driver);
  } else if (driver && strcmp(driver, l->driver)) {
    snprintf(
      why, size,
      "the NVIDIA driver is now %s, the p2p line (line %d) was tested with %s; " NN_P2P_RETEST,
      driver, l->line, l->driver);
  } else {
    return 0;
  }
  return 1;
}

void nn_config_p2p_serve(const struct nn_config *cfg, const int *mapping_gpus, int n,
                         const char *driver, struct nn_p2p_serving *out) {
  memset(out, 0, sizeof *out);
  if (!cfg) return;
  out->state = cfg->p2p.state;
  out->level = cfg->p2p.level;
  if (out->state != NN_P2P_OK ||
      !untested_why(cfg, mapping_gpus, n, driver, out->why, sizeof out->why))
    return;
  out->state = NN_P2P_BROKEN;
  out->untested = 1;
}

const char *nn_config_p2p_served_env(const struct nn_p2p_serving *s, const char *name) {
  if (!s || !name) return NULL;
  if (s->state == NN_P2P_OK) return strcmp(name, "NCCL_P2P_LEVEL") ? NULL : level_names[s->level];
  if (s->state != NN_P2P_BROKEN) return NULL;
  if (!strcmp(name, "NCCL_P2P_DISABLE")) return "1";
  if (!strcmp(name, "NCCL_WIN_ENABLE")) return "0";
  return NULL;
}

/* The variables a p2p line decides. */
static const char *const owned[] = {"NCCL_P2P_LEVEL", "NCCL_P2P_DISABLE", "NCCL_WIN_ENABLE"};

bool nn_config_p2p_decides(const struct nn_config *cfg, const char *name) {
  if (!cfg || !name || (cfg->p2p.state != NN_P2P_OK && cfg->p2p.state != NN_P2P_BROKEN))
    return false;
  return name_index(owned, NN_COUNT_OF(owned), name) >= 0;
}

void nn_config_p2p_serve_all(const struct nn_config *cfg, struct nn_p2p_serving *out) {
  int all[NN_P2P_MAX_TESTED], n = 0;
  for (int i = 0; cfg && i < cfg->n_gpus && n < NN_P2P_MAX_TESTED; i++)
    all[n++] = cfg->gpus[i].index;
  if (cfg && cfg->n_gpus > NN_P2P_MAX_TESTED) all[NN_P2P_MAX_TESTED - 1] = cfg->n_gpus - 1;
  nn_config_p2p_serve(cfg, all, n, NULL, out);
}

const char *nn_config_p2p_env(const struct nn_config *cfg, const char *name) {
  if (!nn_config_p2p_decides(cfg, name)) return NULL;
  struct nn_p2p_serving s;
  nn_config_p2p_serve_all(cfg, &s);
  return nn_config_p2p_served_env(&s, name);
}

/* After the last line: gpus= names GPUs of the mapping; with ok or broken, an `env` line may
 * not set NCCL's peer-access variables, since two lines of one file would then disagree;
 * `unsupported` decides nothing, so the file's own env lines stand. */
void nn_config_parser_p2p_finish(struct nn_parser *p) {
  const struct nn_config *c = p->cfg;
  int saved = p->line;
  if (c->p2p.gpus && p->n_gpus > 0 && p->n_gpus < NN_P2P_MAX_TESTED && c->p2p.gpus >> p->n_gpus) {
    p->line = c->p2p.line;
    nn_perr(p, "p2p: gpus= names a GPU above %d, the mapping's last gpu line", p->n_gpus - 1);
  }
  p->line = saved;
  for (int i = 0; i < c->n_envs; i++)
    if (nn_config_p2p_decides(c, c->envs[i].name)) {
      p->line = c->envs[i].line;
      nn_perr(p,
              "env: %s conflicts with the p2p line (line %d), which decides peer access; "
              "remove one of them",
              c->envs[i].name, c->p2p.line);
    }
}
