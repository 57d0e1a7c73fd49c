/* SPDX-License-Identifier: BSD-3-Clause */
/* nccl_cost.c - NCCL's cost model and selection, per release (see nccl_cost.h).
 *
 * Facts read from NVIDIA/nccl: src/graph/tuning.cc (ncclTopoTuneModel, ncclTopoGetAlgoTime)
 * and src/enqueue.cc (updateCollCostTable, topoGetAlgoInfo) of v2.28.9-1 and v2.30.7-1;
 * src/tuning/{cost_model,ring,tree,tuning,tuning_general}.cc on branch dev (2.31.0a7).
 * Our own implementation of those formulas, for Tree and Ring (the only algorithms NCCL
 * runs on a PCIe-only single node without CollNet or NVLS). */
#include "nccl_cost.h"

#include "errbuf.h"
#include "nccl_model.h"

#include <stdio.h>
#include <string.h>

enum { HW_NVLINK = 0, HW_PCI = 1, HW_NET = 2, HW_COUNT = 3 };
enum { CC_VOLTA = 0, CC_AMPERE, CC_HOPPER, CC_BLACKWELL, CC_COUNT };
enum { NODES_SCALES = 3 }; /* 1 node, 2 nodes, more */

/* Default tuner constants, the Tree and Ring rows (ncclTunerConstantsDefaults; the same
 * values in 2.28.9 and 2.30.7 tuning.cc and dev cost_model.cc, except where noted). */
