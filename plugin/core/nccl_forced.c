/* SPDX-License-Identifier: BSD-3-Clause */
/* nccl_forced.c - NCCL_ALGO / NCCL_PROTO as NCCL parses them, and the rules they block. */
#include "nccl_forced.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ascii.h"

const char *nn_forced_name(int var) { return var == NN_FORCED_ALGO ? "NCCL_ALGO" : "NCCL_PROTO"; }

/* A piece [s, s + n) of the value. */
struct piece {
  const char *s;
  size_t n;
};

/* The next non-empty piece of [*p, end) between `sep`s, as strtok_r would return it; 0 at the
 * end. */
static int next_piece(const char **p, const char *end, char sep, struct piece *out) {
  while (*p < end && **p == sep) (*p)++;
  if (*p >= end) return 0;
  const char *s = *p;
  while (*p < end && **p != sep) (*p)++;
  *out = (struct piece){s, (size_t)(*p - s)};
  return 1;
}

/* One list ("[^]a,b") applied to collective c's n entries. */
static int apply_list(struct piece list, int kind, int n, unsigned char *on) {
  int negate = list.n > 0 && list.s[0] == '^';
  const char *p = list.s + negate, *end = list.s + list.n;
  for (int i = 0; i < n; i++) on[i] = (unsigned char)negate;
  struct piece w;
  while (next_piece(&p, end, ',', &w)) {
    int i = nn_nccl_name_find(kind, w.s, w.n);
    if (i < 0) return -1;
    on[i] = (unsigned char)!negate;
  }
  return 0;
}

/* One ';'-entry: "list" (the first only) or "coll:list". */
static int apply_entry(struct piece entry, int first, int kind, int n, unsigned char *on) {
  const char *p = entry.s, *end = entry.s + entry.n;
  struct piece prefix, list;
  if (!next_piece(&p, end, ':', &prefix)) return -1; /* only ':'s: NCCL would read a NULL list */
  int has_list = next_piece(&p, end, ':', &list);
  if (!has_list) {
    if (!first) return -1; /* NCCL: every entry but the first needs a prefix */
    for (int c = 0; c < NN_COLL_COUNT; c++)
      if (apply_list(prefix, kind, n, on + c * n)) return -1;
    return 0;
  }
  int c = nn_nccl_name_find(NN_NAME_COLL, prefix.s, prefix.n);
  return c < 0 ? -1 : apply_list(list, kind, n, on + c * n);
}

int nn_forced_parse(const char *value, int var, unsigned char *on) {
  int kind = var == NN_FORCED_ALGO ? NN_NAME_ALGO : NN_NAME_PROTO;
  int n = var == NN_FORCED_ALGO ? NN_ALGO_COUNT : NN_PROTO_COUNT;
  memset(on, 1, (size_t)NN_COLL_COUNT * (size_t)n);
  const char *p = value, *end = value + strlen(value);
  struct piece entry;
  int rc = 0;
  while (rc == 0 && next_piece(&p, end, ';', &entry))
    rc = apply_entry(entry, entry.s == value, kind, n, on);
  if (rc) memset(on, 1, (size_t)NN_COLL_COUNT * (size_t)n);
  return rc;
}

static void read_var(const struct nn_config *cfg, struct nn_forced *f, int var) {
  const char *name = nn_forced_name(var), *v = getenv(name);
  f->env_line[var] = 0;
  if (!v || !*v) {
    v = nn_config_env(cfg, name);
    for (int i = 0; v && i < cfg->n_envs; i++)
      if (!strcmp(cfg->envs[i].name, name)) f->env_line[var] = cfg->envs[i].line;
  }
  f->value[var] = v && *v ? v : NULL;
  int n = var == NN_FORCED_ALGO ? NN_ALGO_COUNT : NN_PROTO_COUNT;
  unsigned char *on = var == NN_FORCED_ALGO ? &f->algo_on[0][0] : &f->proto_on[0][0];
  f->invalid[var] = f->value[var] ? nn_forced_parse(f->value[var], var, on) != 0 : 0;
  if (!f->value[var]) memset(on, 1, (size_t)NN_COLL_COUNT * (size_t)n);
  f->restricted[var] = 0;
  for (int c = 0; c < NN_COLL_COUNT; c++)
    for (int i = 0; i < n; i++)
      if (!on[c * n + i]) f->restricted[var] |= 1u << c;
}

