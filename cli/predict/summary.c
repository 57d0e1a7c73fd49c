/* SPDX-License-Identifier: BSD-3-Clause */
/* summary.c - the `summary:` paragraph of explain and check (see summary.h). */
#include "cli/predict/summary.h"

#include "cli/predict/allreduce.h"
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
  if (lo == hi)
    snprintf(out->where + len, sizeof out->where - len, "%s%s %s", len ? ", " : "",
             nn_coll_name(coll), l);
  else
    snprintf(out->where + len, sizeof out->where - len, "%s%s %s - %s", len ? ", " : "",
             nn_coll_name(coll), l, h);
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
      if (b[i].rule < NN_MAX_RULES && !seen[b[i].rule]) {
        seen[b[i].rule] = 1;
        out->changing++;
      }
      int lo = b[i].lo_log2;
      while (i + 1 < n && b[i + 1].rule >= 0 && (b[i + 1].overrides || b[i + 1].channels))
        i++; /* merge */
      add_where(out, coll, lo, b[i].hi_log2);
    }
  }
}

static int same_graph(const struct nn_graph_pred *a, const struct nn_graph_pred *b) {
  return a->ok == b->ok && (!a->ok || (a->nchannels == b->nchannels && a->bw_intra == b->bw_intra));
}

static void graph_words(const char *name, const struct nn_graph_pred *g, char *buf, size_t size) {
  /* \x01: a space the wrap keeps ("2 x 24.0 GB/s" stays on one line) */
  if (g->ok)
    snprintf(buf, size, "%s\x01%d\x01x\x01%.1f\x01GB/s", name, g->nchannels, (double)g->bw_intra);
  else
    snprintf(buf, size,
             "a failed %s search (1\x01x\x01"
             "0.1\x01GB/s)",
             name);
}

static void pred_words(const struct nn_search_pred *p, char *buf, size_t size) {
  char r[80], t[80];
  if (!p->ring.ok && !p->tree.ok) {
    snprintf(buf, size,
             "failed ring and tree searches, 1\x01x\x01"
             "0.1\x01GB/s");
    return;
  }
  graph_words("ring", &p->ring, r, sizeof r);
  graph_words("tree", &p->tree, t, sizeof t);
  snprintf(buf, size, "%s, %s", r, t);
}

/* The figures after a consequence: "(with the file: ...; without it: ...)". */
static void figures(const struct nn_topo_verdict *v, struct text *t) {
  char a[200], b[200];
  pred_words(&v->served, a, sizeof a);
  pred_words(&v->own, b, sizeof b);
  add(t, " (with the file: %s; without it: %s)", a, b);
}

/* The CPUs of a node's `numa` line, into mask (NN_CPUMASK_WORDS words); 0, or -1 when none. */
static int node_cpus(const struct nn_config *cfg, int node, uint32_t *mask) {
  const struct nn_numa *n = nn_config_find_numa(cfg, node);
  char err[128];
  memset(mask, 0, NN_CPUMASK_WORDS * sizeof *mask);
  return n && n->cpus && n->cpus[0] && nn_cpulist_parse(n->cpus, mask, err, sizeof err) >= 0 ? 0
                                                                                             : -1;
}

/* The affinity the served file gives the job's GPUs' nodes: their `numa` lines; every CPU when
 * each of them lists all the CPUs of every `numa` line of two or more (a guest without NUMA
 * nodes whose mapping was completed from the host's). */
static int affinity_of(const struct nn_config *cfg) {
  static uint32_t all[NN_CPUMASK_WORDS], one[NN_CPUMASK_WORDS];
  memset(all, 0, sizeof all);
  for (int i = 0; i < cfg->n_numas; i++)
    if (node_cpus(cfg, cfg->numas[i].node, one) == 0)
      for (int w = 0; w < NN_CPUMASK_WORDS; w++) all[w] |= one[w];
  int every = cfg->n_numas >= 2;
  for (int i = 0; i < cfg->n_gpus; i++) {
    if (node_cpus(cfg, cfg->gpus[i].numa, one)) return NN_SUMMARY_AFFINITY_NONE;
    for (int w = 0; w < NN_CPUMASK_WORDS; w++) every &= (one[w] & all[w]) == all[w];
  }
  if (!cfg->n_gpus) return NN_SUMMARY_AFFINITY_NONE;
  return every ? NN_SUMMARY_AFFINITY_EVERY_CPU : NN_SUMMARY_AFFINITY_NODE;
}