static const double base_lat[2][NN_PROTO_COUNT] = {
  {6.8, 14.0, 8.4}, /* Tree LL/LL128/Simple */
  {6.6, 14.0, 8.4}, /* Ring */
};
static const double hw_lat[HW_COUNT][2][NN_PROTO_COUNT] = {
  {{0.6, 1.25, 4.0}, {0.6, 1.9, 3.4}},  /* NVLink: Tree, Ring */
  {{1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}},   /* PCI */
  {{5.0, 8.5, 14.0}, {2.7, 4.0, 14.0}}, /* NET */
};
static const double ll_max_bw[CC_COUNT][NODES_SCALES] = {
  {39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {2 * 141.0, 2 * 45.0, 2 * 35.0}};
/* Volta, Ampere, Hopper; Blackwell's row changes with the release (its row's ring_ll128_sm100). */
static const double ring_ll128_bw[CC_BLACKWELL][NODES_SCALES] = {
  {20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 36.7}};
static const double tree_ll128_bw[CC_COUNT][NODES_SCALES] = {
  {20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 29.0}, {55.6, 31.67, 20.0}};
static const double tree_bw[CC_COUNT][NODES_SCALES] = {
  {26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70.0, 42.8, 24.0}};

/* Tree bandwidth correction per log2(nBytes/64), 64 B .. 256 MiB (treeCorrectionFactor). */
static const float tree_correction[NN_PROTO_COUNT][23] = {
  {1.0f, 1.0f, 1.0f, 1.0f, .9f, .8f, .7f, .7f,  .7f,  .7f,  .6f, .5f,
   .4f,  .4f,  .5f,  .6f,  .7f, .8f, .9f, 1.0f, 1.0f, 1.0f, 1.0f},
  {1.0f, 1.0f, 1.0f, 1.0f, 1.0f, .9f, .8f, .8f, .8f, .7f,  .6f, .6f,
   .6f,  .6f,  .6f,  .6f,  .8f,  .9f, .9f, .9f, .9f, 1.0f, 1.0f},
  {.9f, .9f, .9f, .9f, .9f, .9f, .9f, .8f, .7f, .6f, .6f, .5f,
   .5f, .5f, .5f, .6f, .7f, .8f, .7f, .7f, .8f, .9f, .9f}};

/* The working state of one init: constants after the tuner (2.28-2.30) and the inputs. */
struct tune {
  const struct nn_cost_comm *c;
  const struct nn_nccl_release *rel;
  const struct nn_cost_graph *g[2]; /* by algorithm: Tree, Ring */
  double hw[HW_COUNT][2][NN_PROTO_COUNT];
  int cc, scale, subsystem;
  double ll_max, ring_ll128, tree_ll128, tree_max;
};

int nn_cost_constants_honoured(int version_code) {
  const struct nn_nccl_release *r = nn_nccl_release_find(version_code, NULL);
  return r->tuner_abi >= 5 && r->tuner_constants_effective; /* tuner v5: the first handed them */
}

double nn_cost_default_base_latency(int algo, int proto) {
  if (algo < NN_ALGO_TREE || algo > NN_ALGO_RING || proto < 0 || proto >= NN_PROTO_COUNT) return 0;
  return base_lat[algo][proto];
}

double nn_cost_default_pci_latency(int algo, int proto) {
  if (algo < NN_ALGO_TREE || algo > NN_ALGO_RING || proto < 0 || proto >= NN_PROTO_COUNT) return 0;
  return hw_lat[HW_PCI][algo][proto];
}

void nn_cost_model_start(struct nn_cost_model *m, int version_code, int nranks, int nnodes,
                         int cc_min) {
  memset(m, 0, sizeof *m);
  m->version_code = version_code;
  m->subsystem = nn_nccl_release_find(version_code, NULL)->cost_model_subsystem;
  m->nranks = nranks;
  m->nnodes = nnodes;
  m->cc_min = cc_min;
  for (int a = NN_ALGO_TREE; a <= NN_ALGO_RING; a++)
    for (int p = 0; p < NN_PROTO_COUNT; p++) m->pci_hop[a][p] = (float)hw_lat[HW_PCI][a][p];
}

void nn_cost_graph_set(struct nn_cost_graph *g, int nchannels, float bw_intra, float bw_inter,
                       int type_intra, int is_tree) {
  g->nchannels = nchannels;
  g->bw_intra = bw_intra;
  g->bw_inter = bw_inter;
  g->type_intra = type_intra;
  g->type_inter = NN_COST_PATH_PIX;
  g->pattern = is_tree ? NN_PATTERN_BALANCED_TREE : NN_PATTERN_RING;
  g->same_channels = 1;
}

static int log2_floor(uint64_t n) {
  int l = -1;
  while (n) {
    l++;
    n >>= 1;
  }
  return l;
}

static int nsteps_of(int coll, int nranks) {
  if (coll == NN_COLL_ALLREDUCE) return 2 * (nranks - 1);
  if (coll == NN_COLL_ALLGATHER || coll == NN_COLL_REDUCESCATTER) return nranks - 1;
  return nranks;
}

static int cc_index(int cc) {
  return cc >= 100 ? CC_BLACKWELL : cc >= 90 ? CC_HOPPER : cc >= 80 ? CC_AMPERE : CC_VOLTA;
}

/* NCCL_NET_OVERHEAD's default (getNetOverhead): 2 us on AMD x86, else 1 us. */
static float net_overhead(int cpu) { return cpu == NN_COST_CPU_X86_AMD ? 2.0f : 1.0f; }

static void tune_setup(struct tune *t, const struct nn_cost_comm *c,
                       const struct nn_cost_graph *tree, const struct nn_cost_graph *ring) {
  memset(t, 0, sizeof *t);
  t->c = c;
  t->rel = nn_nccl_release_find(c->version_code, NULL);
  t->g[NN_ALGO_TREE] = tree;
  t->g[NN_ALGO_RING] = ring;
  t->subsystem = t->rel->cost_model_subsystem;
  memcpy(t->hw, hw_lat, sizeof t->hw);
  if (c->pci_latency_us > 0 && nn_cost_constants_honoured(c->version_code)) {
    int algos[] = {NN_ALGO_TREE, NN_ALGO_RING}, protos[] = {NN_PROTO_LL, NN_PROTO_SIMPLE};
    for (int a = 0; a < 2; a++)
      for (int p = 0; p < 2; p++) t->hw[HW_PCI][algos[a]][protos[p]] = c->pci_latency_us;
  }
  /* 2.30 and older favour Tree on POWER: its PCI Tree/Simple latency becomes Ring's. */
  if (!t->subsystem && c->cpu == NN_COST_CPU_POWER)
    t->hw[HW_PCI][NN_ALGO_TREE][NN_PROTO_SIMPLE] = t->hw[HW_PCI][NN_ALGO_RING][NN_PROTO_SIMPLE];
  t->cc = cc_index(c->cc_min);
  t->scale = c->nnodes <= 2 ? c->nnodes - 1 : 2;
  /* LL on one node is capped per GPU generation, across nodes per CPU vendor. */
  int ll_row = c->nnodes == 1                                                   ? t->cc
               : (c->cpu == NN_COST_CPU_X86_AMD || c->cpu == NN_COST_CPU_MIXED) ? 1
                                                                                : 0;
  t->ll_max = ll_max_bw[ll_row][t->scale];
  t->ring_ll128 =
    t->cc == CC_BLACKWELL ? t->rel->ring_ll128_sm100[t->scale] : ring_ll128_bw[t->cc][t->scale];
  t->tree_ll128 = tree_ll128_bw[t->cc][t->scale];
  t->tree_max = tree_bw[t->cc][t->scale];
}

static int intra_hw(const struct nn_cost_graph *g) {
  return g->type_intra == NN_COST_PATH_NVL ? HW_NVLINK : HW_PCI;
}

/* Ring bandwidth (algorithm bandwidth: bus bandwidth x nRanks / nSteps). */
static float ring_bw(const struct tune *t, int coll, int p) {
  const struct nn_cost_graph *g = t->g[NN_ALGO_RING];
  int nn = t->c->nnodes;
  /* 2.30 and older read bwIntra up to 2 nodes, 2.31 only on one node. */
  int use_intra = t->subsystem ? nn == 1 : nn <= 2;
  float bus = (use_intra ? g->bw_intra : g->bw_inter) * (float)g->nchannels;
  if (p == NN_PROTO_LL) bus = (float)(t->ll_max < bus * .5 ? t->ll_max : bus * .5);
  if (p == NN_PROTO_LL128) {
    double cap = g->nchannels * t->ring_ll128;
    bus = (float)(bus * 0.92 < cap ? bus * 0.92 : cap);
  }
  return bus * (float)((1.0 * t->c->nranks) / nsteps_of(coll, t->c->nranks));
}

/* Ring latency: one hop per step; broadcast/reduce pipeline along sameChannels rings. */
static float ring_lat(const struct tune *t, int coll, int p) {
  const struct nn_cost_comm *c = t->c;
  const struct nn_cost_graph *g = t->g[NN_ALGO_RING];
  int ih = intra_hw(g), nn = c->nnodes, nsteps = nsteps_of(coll, c->nranks);
  float lat = (float)base_lat[NN_ALGO_RING][p];
  float intra = (float)t->hw[ih][NN_ALGO_RING][p];
  float inter;
  if (t->subsystem) inter = nn == 1 ? intra : (float)t->hw[HW_NET][NN_ALGO_RING][p];
  else inter = (float)t->hw[HW_NET][c->nranks == nn ? NN_ALGO_TREE : NN_ALGO_RING][p];
  if (coll == NN_COLL_BROADCAST || coll == NN_COLL_REDUCE) {
    int hw = t->subsystem || nn == 1 ? ih : HW_NET;
    float hop = (float)t->hw[hw][NN_ALGO_RING][p];
    if (g->same_channels) return lat + hop;
    if (p == NN_PROTO_SIMPLE) hop = (float)t->hw[hw][NN_ALGO_TREE][p];
    return lat + (float)nsteps * hop;
  }
  if (nn > 1) {
    float ovh = net_overhead(c->cpu) * (p == NN_PROTO_SIMPLE ? 3.0f : 1.0f);
    if (intra < ovh) intra = ovh;
  }
  int ninter = nn == 1 ? 0 : coll == NN_COLL_ALLREDUCE ? 2 * (nn - 1) : nn - 1;
  return lat + (float)(nsteps - ninter) * intra + (float)ninter * inter;
}

/* Tree (allreduce only): a chain within the node, a double binary tree across nodes. */
static float tree_bw_of(const struct tune *t, int p) {
  const struct nn_cost_graph *g = t->g[NN_ALGO_TREE];
  int nn = t->c->nnodes;
  float per;
  if (t->subsystem) per = g->bw_inter < g->bw_intra ? g->bw_inter : g->bw_intra;
  else per = nn <= 2 ? g->bw_intra : g->bw_inter;
  float bus = per * (float)g->nchannels;
  double cap = g->nchannels * t->tree_max;
  bus = (float)(bus * .92 < cap ? bus * .92 : cap);
  if (p == NN_PROTO_LL) bus = (float)(bus * 1.0 / 3.8 < t->ll_max ? bus * 1.0 / 3.8 : t->ll_max);
  if (p == NN_PROTO_LL128) {
    double f = nn == 1 ? 7.0 / 9.0 : 120.0 / 128.0, cap128 = g->nchannels * t->tree_ll128;
    bus = (float)(bus * f < cap128 ? bus * f : cap128);
  }
  if (g->pattern == NN_PATTERN_TREE) bus *= .85f;
  return bus * .5f;
}

static int log2_nodes(int n) { return log2_floor((uint64_t)n); }

static float tree_lat(const struct tune *t, int p) {
  const struct nn_cost_comm *c = t->c;
  int ih = intra_hw(t->g[NN_ALGO_TREE]), nn = c->nnodes;
  float intra = (float)t->hw[ih][NN_ALGO_TREE][p], inter;
  if (t->subsystem) inter = nn == 1 ? intra : (float)t->hw[HW_NET][NN_ALGO_TREE][p];
  else inter = (float)t->hw[HW_NET][NN_ALGO_TREE][p];
  int ppn = c->nranks / nn; /* NCCL divides in integers too (nRanks/nNodes) */
  return (float)base_lat[NN_ALGO_TREE][p] +
         2.0f * ((float)(ppn - 1) * intra + (float)log2_nodes(nn) * inter);
}

/* NCCL's default LL128 rule per release. 2.28/2.30 (ncclTopoTuneModel): only over
 * NVLink-class paths (typeIntra <= NVB), typeInter up to PXN from compute capability 9.0
 * (LL128_C2C default 1) else up to PXB, compute capability 7.0+, one compute capability
 * (2.30: or all 9.0+). The dev branch's 2.31.0 (ncclTuningCostModelInit) applies that
 * check only when NCCL_ALGO or NCCL_PROTO is set, so by default every LL128 model stays
 * enabled; the released 2.31.2 and 2.32.3 apply it by default again (read from their
 * libnccl.so.2 by the model work; docs/user/nccl-cost.md). */
static int ll128_rule(const struct tune *t, const struct nn_cost_graph *g) {
  const struct nn_cost_comm *c = t->c;
  if (c->ll128 != NN_COST_LL128_RULE) return c->ll128 != 0;
  if (t->rel->ll128_pcie_default) return 1; /* the release skips the check by default */
  int ok = g->type_inter <= (c->cc_min >= 90 ? NN_COST_PATH_PXN : NN_COST_PATH_PXB);
  ok = ok && g->type_intra <= NN_COST_PATH_NVB;
  ok = ok && (c->cc_min == c->cc_max || (t->rel->ll128_mixed_cc_sm90 && c->cc_min >= 90));
  return ok && c->cc_min >= 70;
}

static int check_graph(const char *name, const struct nn_cost_graph *g, char *err, size_t n) {
  if (g->nchannels < 1 || !(g->bw_intra > 0)) {
    nn_errbuf_set(
      err, n,
      "%s graph has %d channel(s) x %.1f GB/s: NCCL's search always leaves at least 1 x 0.1", name,
      g->nchannels, g->bw_intra);
    return -1;
  }
  return 0;
}

static int check_comm(const struct nn_cost_comm *c, char *err, size_t n) {
  if (c->nranks < 2) {
    nn_errbuf_set(err, n, "%d rank(s): NCCL models nothing below 2 ranks", c->nranks);
    return -1;
  }
  if (c->nnodes < 1 || c->nranks % c->nnodes) {
    nn_errbuf_set(err, n, "%d ranks on %d nodes: ranks must be a multiple of nodes", c->nranks,
                  c->nnodes);
    return -1;
  }
  if (c->cc_min <= 0 || c->cc_max < c->cc_min) {
    nn_errbuf_set(err, n, "compute capability %d..%d is not a range", c->cc_min, c->cc_max);
    return -1;
  }
  if (check_graph("ring", &c->ring, err, n) || check_graph("tree", &c->tree, err, n)) return -1;
  return 0;
}

static void fill_pair(struct nn_cost_model *m, const struct tune *t, int coll, int a, int p) {
  m->lat[coll][a][p] = a == NN_ALGO_RING ? ring_lat(t, coll, p) : tree_lat(t, p);
  m->bw[coll][a][p] = a == NN_ALGO_RING ? ring_bw(t, coll, p) : tree_bw_of(t, p);
}

int nn_cost_model_init(const struct nn_cost_comm *c, struct nn_cost_model *m, char *err,
                       size_t errsz) {
  memset(m, 0, sizeof *m);
  if (check_comm(c, err, errsz)) return -1;
  /* init.cc: after the all-gather both graphs keep the smaller channel count. */
  struct nn_cost_graph ring = c->ring, tree = c->tree;
  int nch = ring.nchannels < tree.nchannels ? ring.nchannels : tree.nchannels;
  ring.nchannels = tree.nchannels = nch;
  struct tune t;
  tune_setup(&t, c, &tree, &ring);
  nn_cost_model_start(m, c->version_code, c->nranks, c->nnodes, c->cc_min);
  m->comm_nchannels = 2 * nch > 64 ? 64 : 2 * nch;
  m->pci_latency_applied = c->pci_latency_us > 0 && nn_cost_constants_honoured(c->version_code);
  m->over_pci = intra_hw(&ring) == HW_PCI && intra_hw(&tree) == HW_PCI;
  m->same_channels = ring.same_channels;
  for (int a = 0; a < 2; a++)
    for (int p = 0; p < NN_PROTO_COUNT; p++) m->pci_hop[a][p] = (float)t.hw[HW_PCI][a][p];
  for (int coll = 0; coll < NN_COLL_COUNT; coll++)
    for (int a = NN_ALGO_TREE; a <= NN_ALGO_RING; a++) {
      if (a == NN_ALGO_TREE && coll != NN_COLL_ALLREDUCE) continue;
      for (int p = 0; p < NN_PROTO_COUNT; p++) {
        if (p == NN_PROTO_LL128 && !ll128_rule(&t, a == NN_ALGO_RING ? &ring : &tree)) continue;
        fill_pair(m, &t, coll, a, p);
        if (p == NN_PROTO_LL128) m->ll128_enabled = 1;
      }
    }
  return 0;
}

float nn_cost_time(const struct nn_cost_model *m, int coll, int algo, int proto, uint64_t nbytes) {
  if (coll < 0 || coll >= NN_COLL_COUNT || algo < 0 || algo >= NN_ALGO_COUNT || proto < 0 ||
      proto >= NN_PROTO_COUNT)
    return -1.0f;
  float bw = m->bw[coll][algo][proto], lat = m->lat[coll][algo][proto];
  if (!(bw > 0)) return -1.0f;
  int lg = log2_floor(nbytes >> 6);
  if (algo == NN_ALGO_TREE && coll == NN_COLL_ALLREDUCE && lg >= 0 && lg < 23)
    bw *= tree_correction[proto][lg];
  /* Across nodes, a Ring/Simple allreduce large enough to fill the channels plateaus. */
  if (algo == NN_ALGO_RING && proto == NN_PROTO_SIMPLE && m->nnodes > 1 &&
      coll == NN_COLL_ALLREDUCE && nbytes / (uint64_t)(m->comm_nchannels * m->nranks) >= 64)
    lat *= m->cc_min < 80 ? 1.9f : 1.4f;
  return lat + (float)nbytes / (1000.0f * bw);
}

/* Hops of a latency entry at the PCI per-hop latency of (algorithm ha, protocol p). */
static int pci_hops(const struct nn_cost_model *m, int coll, int a, int p, int ha) {
  int nsteps = nsteps_of(coll, m->nranks);
  if (a == NN_ALGO_TREE) return ha == NN_ALGO_TREE ? 2 * (m->nranks - 1) : 0;
  if (coll == NN_COLL_BROADCAST || coll == NN_COLL_REDUCE) {
    if (m->same_channels) return ha == NN_ALGO_RING ? 1 : 0;
    int from = p == NN_PROTO_SIMPLE ? NN_ALGO_TREE : NN_ALGO_RING;
    return ha == from ? nsteps : 0;
  }
  return ha == NN_ALGO_RING ? nsteps : 0;
}

int nn_cost_model_set_pci_latency(struct nn_cost_model *m, double us) {
  if (m->nnodes != 1 || !m->over_pci) return -1;
  int protos[] = {NN_PROTO_LL, NN_PROTO_SIMPLE};
  for (int coll = 0; coll < NN_COLL_COUNT; coll++)
    for (int a = NN_ALGO_TREE; a <= NN_ALGO_RING; a++)
      for (int i = 0; i < 2; i++) {
        int p = protos[i];
        if (!(m->bw[coll][a][p] > 0)) continue;
        for (int ha = 0; ha < 2; ha++)
          m->lat[coll][a][p] +=
            (float)pci_hops(m, coll, a, p, ha) * (float)(us - m->pci_hop[ha][p]);
      }
  for (int ha = 0; ha < 2; ha++)
    for (int i = 0; i < 2; i++) m->pci_hop[ha][protos[i]] = (float)us;
  return 0;
}

void nn_cost_table(const struct nn_cost_model *m, int coll, uint64_t nbytes, float *table) {
  for (int a = 0; a < NN_ALGO_COUNT; a++)
    for (int p = 0; p < NN_PROTO_COUNT; p++)
      table[a * NN_PROTO_COUNT + p] = nn_cost_time(m, coll, a, p, nbytes);
}

int nn_cost_pick(const struct nn_cost_model *m, const float *table, struct nn_cost_choice *out) {
  out->algo = out->proto = -1;
  out->time_us = -1.0f;
  float best = 3.6e9f;
  for (int i = 0; i < NN_ALGO_COUNT * NN_PROTO_COUNT; i++) {
    /* 2.31 keeps its candidates in a list built front-first: the last id wins a tie. */
    int id = m->subsystem ? NN_ALGO_COUNT * NN_PROTO_COUNT - 1 - i : i;
    if (table[id] >= 0.0f && table[id] < best) {
      best = table[id];
      out->algo = id / NN_PROTO_COUNT;
      out->proto = id % NN_PROTO_COUNT;
      out->time_us = table[id];
    }
  }
  return out->algo < 0 ? -1 : 0;
}

int nn_cost_choose(const struct nn_cost_model *m, int coll, uint64_t nbytes,
                   struct nn_cost_choice *out) {
  float table[NN_ALGO_COUNT * NN_PROTO_COUNT];
  nn_cost_table(m, coll, nbytes, table);
  return nn_cost_pick(m, table, out);
}
