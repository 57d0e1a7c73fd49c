/* SPDX-License-Identifier: BSD-3-Clause */
/* summary.c - the `summary:` paragraph of explain and check (see summary.h). */
#include "cli/predict/summary.h"

#include "cli/predict/p2pview.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli/predict/costview.h"
#include "nccl_model.h"
#include "sizetext.h"

struct text {
  char *buf;
  size_t size, len;
};

static void add(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(struct text *t, const char *fmt, ...) {
  if (t->len >= t->size) return;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(t->buf + t->len, t->size - t->len, fmt, ap);
  va_end(ap);
  if (n > 0) t->len = (size_t)n < t->size - t->len ? t->len + (size_t)n : t->size - 1;
}

static void add_where(struct nn_summary_rules *out, int coll, int lo, int hi) {
  char l[32], h[32];
  size_t len = strlen(out->where);
  nn_sizetext((uint64_t)1 << lo, l, sizeof l);
  nn_sizetext((uint64_t)1 << hi, h, sizeof h);
  if (lo == hi) snprintf(out->where + len, sizeof out->where - len, "%s%s %s", len ? ", " : "", nn_coll_name(coll), l);
  else snprintf(out->where + len, sizeof out->where - len, "%s%s %s - %s", len ? ", " : "", nn_coll_name(coll), l, h);
}

void nn_summary_rules_of(const struct nn_cost_model *m, const struct nn_policy *p, int max_log2,
                         struct nn_summary_rules *out) {
  memset(out, 0, sizeof *out);
  out->applying = nn_policy_rule_count(p);
  if (!m) return;
  out->modelled = 1;
  unsigned char seen[NN_MAX_RULES] = {0};
  for (int coll = 0; coll < NN_COLL_COUNT; coll++) {
    struct nn_costview_band b[64];
    int n = nn_costview_bands(m, p, coll, max_log2, b, 64);
    for (int i = 0; i < n; i++) {
      if (b[i].rule < 0 || (!b[i].overrides && !b[i].channels)) continue;
      if (b[i].rule < NN_MAX_RULES && !seen[b[i].rule]) { seen[b[i].rule] = 1; out->changing++; }
      int lo = b[i].lo_log2;
      while (i + 1 < n && b[i + 1].rule >= 0 && (b[i + 1].overrides || b[i + 1].channels)) i++;   /* merge */
      add_where(out, coll, lo, b[i].hi_log2);
    }
  }
}

static int same_graph(const struct nn_graph_pred *a, const struct nn_graph_pred *b) {
  return a->ok == b->ok && (!a->ok || (a->nchannels == b->nchannels && a->bw_intra == b->bw_intra));
}

static void graph_words(const char *name, const struct nn_graph_pred *g, char *buf, size_t size) {
  /* \x01: a space the wrap keeps ("2 x 24.0 GB/s" stays on one line) */
  if (g->ok) snprintf(buf, size, "%s\x01%d\x01x\x01%.1f\x01GB/s", name, g->nchannels, (double)g->bw_intra);
  else snprintf(buf, size, "a failed %s search (1\x01x\x01" "0.1\x01GB/s)", name);
}

static void pred_words(const struct nn_search_pred *p, char *buf, size_t size) {
  char r[80], t[80];
  if (!p->ring.ok && !p->tree.ok) {
    snprintf(buf, size, "failed ring and tree searches (1\x01x\x01" "0.1\x01GB/s)");
    return;
  }
  graph_words("ring", &p->ring, r, sizeof r);
  graph_words("tree", &p->tree, t, sizeof t);
  snprintf(buf, size, "%s, %s", r, t);
}

/* Whether every NUMA node holding a GPU has a `numa N cpus=` line (the served file's affinity). */
static int affinity_given(const struct nn_config *cfg) {
  for (int i = 0; i < cfg->n_gpus; i++) {
    const struct nn_numa *n = nn_config_find_numa(cfg, cfg->gpus[i].numa);
    if (!n || !n->cpus || !n->cpus[0]) return 0;
  }
  return cfg->n_gpus > 0;
}

static void nodes_words(const struct nn_config *cfg, char *buf, size_t size) {
  int first = cfg->n_gpus ? cfg->gpus[0].numa : -1;
  if (nn_config_numa_count(cfg) == 1) snprintf(buf, size, "NUMA node %d", first);
  else snprintf(buf, size, "each GPU's NUMA node");
}

/* The file served: what it changes. Returns 1 when NCCL sees something new. */
static int served_words(const struct nn_summary_in *in, struct text *t) {
  const struct nn_topo_verdict *v = in->v;
  char nodes[64], a[200], b[200];
  int aff = affinity_given(in->cfg), differs = 0;
  nodes_words(in->cfg, nodes, sizeof nodes);
  add(t, "NCCL gets the topology file");
  if (v->predicted) {
    differs = !same_graph(&v->served.ring, &v->own.ring) || !same_graph(&v->served.tree, &v->own.tree);
    pred_words(&v->served, a, sizeof a);
    pred_words(&v->own, b, sizeof b);
    int worse = !v->served.ring.ok || !v->served.tree.ok ||
                nn_search_ring_gbps(&v->served) < nn_search_ring_gbps(&v->own) ||
                nn_search_tree_gbps(&v->served) < nn_search_tree_gbps(&v->own);
    if (differs)
      add(t, ", and its graphs change: %s instead of its own view's %s, %s by NCCL's own model", a, b,
          worse ? "slower" : "not slower");
    else add(t, " with the same graphs as its own view (%s)", a);
  }
  if (aff) add(t, ", %s the CPU affinity of %s", v->predicted && !differs ? "plus" : "with", nodes);
  else add(t, ", without CPU affinity (no `numa N cpus=` line: the plugin takes it from sysfs where that node exists)");
  return differs || aff;
}

static void withheld_words(const struct nn_summary_in *in, struct text *t) {
  const struct nn_topo_verdict *v = in->v;
  char a[200], b[200];
  if (v->mode == NN_TOPO_OFF) { add(t, "NCCL gets no topology file (`topology mode=off`)"); return; }
  if (!v->predicted) { add(t, "NCCL gets no topology file (%s)", v->reason); return; }
  pred_words(&v->served, a, sizeof a);
  pred_words(&v->own, b, sizeof b);
  if (v->fails_regardless) {
    add(t, "NCCL gets no topology file: its search fails on these GPUs' PCIe links whatever file it reads (%s)", b);
    return;
  }
  add(t, "NCCL gets no topology file, because with it NCCL's own model would give this job slower graphs (%s "
      "instead of %s), so NCCL keeps its own view, which has no CPU affinity", a, b);
  if (v->numa_nodes > 1)
    add(t, " (a job whose GPUs all sit on one NUMA node, e.g. CUDA_VISIBLE_DEVICES set to one socket's GPUs, "
        "gets the file)");
}

/* "2.28.7": the first release with an env plugin (its row in nccl_model.c). */
static const char *since_env_plugin(void) {
  static char since[16];
  nn_nccl_env_plugin_since(since, sizeof since);
  return since;
}

/* The topology part. Returns 1 when it changes what NCCL sees. */
static int topo_words(const struct nn_summary_in *in, struct text *t, char *ver) {
  if (!in->cfg) { add(t, "there is no mapping, so NCCL gets no topology file"); return 0; }
  if (nn_nccl_lacks_env_plugin(in->nccl_version)) {
    add(t, "NCCL %s has no env plugin (it arrived in %s), so NCCL gets no topology file from nccl-numa", ver,
        since_env_plugin());
    return 0;
  }
  if (in->user_topo) { add(t, "NCCL reads your NCCL_TOPO_FILE (%s), so nccl-numa serves none", in->user_topo); return 0; }
  if (!in->v) { add(t, "NCCL gets no topology file (%s)", in->no_verdict ? in->no_verdict : "no verdict"); return 0; }
  if (in->v->serve) return served_words(in, t);
  withheld_words(in, t);
  return 0;
}

/* The rules part. Returns 1 when they change NCCL's choice, -1 when unknown. */
static int rules_words(const struct nn_config *cfg, const struct nn_summary_rules *r, struct text *t) {
  if (!cfg) { add(t, "there are no rules"); return 0; }
  if (cfg->n_rules == 0) { add(t, "the mapping has no rules"); return 0; }
  if (!r || r->applying == 0) { add(t, "none of its %d rules applies to this communicator", cfg->n_rules); return 0; }
  if (!r->modelled) {
    add(t, "%d rule%s can apply, and whether %s NCCL's own choice is not modelled for this shape", r->applying,
        r->applying == 1 ? "" : "s", r->applying == 1 ? "it changes" : "they change");
    return -1;
  }
  if (r->changing == 0) {
    if (r->applying == 1) add(t, "the one rule that applies picks what NCCL picks itself at every size");
    else add(t, "the %d rules that apply pick what NCCL picks itself at every size", r->applying);
    return 0;
  }
  char where[sizeof r->where];
  for (size_t i = 0; i < sizeof where; i++)   /* "1 MiB" stays on one line (wrap) */
    if ((where[i] = r->where[i]) == ' ' && i > 0 && r->where[i - 1] >= '0' && r->where[i - 1] <= '9') where[i] = '\x01';
  if (r->changing == r->applying)
    add(t, "%s %d rule%s that apply change%s NCCL's own choice (%s)", r->applying == 1 ? "the" : "all", r->applying,
        r->applying == 1 ? "" : "s", r->applying == 1 ? "s" : "", where);
  else
    add(t, "%d of the %d rules that apply change NCCL's own choice (%s)", r->changing, r->applying, where);
  return 1;
}

/* The `env` lines. Returns 1 when they apply. */
static int env_words(const struct nn_summary_in *in, struct text *t, const char *ver) {
  int n = in->cfg ? in->cfg->n_envs : 0;
  if (n == 0) { add(t, "there are no `env` lines"); return 0; }
  const char *s = n == 1 ? "" : "s";
  const char *since = since_env_plugin();
  if (in->nccl_version <= 0) {
    add(t, "the %d `env` line%s apply if that NCCL has the env plugin (%s and later)", n, s, since);
    return -1;
  }
  if (nn_nccl_lacks_env_plugin(in->nccl_version)) {
    add(t, "the %d `env` line%s cannot apply (no env plugin before %s)", n, s, since);
    return 0;
  }
  add(t, "the %d `env` line%s apply (NCCL %s has the env plugin)", n, s, ver);
  return 1;
}

/* Wraps the one-line paragraph at spaces (not at \\x01, written as a space), about `width`
 * columns, "\n  " between lines. */
static void wrap(const char *line, char *buf, size_t size, size_t width) {
  struct text t = {buf, size, 0};
  buf[0] = 0;
  size_t col = 0;
  const char *s = line;
  while (*s) {
    size_t w = strcspn(s, " ");
    if (col > 0 && col + 1 + w > width) { add(&t, "\n  "); col = 2; }
    else if (col > 0) { add(&t, " "); col++; }
    add(&t, "%.*s", (int)w, s);
    col += w;
    s += w;
    while (*s == ' ') s++;
  }
  add(&t, "\n");
  for (char *c = buf; *c; c++)
    if (*c == '\x01') *c = ' ';
}

void nn_summary_text(const struct nn_summary_in *in, char *buf, size_t size) {
  char ver[48] = "the NCCL it loads (release unknown)", line[4096], parts[3][1536];
  if (in->nccl_version > 0) {
    char v[16];
    nn_nccl_version_format(in->nccl_version, v, sizeof v);
    snprintf(ver, sizeof ver, "%s", v);
  }
  struct text tp = {parts[0], sizeof parts[0], 0}, rp = {parts[1], sizeof parts[1], 0},
              ep = {parts[2], sizeof parts[2], 0};
  parts[0][0] = parts[1][0] = parts[2][0] = 0;
  int topo = topo_words(in, &tp, ver);
  int rules = rules_words(in->cfg, in->rules, &rp);
  int env = env_words(in, &ep, ver);
  char p2p[768] = "";
  int p2p_serves = in->cfg ? nn_p2pview_words(in->cfg, p2p, sizeof p2p) : 0;
  int nothing = !topo && rules == 0 && env == 0 && !p2p_serves;
  struct text t = {line, sizeof line, 0};
  add(&t, "summary: %s for this job on %s%s: %s; %s; %s.", nothing ? "nccl-numa changes nothing" :
      "what nccl-numa changes", in->nccl_version > 0 ? "NCCL " : "", ver, parts[0], parts[1], parts[2]);
  if (p2p[0]) {
    p2p[0] = (char)toupper((unsigned char)p2p[0]);
    add(&t, " %s.", p2p);
  }
  if (!in->cfg)
    add(&t, " Next: make a mapping (`nccl-numa\x01" "discover`), then measure on the GPUs with `nccl-numa\x01"
        "calibrate`.");
  else if (nn_nccl_lacks_env_plugin(in->nccl_version))
    add(&t, " Next: NCCL %s or later, or `nccl-numa\x01" "topo` into a file named by NCCL_TOPO_FILE, then measure "
        "with `nccl-numa\x01" "calibrate` on the GPUs.", since_env_plugin());
  else
    add(&t, " Next: measure on the GPUs with `nccl-numa\x01" "calibrate`, whose rules change NCCL's choice only where "
        "the measurements beat it%s.", topo ? ", and compare with and without the plugin with `nccl-numa\x01" "ab`" : "");
  wrap(line, buf, size, 100);
}