/* How NCCL's rings and trees on the served file compare with those of its own detection. */
static int search_of(const struct nn_topo_verdict *v) {
  if (!v->predicted) return NN_SUMMARY_SEARCH_UNKNOWN;
  if (same_graph(&v->served.ring, &v->own.ring) && same_graph(&v->served.tree, &v->own.tree))
    return NN_SUMMARY_SEARCH_SAME;
  int worse = !v->served.ring.ok || !v->served.tree.ok ||
              nn_search_ring_gbps(&v->served) < nn_search_ring_gbps(&v->own) ||
              nn_search_tree_gbps(&v->served) < nn_search_tree_gbps(&v->own);
  return worse ? NN_SUMMARY_SEARCH_SLOWER : NN_SUMMARY_SEARCH_OTHER;
}

/* "2.28.7": the first release with an env plugin (its row in nccl_model.c). */
static const char *since_env_plugin(void) {
  static char since[16];
  nn_nccl_env_plugin_since(since, sizeof since);
  return since;
}

static int topo_of(const struct nn_summary_in *in) {
  if (!in->cfg) return NN_SUMMARY_TOPO_NO_MAPPING;
  if (nn_nccl_lacks_env_plugin(in->nccl_version)) return NN_SUMMARY_TOPO_NO_ENV_PLUGIN;
  if (in->user_topo) return NN_SUMMARY_TOPO_USER_FILE;
  if (!in->v) return NN_SUMMARY_TOPO_NO_VERDICT;
  if (in->v->serve) return NN_SUMMARY_TOPO_SERVED;
  if (in->v->mode == NN_TOPO_OFF) return NN_SUMMARY_TOPO_OFF;
  if (!in->v->predicted) return NN_SUMMARY_TOPO_UNPREDICTED;
  return in->v->fails_regardless ? NN_SUMMARY_TOPO_FAILS_ANYWAY : NN_SUMMARY_TOPO_WITHHELD;
}

static void affinity_words(const struct nn_summary_in *in, const struct nn_summary_facts *f,
                           struct text *t) {
  const struct nn_config *cfg = in->cfg;
  if (in->cpus_absent) {
    add(t, "; its CPU affinity names CPUs this OS does not have online (the mapping's `numa` lines "
           "are another "
           "machine's), so it pins nothing that is there until the mapping is made again");
    return;
  }
  if (f->affinity == NN_SUMMARY_AFFINITY_NONE) {
    add(t, ", without CPU affinity (no `numa N cpus=` line: the plugin takes it from sysfs where "
           "that node exists)");
  } else if (f->affinity == NN_SUMMARY_AFFINITY_EVERY_CPU) {
    add(t, "; but its CPU affinity is every CPU (the mapping gives each NUMA node the same CPUs: "
           "this OS has no "
           "real NUMA nodes), so nothing is pinned");
  } else if (nn_config_numa_count(cfg) == 1) {
    add(t, "; it pins NCCL's threads to the CPUs of NUMA node %d", cfg->gpus[0].numa);
  } else {
    add(t, "; it pins NCCL's threads to each GPU's NUMA node");
  }
}

