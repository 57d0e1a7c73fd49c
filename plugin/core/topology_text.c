/* SPDX-License-Identifier: BSD-3-Clause */
/* topology_text.c - the verdict's sentences (topology.h): the plugin's log and the CLI render the
 * kind and facts nn_topology_verdict decided with these. */
#include "topology.h"

#include <stdio.h>
#include <string.h>

#include "sizetext.h"

static const char *mode_name(int mode) {
  return mode == NN_TOPO_NUMA ? "numa" : mode == NN_TOPO_OFF ? "off" : "auto";
}

static void graph_text(const struct nn_graph_pred *g, int model_ch, char *buf, size_t size) {
  if (!g->ok) snprintf(buf, size, "search fails (1 x 0.1 GB/s)");
  else if (model_ch < g->nchannels)
    snprintf(buf, size, "%d x %.1f GB/s (cut to %d)", g->nchannels, (double)g->bw_intra, model_ch);
  else snprintf(buf, size, "%d x %.1f GB/s", g->nchannels, (double)g->bw_intra);
}

static void pred_text(const struct nn_search_pred *p, char *buf, size_t size) {
  char r[64], t[64];
  graph_text(&p->ring, p->model_nchannels, r, sizeof r);
  graph_text(&p->tree, p->model_nchannels, t, sizeof t);
  snprintf(buf, size, "ring %s, %d socket crossing%s | tree %s", r, p->ring.crossings,
           p->ring.crossings == 1 ? "" : "s", t);
}

void nn_topology_describe_one(const struct nn_search_pred *p, char *buf, size_t size) {
  pred_text(p, buf, size);
}

void nn_topology_describe_release(const struct nn_topo_verdict *v, char *buf, size_t size) {
  char ver[16];
  nn_nccl_version_format(v->version, ver, sizeof ver);
  int count;
  const struct nn_nccl_release *t = nn_nccl_release_table(&count);
  const char *row = v->rel ? v->rel->name : "?";
  if (v->version_unverified && v->version > t[count - 1].last)
    snprintf(buf, size, "NCCL %s (newer than checked: treated as %s)", ver, row);
  else if (v->version_unverified && v->version < t[0].first)
    snprintf(buf, size, "NCCL %s (older than checked: treated as %s)", ver, row);
  else if (v->version_unverified)
    snprintf(buf, size, "NCCL %s (unverified for %s: table row %s)", ver, ver, row);
  else snprintf(buf, size, "NCCL %s", ver);
}

static const char *file_name(int file) {
  return file == NN_FILE_FLAT ? "flat file (every GPU under one CPU node)" : "file with NUMA nodes";
}

void nn_topology_describe_predictions(const struct nn_topo_verdict *v, const char *indent,
                                      char *buf, size_t size) {
  char a[200], f[200], b[200];
  if (!v->predicted) {
    snprintf(buf, size, "%sno prediction", indent);
    return;
  }
  pred_text(&v->numa.pred, a, sizeof a);
  pred_text(&v->flat.pred, f, sizeof f);
  pred_text(&v->own, b, sizeof b);
  const char *mark_n = v->file == NN_FILE_NUMA ? "  <- served" : "";
  const char *mark_f = v->file == NN_FILE_FLAT ? "  <- served" : "";
  if (v->numa_nodes < 2) {
    snprintf(buf, size, "%sserved file (1 CPU node):   %s\n%sNCCL's own view:           %s%s",
             indent, a, indent, b, v->fails_regardless ? "  <- fails whatever file is served" : "");
    return;
  }
  snprintf(buf, size,
           "%sfile with %d CPU nodes:     %s%s\n%sflat file (1 CPU node):    %s%s\n"
           "%sNCCL's own view:           %s%s%s",
           indent, v->numa_nodes, a, mark_n, indent, f, mark_f, indent, b,
           v->fails_regardless ? "  <- fails whatever file is served" : "",
           v->file == NN_FILE_NONE && v->mode == NN_TOPO_AUTO ? "  <- what NCCL gets" : "");
}

/* A file's rating in words: "NCCL's model makes a 4 GiB all-reduce 480x slower with it than
 * with its own view" / "... no slower ..." / "" when not rated. */
