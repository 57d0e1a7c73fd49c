/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * config_rules.c - the directives that say what to change: `rule` (algorithm,
 * protocol, channels, chunk size for matching calls), `include-csv` (rules in the CSV
 * format of NCCL's example tuner), `env` (defaults the env plugin serves),
 * `model` and `topology`. See config_parser.h.
 */
#include "ascii.h"
#include "config_parser.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv_rules.h"
#include "env_names.h"
#include "numparse.h"

static int is_any(const char *v) { return nn_ascii_caseeq(v, "any"); }

/* ------------------------------------------------------------------ rule */

/* `lo-hi`, `lo-` or (when allowed) `n`. */
static int rule_range(struct nn_parser *p, const char *key, const char *val, int single,
                      uint64_t *lo, uint64_t *hi) {
  const char *dash = strchr(val, '-');
  if (!dash && !single) {
    nn_perr(p, "rule: %s=%s: expected a range lo-hi or lo- (e.g. 64K-1M)", key, nn_quote(p, val));
    return 1;
  }
  if (dash == val) {
    nn_perr(p, "rule: %s=%s: missing lower bound (sizes cannot be negative)", key,
            nn_quote(p, val));
    return 1;
  }
  char lo_s[64], hi_s[64];
  size_t lo_len = dash ? (size_t)(dash - val) : strlen(val);
  const char *hs = dash ? dash + 1 : NULL;
  if (lo_len >= sizeof lo_s || (hs && strlen(hs) >= sizeof hi_s)) {
    nn_perr(p, "rule: %s=%s: number too large", key, nn_quote(p, val));
    return 1;
  }
  memcpy(lo_s, val, lo_len);
  lo_s[lo_len] = 0;
  int r1 = nn_u64_parse(lo_s, 1, UINT64_MAX, lo), r2 = 0;
  if (hs && *hs) {
    memcpy(hi_s, hs,
           strlen(hs) + 1); /* fits: checked above (snprintf cost a sixth of a rule line) */
    r2 = nn_u64_parse(hi_s, 1, UINT64_MAX, hi);
  } else {
    *hi = hs ? NN_UNBOUNDED : *lo;
  }
  if (r1 == -2 || r2 == -2) {
    nn_perr(p, "rule: %s=%s: number too large (overflows 64 bits)", key, nn_quote(p, val));
    return 1;
  }
  if (r1 || r2) {
    nn_perr(p, "rule: %s=%s: bad number (expected digits with an optional K, M, G or T suffix)",
            key, nn_quote(p, val));
    return 1;
  }
  if (*lo > *hi) {
    nn_perr(p, "rule: %s=%s: inverted range (lower bound above upper bound)", key,
            nn_quote(p, val));
    return 1;
  }
  return 0;
}

static int rule_enum(struct nn_parser *p, const char *key, const char *val, int value,
                     const char *expected, int *out) {
  if (value == -2) {
    nn_perr(p, "rule: unknown %s '%s' (expected %s)", key, nn_quote(p, val), expected);
    return 1;
  }
  *out = value;
  return 0;
}

enum {
  RK_COLL,
  RK_BYTES,
  RK_RANKS,
  RK_NODES,
  RK_SCOPE,
  RK_ALGO,
  RK_PROTO,
  RK_CHANNELS,
  RK_CHUNK,
  RK_N
};

static int rule_values(struct nn_parser *p, struct nn_kv *k, struct nn_rule *r) {
  int bad = 0;
  for (int i = RK_BYTES; i < RK_N; i++)
    if (i != RK_SCOPE && k[i].val && is_any(k[i].val)) {
      nn_perr(p,
              "rule: %s=any: 'any' is a value only for coll and scope (leave %s out to match "
              "anything)",
              k[i].key, k[i].key);
      k[i].val = NULL;
      bad++;
    }
  if (k[RK_COLL].val)
    bad += rule_enum(p, "coll", k[RK_COLL].val, nn_coll_from_name(k[RK_COLL].val),
                     "allreduce, allgather, reducescatter, broadcast, reduce or any", &r->coll);
  if (k[RK_BYTES].val)
    bad += rule_range(p, "bytes", k[RK_BYTES].val, 0, &r->bytes_lo, &r->bytes_hi);
  if (k[RK_RANKS].val)
    bad += rule_range(p, "ranks", k[RK_RANKS].val, 1, &r->ranks_lo, &r->ranks_hi);
  if (k[RK_NODES].val)
    bad += rule_range(p, "nodes", k[RK_NODES].val, 1, &r->nodes_lo, &r->nodes_hi);
  if (k[RK_SCOPE].val)
    bad += rule_enum(p, "scope", k[RK_SCOPE].val, nn_scope_from_name(k[RK_SCOPE].val),
                     "intra, cross or any", &r->scope);
  if (k[RK_ALGO].val)
    bad += rule_enum(p, "algo", k[RK_ALGO].val, nn_algo_from_name(k[RK_ALGO].val),
                     "tree, ring, collnet_direct, collnet_chain, nvls, nvls_tree or pat", &r->algo);
  if (k[RK_PROTO].val)
    bad += rule_enum(p, "proto", k[RK_PROTO].val, nn_proto_from_name(k[RK_PROTO].val),
                     "ll, ll128 or simple", &r->proto);
  if (k[RK_CHANNELS].val) {
    uint64_t ch;
    if (nn_u64_parse(k[RK_CHANNELS].val, 0, NN_MAX_CHANNELS, &ch) || ch < 1) {
      nn_perr(p, "rule: bad channels '%s' (expected 1-%d)", nn_quote(p, k[RK_CHANNELS].val),
              NN_MAX_CHANNELS);
      bad++;
    } else {
      r->channels = (int)ch;
    }
  }
  if (k[RK_CHUNK].val) {
    uint64_t v;
    if (nn_u64_parse(k[RK_CHUNK].val, 1, NN_MAX_CHUNK, &v) || v < NN_MIN_CHUNK) {
      nn_perr(p,
              "rule: bad chunk '%s' (expected %d to 1G bytes, with an optional K, M or G suffix)",
              nn_quote(p, k[RK_CHUNK].val), NN_MIN_CHUNK);
      bad++;
    } else {
      r->chunk = v;
    }
  }
  return bad;
}

void nn_config_parser_rule(struct nn_parser *p) {
  struct nn_config *c = p->cfg;
  if (p->rules_over) return;
  if (c->n_rules >= NN_MAX_RULES) {
    nn_perr(p, "rule: too many rules (at most %d)", NN_MAX_RULES);
    p->rules_over = 1;
    return;
  }
  struct nn_kv k[RK_N] = {{"coll", NULL},  {"bytes", NULL},    {"ranks", NULL},
                          {"nodes", NULL}, {"scope", NULL},    {"algo", NULL},
                          {"proto", NULL}, {"channels", NULL}, {"chunk", NULL}};
  struct nn_rule r = {.coll = NN_ANY,
                      .bytes_hi = NN_UNBOUNDED,
                      .ranks_hi = NN_UNBOUNDED,
                      .nodes_hi = NN_UNBOUNDED,
                      .scope = NN_SCOPE_ANY,
                      .algo = NN_ANY,
                      .proto = NN_ANY,
                      .pipeops = NN_ANY,
                      .regbuff = NN_ANY,
                      .file = c->files[0],
                      .line = p->line};
  int bad = nn_take_keys(p, "rule", 1, k, RK_N);
  bad += rule_values(p, k, &r);
  if (!k[RK_ALGO].val && !k[RK_PROTO].val && !k[RK_CHANNELS].val && !k[RK_CHUNK].val) {
    nn_perr(p, "rule: needs at least one of algo=, proto=, channels=, chunk=");
    bad++;
  }
  if (bad) return;
  if (nn_grow((void **)&c->rules, &p->rules_cap, c->n_rules + 1, sizeof r)) {
    nn_perr(p, "out of memory");
    return;
  }
  c->rules[c->n_rules++] = r;
}

/* ------------------------------------------------------------------ env, model, topology */

static int env_name_ok(const char *s) {
  if (strncmp(s, "NCCL_", 5) || !s[5]) return 0;
  for (; *s; s++)
    if (!isalnum((unsigned char)*s) && *s != '_') return 0;
  return 1;
}

/* The slot holding `name`, or the empty slot where it would go (FNV-1a hash). */
static int *env_slot(struct nn_parser *p, const char *name) {
  uint32_t h = 2166136261u;
  for (const unsigned char *s = (const unsigned char *)name; *s; s++) h = (h ^ *s) * 16777619u;
  size_t i = h % NN_ENV_SLOTS;
  while (p->env_tab[i] && strcmp(p->cfg->envs[p->env_tab[i] - 1].name, name))
    i = (i + 1) % NN_ENV_SLOTS;
  return &p->env_tab[i];
}

void nn_config_parser_env(struct nn_parser *p) {
  struct nn_config *c = p->cfg;
  if (p->nf < 2) {
    nn_perr(p, "env: expected env NCCL_NAME=value");
    return;
  }
  int bad = 0;
  for (int i = 2; i < p->nf; i++, bad++)
    nn_perr(p, "env: unexpected field '%s' (values contain no spaces)", nn_quote(p, p->f[i]));
  char *eq = strchr(p->f[1], '=');
  if (!eq) {
    nn_perr(p, "env: expected NAME=value, got '%s'", nn_quote(p, p->f[1]));
    return;
  }
  *eq = 0;
  const char *name = p->f[1], *value = eq + 1;
  if (!env_name_ok(name)) {
    nn_perr(p,
            "env: '%s' is not an NCCL variable name (expected NCCL_ followed by letters, "
            "digits or _)",
            nn_quote(p, name));
    return;
  }
  const char *refusal = nn_env_refusal(name);
  if (refusal) {
    nn_prefuse(p, "env: %s refused, not served: %s", name, refusal);
    return;
  }
  char why[640];
  if (nn_env_value_refusal(name, value, why, sizeof why)) {
    nn_prefuse(p, "env: %s='%s' refused, not served: %s", name, nn_quote(p, value), why);
    return;
  }
  int *slot = env_slot(p, name);
  if (*slot) {
    nn_perr(p, "env: duplicate %s (first on line %d)", name, c->envs[*slot - 1].line);
    return;
  }
  if (bad || p->envs_over) return;
  if (c->n_envs >= NN_MAX_ENVS) {
    nn_perr(p, "env: too many env lines (at most %d)", NN_MAX_ENVS);
    p->envs_over = 1;
    return;
  }
  if (nn_grow((void **)&c->envs, &p->envs_cap, c->n_envs + 1, sizeof *c->envs)) {
    nn_perr(p, "out of memory");
    return;
  }
  struct nn_env_default *e = &c->envs[c->n_envs];
  e->name = strdup(name);
  e->value = strdup(value);
  e->line = p->line;
  if (!e->name || !e->value) {
    free(e->name);
    free(e->value);
    nn_perr(p, "out of memory");
    return;
  }
  *slot = ++c->n_envs;
}

/* The value of the one key of a directive a file may hold once; *first keeps
 * the line of the first such directive (0 before it). Returns NULL after
 * reporting a repeat, a bad field or a missing key (`hint` follows "KEY="). */
static const char *take_single_key(struct nn_parser *p, const char *dir, int *first,
                                   const char *key, const char *hint) {
  if (*first) {
    nn_perr(p, "%s: second %s line (first on line %d)", dir, dir, *first);
    return NULL;
  }
  *first = p->line;
  struct nn_kv k[] = {{key, NULL}};
  if (nn_take_keys(p, dir, 1, k, 1)) return NULL;
  if (!k[0].val) nn_perr(p, "%s: missing %s=%s", dir, key, hint);
  return k[0].val;
}

void nn_config_parser_model(struct nn_parser *p) {
  struct nn_config *c = p->cfg;
  const char *v = take_single_key(p, "model", &c->model_line, "pci-latency-us", "");
  if (!v) return;
  double x = 0;
  if (nn_double_parse(v, &x) || !(x > 0.0 && x <= 1e6)) {
    nn_perr(p,
            "model: bad pci-latency-us '%s' (expected a number of microseconds, "
            "0 < x <= 1000000)",
            nn_quote(p, v));
    return;
  }
  c->pci_latency_us = x;
}

void nn_config_parser_topology(struct nn_parser *p) {
  const char *v = take_single_key(p, "topology", &p->topo_line, "mode", " (auto, numa or off)");
  if (!v) return;
  int m = nn_topo_mode_from_name(v);
  if (m < 0) {
    nn_perr(p, "topology: unknown mode '%s' (expected auto, numa or off)", nn_quote(p, v));
    return;
  }
  p->cfg->topo_mode = m;
}

/* ------------------------------------------------------------------ include-csv */

/* A relative path is taken relative to the mapping file's directory, as users expect
 * of a file that names its neighbours. */
static char *resolve_include(const char *config_name, const char *path) {
  const char *slash = strrchr(config_name, '/');
  if (path[0] == '/' || !slash) return strdup(path);
  size_t dir_len = (size_t)(slash - config_name) + 1, n = strlen(path);
  char *full = malloc(dir_len + n + 1);
  if (!full) return NULL;
  memcpy(full, config_name, dir_len);
  memcpy(full + dir_len, path, n + 1);
  return full;
}

static void append_csv_rules(struct nn_parser *p, const struct nn_rule *rules, int n) {
  struct nn_config *c = p->cfg;
  if (c->n_rules + n > NN_MAX_RULES) {
    nn_perr(p, "include-csv: %d more rules would exceed %d rules", n, NN_MAX_RULES);
    p->rules_over = 1;
    return;
  }
  if (nn_grow((void **)&c->rules, &p->rules_cap, c->n_rules + n, sizeof *rules)) {
    nn_perr(p, "out of memory");
    return;
  }
  memcpy(c->rules + c->n_rules, rules, (size_t)n * sizeof *rules);
  c->n_rules += n;
}

/* The slot of the file include-csv read before with the same identity (a missing or
 * unreadable one: the same path), or the empty slot where it goes. */
static int *csv_slot(struct nn_parser *p, const struct nn_file_key *key, const char *path) {
  uint64_t h = 14695981039346656037ULL;
  if (key->err)
    for (const unsigned char *s = (const unsigned char *)path; *s; s++)
      h = (h ^ *s) * 1099511628211ULL;
  else h = ((uint64_t)key->dev * 1099511628211ULL) ^ (uint64_t)key->ino;
  size_t i = (size_t)(h % NN_CSV_SLOTS);
  for (;;) {
    int at = p->csv_tab[i];
    if (!at) return &p->csv_tab[i];
    const struct nn_csv_seen *e = &p->csv_seen[at - 1];
    if (key->err ? e->key.err && !strcmp(e->path, path) : nn_snapshot_key_equal(&e->key, key))
      return &p->csv_tab[i];
    i = (i + 1) % NN_CSV_SLOTS;
  }
}

/* The same file again: its rules copied (named by this line's path) or its error recalled,
 * never read again: 400 lines of one 16 MiB file used to read it 400 times. */
static void include_again(struct nn_parser *p, const struct nn_csv_seen *e, const char *path) {
  struct nn_config *c = p->cfg;
  if (e->bad_line) {
    nn_perr(p, "include-csv: %s: rejected at line %d above", path, e->bad_line);
    return;
  }
  if (!e->n || p->rules_over) return;
  if (c->n_rules + e->n > NN_MAX_RULES) {
    nn_perr(p, "include-csv: %d more rules would exceed %d rules", e->n, NN_MAX_RULES);
    p->rules_over = 1;
    return;
  }
  if (nn_grow((void **)&c->rules, &p->rules_cap, c->n_rules + e->n, sizeof *c->rules)) {
    nn_perr(p, "out of memory");
    return;
  }
  memcpy(c->rules + c->n_rules, c->rules + e->first, (size_t)e->n * sizeof *c->rules);
  for (int i = 0; i < e->n; i++) c->rules[c->n_rules + i].file = path;
  c->n_rules += e->n;
}

/* Counts a file of `size` bytes against the mapping's include budget; -1 (reported) when
 * it would pass it. */
static int include_budget(struct nn_parser *p, const char *path, const struct nn_file_key *key) {
  uint64_t size = key->err || key->size < 0 ? 0 : (uint64_t)key->size;
  if (p->include_bytes + size > NN_MAX_INCLUDE_BYTES) {
    nn_perr(p,
            "include-csv: %s: its %llu bytes would pass the %u MiB that the files included by one "
            "mapping may hold in all",
            path, (unsigned long long)size, NN_MAX_INCLUDE_BYTES >> 20);
    return -1;
  }
  p->include_bytes += size;
  return 0;
}

/* Remembers in *slot what reading `path` (identity key) gave. */
static void remember_csv(struct nn_parser *p, int *slot, const struct nn_file_key *key,
                         const char *path, int first, int n, int bad) {
  p->csv_seen[p->n_csv_seen] = (struct nn_csv_seen){*key, path, first, n, bad ? p->line : 0};
  *slot = ++p->n_csv_seen;
}

/* Counts the line against NN_MAX_INCLUDES; -1 (reported once) past it. */
static int include_count(struct nn_parser *p) {
  if (++p->n_includes <= NN_MAX_INCLUDES) return 0;
  if (p->n_includes == NN_MAX_INCLUDES + 1)
    nn_perr(p, "include-csv: more than %d include-csv lines (a mapping may include at most %d)",
            NN_MAX_INCLUDES, NN_MAX_INCLUDES);
  return -1;
}

void nn_config_parser_include_csv(struct nn_parser *p) {
  if (p->nf != 2) {
    nn_perr(p, "include-csv: expected exactly one path");
    return;
  }
  if (include_count(p)) return;
  char *resolved = resolve_include(p->name, p->f[1]);
  const char *path = resolved ? nn_config_own_file(p->cfg, resolved) : NULL;
  if (!path) {
    nn_perr(p, "out of memory");
    return;
  }
  struct nn_file_key key;
  nn_snapshot_key_of(path, &key);
  int *slot = csv_slot(p, &key, path);
  if (*slot) {
    include_again(p, &p->csv_seen[*slot - 1], path);
    return;
  }
  if (include_budget(p, path, &key)) return;
  struct nn_rule *rules = NULL;
  int n = 0, first = p->cfg->n_rules, bad = 0;
  struct nn_diag sub = {0};
  if (nn_csv_rules_load(path, &rules, &n, &sub) != 0) {
    for (int i = 0; i < sub.n; i++) nn_perr(p, "include-csv: %s", sub.msgs[i]);
    if (sub.dropped) nn_perr(p, "include-csv: ... and %d more problems in %s", sub.dropped, path);
    bad = 1;
  } else {
    for (int i = 0; i < sub.n; i++) nn_diag_add(&p->cfg->notes, "%s", sub.msgs[i]);
    if (n && !p->rules_over) append_csv_rules(p, rules, n);
  }
  remember_csv(p, slot, &key, path, first, p->cfg->n_rules - first, bad);
  nn_diag_clear(&sub);
  free(rules);
}