void nn_forced_read(const struct nn_config *cfg, struct nn_forced *f) {
  for (int var = 0; var < NN_FORCED_COUNT; var++) read_var(cfg, f, var);
}

int nn_forced_any(const struct nn_forced *f) {
  return f->value[NN_FORCED_ALGO] != NULL || f->value[NN_FORCED_PROTO] != NULL;
}

unsigned nn_forced_blocks(const struct nn_forced *f, const struct nn_rule *r, int coll) {
  if (coll < 0 || coll >= NN_COLL_COUNT) return 0;
  unsigned b = 0;
  if (r->algo >= 0 && r->algo < NN_ALGO_COUNT && !f->algo_on[coll][r->algo])
    b |= 1u << NN_FORCED_ALGO;
  if (r->proto >= 0 && r->proto < NN_PROTO_COUNT && !f->proto_on[coll][r->proto])
    b |= 1u << NN_FORCED_PROTO;
  return b;
}

/* "allreduce, allgather" for the bits of mask, in NCCL's order. */
static void coll_list(unsigned mask, char *buf, size_t size) {
  size_t used = 0;
  buf[0] = 0;
  for (int c = 0; c < NN_COLL_COUNT && used < size; c++)
    if (mask >> c & 1u)
      used += (size_t)snprintf(buf + used, size - used, "%s%s", used ? ", " : "", nn_coll_name(c));
}

/* Rules of cfg that var keeps from firing for some collective they cover; *first gets the first. */
static int count_blocked(const struct nn_config *cfg, const struct nn_forced *f, int var,
                         int *first) {
  int n = 0;
  *first = -1;
  for (int i = 0; cfg && i < cfg->n_rules; i++) {
    const struct nn_rule *r = &cfg->rules[i];
    unsigned hit = 0;
    for (int c = 0; c < NN_COLL_COUNT; c++)
      if (r->coll == NN_ANY || r->coll == c) hit |= nn_forced_blocks(f, r, c);
    if (!(hit >> var & 1u)) continue;
    if (*first < 0) *first = i;
    n++;
  }
  return n;
}

int nn_forced_describe(const struct nn_config *cfg, const struct nn_forced *f, int var, char *buf,
                       size_t size) {
  char from[300] = "the environment", colls[96];
  if (f->env_line[var])
    snprintf(from, sizeof from, "%s:%d's env line", cfg && cfg->path ? cfg->path : "?",
             f->env_line[var]);
  if (f->invalid[var]) {
    snprintf(buf, size, "%s=%s (from %s) is a value NCCL rejects: its communicator init fails",
             nn_forced_name(var), f->value[var], from);
    return 0;
  }
  int first, n = count_blocked(cfg, f, var, &first);
  coll_list(f->restricted[var], colls, sizeof colls);
  int used =
    snprintf(buf, size, "%s=%s (from %s) decides before any tuner%s%s: ", nn_forced_name(var),
             f->value[var], from, f->restricted[var] ? " for " : "", colls);
  if (used < 0 || (size_t)used >= size) return n;
  if (!n) snprintf(buf + used, size - (size_t)used, "no rule chooses what it leaves out");
  else
    snprintf(buf + used, size - (size_t)used,
             "%d rule%s choosing what it leaves out cannot fire there (first %s:%d)", n,
             n == 1 ? "" : "s", cfg->rules[first].file ? cfg->rules[first].file : "?",
             cfg->rules[first].line);
  return n;
}