static void rating_text(const struct nn_file_rating *r, const char *it, char *buf, size_t size) {
  char sz[24], f[32];
  buf[0] = 0;
  if (r->slower <= 0) return;
  if (r->slower < 1.005) {
    snprintf(
      buf, size,
      "NCCL's model rates an all-reduce of any size no slower with %s than with its own view", it);
    return;
  }
  nn_sizetext((uint64_t)1 << r->slower_log2, sz, sizeof sz);
  if (r->slower >= 10) snprintf(f, sizeof f, "%.0fx", r->slower);
  else if (r->slower >= 1.95) snprintf(f, sizeof f, "%.1fx", r->slower);
  else snprintf(f, sizeof f, "%.0f%%", 100 * (r->slower - 1));
  snprintf(buf, size,
           "NCCL's model makes a%s %s all-reduce %s slower with %s than with its own view",
           sz[0] == '8' ? "n" : "", sz, f, it);
}

void nn_topology_describe_slower(const struct nn_topo_verdict *v, char *buf, size_t size) {
  struct nn_file_rating r = {.slower = v->slower, .slower_log2 = v->slower_log2};
  rating_text(&r, "this file", buf, size);
}

/* Why a candidate file is not served, as a fact about it: its search fails, it reads less
 * bandwidth, a size is slower, or (the flat file) it is NCCL's own view again. */
static void rejection(const struct nn_topo_verdict *v, const struct nn_file_rating *r, int flat,
                      char *buf, size_t size) {
  char slower[200];
  if (flat && v->file != NN_FILE_FLAT && !v->flat_gains && r->pred.ring.ok && r->pred.tree.ok) {
    snprintf(buf, size,
             v->own_affinity ? "flattening gains nothing on NCCL's own view"
                             : "NCCL's own view is flat already");
    return;
  }
  if (!r->pred.ring.ok || !r->pred.tree.ok) {
    rating_text(r, "it", slower, sizeof slower);
    snprintf(buf, size, "its %s search fails%s%s", !r->pred.ring.ok ? "ring" : "tree",
             r->slower >= 1.005 ? ": " : "", r->slower >= 1.005 ? slower : "");
    return;
  }
  if (nn_search_ring_gbps(&r->pred) < nn_search_ring_gbps(&v->own) ||
      nn_search_tree_gbps(&r->pred) < nn_search_tree_gbps(&v->own)) {
    rating_text(r, "it", slower, sizeof slower);
    snprintf(buf, size, "it gives NCCL less bandwidth than its own view%s%s%s",
             slower[0] ? " (" : "", slower, slower[0] ? ")" : "");
    return;
  }
  if (r->slower >= 1.005) {
    rating_text(r, "it", slower, sizeof slower);
    snprintf(buf, size, "%s", slower);
    return;
  }
  if (r->slower <= 0) {
    snprintf(buf, size, "NCCL's cost model could not rate it");
    return;
  }
  if (!flat) snprintf(buf, size, "the flat file rates better");
  else if (!v->own_affinity) snprintf(buf, size, "NCCL's own view is flat already");
  else snprintf(buf, size, "flattening gains nothing on NCCL's own view");
}

/* Why the NUMA file's search fails on the socket link (or "" when that is not why). */
static void link_why(const struct nn_topo_verdict *v, char *buf, size_t size) {
  buf[0] = 0;
  if (!v->numa.pred.ring.ok && v->link_gbps > 0 && v->link_gbps < v->floor_gbps)
    snprintf(buf, size,
             "; NCCL models the %s socket link at %.0f GB/s, below its %.0f GB/s floor for compute "
             "capability %d.%d%s",
             v->cpu_vendor, v->link_gbps, v->floor_gbps, v->sm / 10, v->sm % 10,
             v->sm_assumed ? " (assumed)" : "");
}