/* The file served: what it changes, consequence first. */
static void served_words(const struct nn_summary_in *in, const struct nn_summary_facts *f,
                         struct text *t) {
  const struct nn_topo_verdict *v = in->v;
  char a[200];
  if (v->file == NN_FILE_FLAT) {
    add(t,
        "NCCL gets the flat topology file (every GPU under one CPU node), which NCCL's own model "
        "rates best: "
        "%s",
        v->numa.pred.ring.ok && v->numa.pred.tree.ok ? "faster than the file with NUMA nodes"
                                                     : "with NUMA nodes its search would fail");
    figures(v, t);
    if (in->cpus_absent) affinity_words(in, f, t);
    else
      add(t, "; its CPU affinity is the CPUs of all the job's NUMA nodes together, so NCCL's "
             "threads are not "
             "pinned to one node");
    return;
  }
  if (f->search == NN_SUMMARY_SEARCH_SAME) {
    pred_words(&v->served, a, sizeof a);
    add(t, "NCCL gets the topology file, which leaves its rings and trees as they are (%s)", a);
  } else if (f->search == NN_SUMMARY_SEARCH_OTHER) {
    add(t, "NCCL gets the topology file and finds other rings and trees with it, no slower by "
           "NCCL's own model");
    figures(v, t);
  } else if (f->search == NN_SUMMARY_SEARCH_SLOWER) {
    add(t, "NCCL gets the topology file and finds slower rings and trees with it, by NCCL's own "
           "model");
    figures(v, t);
  } else {
    add(t, "NCCL gets the topology file");
  }
  affinity_words(in, f, t);
}

static void withheld_words(const struct nn_summary_in *in, const struct nn_summary_facts *f,
                           struct text *t) {
  const struct nn_topo_verdict *v = in->v;
  char b[200];
  switch (f->topo) {
  case NN_SUMMARY_TOPO_OFF:
    add(t, "NCCL gets no topology file (`topology mode=off`)");
    return;
  case NN_SUMMARY_TOPO_UNPREDICTED: {
    char reason[1024];
    nn_topology_verdict_text(v, reason, sizeof reason);
    add(t, "NCCL gets no topology file (%s)", reason);
    return;
  }
  case NN_SUMMARY_TOPO_FAILS_ANYWAY:
    pred_words(&v->own, b, sizeof b);
    add(t,
        "NCCL gets no topology file: its search fails on these GPUs' PCIe links whatever file it "
        "reads, so "
        "no file can help (without one: %s)",
        b);
    return;
  default:
    break;
  }
  const char *pins = v->own_affinity ? "takes each GPU's NUMA node from sysfs" : "pins no CPUs";
  if (!v->served.ring.ok && !v->own.ring.ok)
    add(t,
        "NCCL gets no topology file: NCCL finds no working ring with it or without it (the socket "
        "link "
        "is below its search floor), so it is not given and NCCL uses its own detection, which %s",
        pins);
  else if (!v->served.ring.ok)
    add(t,
        "NCCL gets no topology file: with it NCCL would find no working ring, so it is not given "
        "and NCCL "
        "uses its own detection, which %s",
        pins);
  else
    add(t,
        "NCCL gets no topology file: with it NCCL would find slower rings and trees by its own "
        "model, so it "
        "is not given and NCCL uses its own detection, which %s",
        pins);
  figures(v, t);
  if (v->numa_nodes > 1)
    add(
      t,
      "; a job whose GPUs all sit on one NUMA node (CUDA_VISIBLE_DEVICES set to one socket's GPUs, "
      "`--visible-devices`) gets the file");
}

/* The topology part, from the facts. */
static void topo_words(const struct nn_summary_in *in, const struct nn_summary_facts *f,
                       struct text *t, const char *ver) {
  switch (f->topo) {
  case NN_SUMMARY_TOPO_NO_MAPPING:
    add(t, "there is no mapping, so NCCL gets no topology file");
    return;
  case NN_SUMMARY_TOPO_NO_ENV_PLUGIN:
    add(
      t,
      "NCCL %s has no env plugin (it arrived in %s), so NCCL gets no topology file from nccl-numa",
      ver, since_env_plugin());
    return;
  case NN_SUMMARY_TOPO_USER_FILE:
    add(t, "NCCL reads your NCCL_TOPO_FILE (%s), so nccl-numa serves none", in->user_topo);
    return;
  case NN_SUMMARY_TOPO_NO_VERDICT:
    add(t, "NCCL gets no topology file (%s)", in->no_verdict ? in->no_verdict : "no verdict");
    return;
  case NN_SUMMARY_TOPO_SERVED:
    served_words(in, f, t);
    return;
  default:
    withheld_words(in, f, t);
    return;
  }
}

/* The rules part (rules_of gives its fact). */
static void rules_words(const struct nn_config *cfg, const struct nn_summary_rules *r,
                        struct text *t) {
  if (!cfg) {
    add(t, "there are no rules");
    return;
  }
  if (cfg->n_rules == 0) {
    add(t, "the mapping has no rules");
    return;
  }
  if (!r || r->applying == 0) {
    add(t, "none of its %d rules applies to this communicator", cfg->n_rules);
    return;
  }
  if (!r->modelled) {
    add(t, "%d rule%s can apply, and whether %s NCCL's own choice is not modelled for this shape",
        r->applying, r->applying == 1 ? "" : "s", r->applying == 1 ? "it changes" : "they change");
    return;
  }
  if (r->changing == 0) {
    if (r->applying == 1)
      add(t, "the one rule that applies picks what NCCL picks itself at every size");
    else add(t, "the %d rules that apply pick what NCCL picks itself at every size", r->applying);
    return;
  }
  char where[sizeof r->where];
  for (size_t i = 0; i < sizeof where; i++) /* "1 MiB" stays on one line (wrap) */
    if ((where[i] = r->where[i]) == ' ' && i > 0 && r->where[i - 1] >= '0' &&
        r->where[i - 1] <= '9')
      where[i] = '\x01';
  if (r->changing == r->applying)
    add(t, "%s %d rule%s that apply change%s NCCL's own choice (%s)",
        r->applying == 1 ? "the" : "all", r->applying, r->applying == 1 ? "" : "s",
        r->applying == 1 ? "s" : "", where);
  else
    add(t, "%d of the %d rules that apply change NCCL's own choice (%s)", r->changing, r->applying,
        where);
}

/* The `env` lines (env_of gives their fact). */
static void env_words(const struct nn_summary_in *in, struct text *t, const char *ver) {
  int n = in->cfg ? in->cfg->n_envs : 0;
  if (n == 0) {
    add(t, "there are no `env` lines");
    return;
  }
  const char *s = n == 1 ? "" : "s";
  const char *since = since_env_plugin();
  if (in->nccl_version <= 0) {
    add(t, "the %d `env` line%s apply if that NCCL has the env plugin (%s and later)", n, s, since);
    return;
  }
  if (nn_nccl_lacks_env_plugin(in->nccl_version)) {
    add(t, "the %d `env` line%s cannot apply (no env plugin before %s)", n, s, since);
    return;
  }
  add(t, "the %d `env` line%s apply (NCCL %s has the env plugin)", n, s, ver);
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
    if (col > 0 && col + 1 + w > width) {
      add(&t, "\n  ");
      col = 2;
    } else if (col > 0) {
      add(&t, " ");
      col++;
    }
    add(&t, "%.*s", (int)w, s);
    col += w;
    s += w;
    while (*s == ' ') s++;
  }
  add(&t, "\n");
  for (char *c = buf; *c; c++)
    if (*c == '\x01') *c = ' ';
}

static int rules_of(const struct nn_config *cfg, const struct nn_summary_rules *r) {
  if (!cfg || cfg->n_rules == 0 || !r || r->applying == 0) return 0;
  if (!r->modelled) return -1;
  return r->changing > 0;
}

static int env_of(const struct nn_summary_in *in) {
  if (!in->cfg || in->cfg->n_envs == 0) return 0;
  if (in->nccl_version <= 0) return -1;
  return !nn_nccl_lacks_env_plugin(in->nccl_version);
}

void nn_summary_facts_of(const struct nn_summary_in *in, struct nn_summary_facts *f) {
  memset(f, 0, sizeof *f);
  f->topo = topo_of(in);
  f->search = f->topo == NN_SUMMARY_TOPO_SERVED ? search_of(in->v) : NN_SUMMARY_SEARCH_UNKNOWN;
  f->affinity = f->topo == NN_SUMMARY_TOPO_SERVED ? affinity_of(in->cfg) : NN_SUMMARY_AFFINITY_NONE;
  f->topo_changes = f->topo == NN_SUMMARY_TOPO_SERVED && (f->search == NN_SUMMARY_SEARCH_OTHER ||
                                                          f->search == NN_SUMMARY_SEARCH_SLOWER ||
                                                          f->affinity == NN_SUMMARY_AFFINITY_NODE);
  f->rules = rules_of(in->cfg, in->rules);
  f->env = env_of(in);
  char p2p[768];
  f->p2p = in->cfg ? nn_p2pview_words(in->cfg, p2p, sizeof p2p) : 0;
  f->nothing = !f->topo_changes && f->rules == 0 && f->env == 0 && !f->p2p;
}