/* The sentence for mode=auto with two or more NUMA nodes and a prediction. */
static void auto_text(const struct nn_topo_verdict *v, char *buf, size_t size) {
  char rel[96], n[200], f[200], b[200], why[200], rn[320], rf[320], rate[200];
  nn_topology_describe_release(v, rel, sizeof rel);
  pred_text(&v->numa.pred, n, sizeof n);
  pred_text(&v->flat.pred, f, sizeof f);
  pred_text(&v->own, b, sizeof b);
  link_why(v, why, sizeof why);
  rejection(v, &v->numa, 0, rn, sizeof rn);
  rejection(v, &v->flat, 1, rf, sizeof rf);
  if (v->file == NN_FILE_NUMA) {
    rating_text(&v->numa, "it", rate, sizeof rate);
    snprintf(
      buf, size,
      "topology served (mode=auto, %s): the file with NUMA nodes: NCCL's search on it (%s) is "
      "not worse than on its own view (%s), and %s; the flat file (%s): %s",
      rel, n, b, rate, f, rf);
  } else if (v->file == NN_FILE_FLAT) {
    rating_text(&v->flat, "it", rate, sizeof rate);
    snprintf(
      buf, size,
      "topology served (mode=auto, %s): the flat file (every GPU under one CPU node): NCCL's "
      "search on it (%s) beats its own view (%s), and %s; the file with NUMA nodes (%s) is not "
      "served: %s%s",
      rel, f, b, rate, n, rn, why);
  } else if (v->fails_regardless) {
    snprintf(buf, size,
             "no topology served (mode=auto, %s): NCCL's search fails on its own view (%s) and on "
             "every file: the GPUs' PCIe link (%.0f GB/s modelled) is below the %.0f GB/s floor",
             rel, b, v->gpu_link_gbps, v->floor_gbps);
  } else {
    snprintf(
      buf, size,
      "no topology served (mode=auto, %s): NCCL's own view (%s) rates best; the file with NUMA "
      "nodes (%s): %s%s; the flat file (%s): %s. Serve the NUMA file anyway (`topology mode=numa`) "
      "only "
      "where `nccl-numa ab` measures it faster",
      rel, b, n, rn, why, f, rf);
  }
}

static void no_env_plugin_text(const struct nn_topo_verdict *v, char *buf, size_t size) {
  char name[16], since[16];
  nn_nccl_version_format(v->version, name, sizeof name);
  nn_nccl_env_plugin_since(since, sizeof since);
  snprintf(
    buf, size,
    "no topology served: NCCL %s has no env plugin (it came in %s), so neither the topology nor "
    "the mapping's `env` lines can apply (the rules do, through the tuner); to give NCCL the file "
    "anyway: "
    "nccl-numa topo --config FILE -o FILE.xml, then NCCL_TOPO_FILE=FILE.xml",
    name, since);
}

void nn_topology_verdict_text(const struct nn_topo_verdict *v, char *buf, size_t size) {
  if (v->no_env_plugin) {
    no_env_plugin_text(v, buf, size);
    return;
  }
  switch (v->kind) {
  case NN_VERDICT_NO_GPUS:
    snprintf(buf, size, "no topology served: the mapping has no gpu lines");
    break;
  case NN_VERDICT_SM_DISAGREE:
    snprintf(buf, size, "no topology served: the gpu lines declare different sm= values");
    break;
  case NN_VERDICT_CPU_UNKNOWN:
    snprintf(buf, size, "no topology served: CPU kind unknown (add a `cpu vendor=` line)");
    break;
  case NN_VERDICT_MODE_OFF:
    snprintf(buf, size, "no topology served: topology mode=off");
    break;
  case NN_VERDICT_MODE_NUMA:
    snprintf(buf, size, "topology served: mode=numa (%d NUMA nodes)", v->numa_nodes);
    break;
  case NN_VERDICT_ONE_NODE:
    snprintf(buf, size, "topology served: mode=auto, all GPUs on one NUMA node");
    break;
  case NN_VERDICT_UNPREDICTED:
    snprintf(buf, size, "no topology served (mode=%s): cannot predict NCCL's search: %s",
             mode_name(v->mode), v->predict_error);
    break;
  default:
    auto_text(v, buf, size);
    break;
  }
}

void nn_topology_verdict_warning(const struct nn_topo_verdict *v, char *buf, size_t size) {
  char rel[96], slower[200];
  buf[0] = 0;
  if (v->slower < 1.005) return;
  nn_topology_describe_release(v, rel, sizeof rel);
  nn_topology_describe_slower(v, slower, sizeof slower);
  if (v->no_env_plugin) {
    char name[16];
    nn_nccl_version_format(v->version, name, sizeof name);
    snprintf(buf, size, "NCCL_TOPO_FILE set to this file would be rated worse (NCCL %s): %s", name,
             slower);
    return;
  }
  if (v->kind != NN_VERDICT_MODE_NUMA) return;
  snprintf(buf, size,
           "topology mode=numa serves a file NCCL's model rates worse (%s): %s; "
           "`topology mode=auto` would withhold it, so keep mode=numa only where `nccl-numa ab` "
           "measures it "
           "faster",
           rel, slower);
}

const char *nn_topology_file_name(int file) { return file_name(file); }

const char *nn_topology_file_key(int file) {
  return file == NN_FILE_FLAT ? "flat" : file == NN_FILE_NUMA ? "numa" : "none";
}