static void next_words(const struct nn_summary_in *in, const struct nn_summary_facts *f,
                       struct text *t) {
  if (f->topo == NN_SUMMARY_TOPO_NO_MAPPING)
    add(t, " Next: make a mapping (`nccl-numa\x01"
           "discover`), then measure on the GPUs with `nccl-numa\x01"
           "calibrate`.");
  else if (f->topo == NN_SUMMARY_TOPO_NO_ENV_PLUGIN)
    add(t,
        " Next: NCCL %s or later, or `nccl-numa\x01"
        "topo` into a file named by NCCL_TOPO_FILE, then measure "
        "with `nccl-numa\x01"
        "calibrate` on the GPUs.",
        since_env_plugin());
  else if (f->affinity == NN_SUMMARY_AFFINITY_EVERY_CPU)
    add(t, " Next: give the VM NUMA nodes (`nccl-numa\x01"
           "proxmox-numa`, docs/user/proxmox.md) and make the mapping "
           "again, and run every job under the plugin there (a job across both nodes without it "
           "gets NCCL's own "
           "two-socket view, whose search fails on NCCL 2.28-2.30; the plugin serves it the flat "
           "file), or measure "
           "on the GPUs with `nccl-numa\x01"
           "calibrate`, whose rules change NCCL's choice only where the "
           "measurements beat it.");
  else
    add(t,
        " Next: measure on the GPUs with `nccl-numa\x01"
        "calibrate`, whose rules change NCCL's choice only where "
        "the measurements beat it%s.",
        f->topo_changes ? ", and compare with and without the plugin with `nccl-numa\x01"
                          "ab`"
                        : "");
  (void)in;
}

int nn_summary_text(const struct nn_summary_in *in, char *buf, size_t size) {
  char ver[48] = "the NCCL it loads (release unknown)", line[4096], parts[3][1536];
  if (in->nccl_version > 0) {
    char v[16];
    nn_nccl_version_format(in->nccl_version, v, sizeof v);
    snprintf(ver, sizeof ver, "%s", v);
  }
  struct nn_summary_facts f;
  nn_summary_facts_of(in, &f);
  struct text tp = {parts[0], sizeof parts[0], 0}, rp = {parts[1], sizeof parts[1], 0},
              ep = {parts[2], sizeof parts[2], 0};
  parts[0][0] = parts[1][0] = parts[2][0] = 0;
  topo_words(in, &f, &tp, ver);
  rules_words(in->cfg, in->rules, &rp);
  env_words(in, &ep, ver);
  char p2p[768] = "";
  if (in->cfg) nn_p2pview_words(in->cfg, p2p, sizeof p2p);
  struct text t = {line, sizeof line, 0};
  add(&t, "summary: %s for this job on %s%s: %s; %s; %s.",
      f.nothing ? "nccl-numa changes nothing" : "what nccl-numa changes",
      in->nccl_version > 0 ? "NCCL " : "", ver, parts[0], parts[1], parts[2]);
  if (p2p[0]) {
    p2p[0] = (char)toupper((unsigned char)p2p[0]);
    add(&t, " %s.", p2p);
  }
  if (in->nics && in->nics[0]) add(&t, " %s", in->nics);
  char ar[1536] = "";
  if (in->cfg && nn_allreduce_words(in->cfg, ar, sizeof ar)) {
    ar[0] = (char)toupper((unsigned char)ar[0]);
    add(&t, " %s.", ar);
  }
  next_words(in, &f, &t);
  wrap(line, buf, size, 100);
  return f.nothing;
}
