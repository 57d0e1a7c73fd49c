/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nccl_search_rec.c - NCCL's recursive ring/tree search (search.cc ncclTopoSearchRec and what
 * it calls) on the system of nccl_search_int.h: from GPU to GPU within a node, and for a
 * communicator of several nodes from a NIC through every GPU back to a NIC. Written from the
 * rules of v2.21..dev: the same order of tries, book-keeping and step budgets.
 */
#include <stdint.h>
#include <string.h>

#include "nccl_search_int.h"

#define NN_FORCED_PCI 1
#define NN_FORCED_REPLAY 2
#define NN_PCI_ORDER_BUDGET (1 << 10) /* the reference try of the PCI order from a NIC */

/* ---- following a path ---- */

/* roundf (half away from zero) without libm, which the plugin does not link; exact for the
 * magnitudes met here (|x| < 2^23). */
static float round_half_away(float x) {
  float t = (float)(long long)x, d = x - t;
  if (d >= 0.5f) t += 1.0f;
  else if (d <= -0.5f) t -= 1.0f;
  return t;
}

/* NCCL's SUB_ROUND: float book-keeping rounded to 1/1000. */
static float sub_round(float a, float b) { return round_half_away((a - b) * 1000) / 1000; }

/* followPath: takes bw off each link of x up to max_steps; returns the steps done. */
static int follow_links(const struct nn_sys *s, const struct nn_path *x, int max_steps, float bw) {
  float pci_bw = bw;
  if (x->type == NN_PATH_PHB && x->from_gpu && s->intel) pci_bw = bw * 6 / 5;
  for (int i = 0; i < max_steps; i++) {
    float fw = x->pci[i] ? pci_bw : bw;
    float *back = i == x->nlinks - 1 ? x->rev_gpu : NULL;
    if (*x->links[i] < fw || (back && *back < fw / 8)) return i;
    *x->links[i] = sub_round(*x->links[i], fw);
    if (back) *back = sub_round(*back, fw / 8);
  }
  return max_steps;
}

/* ncclTopoFollowPath along x (its way back has type rev_type) at the graph's intra- or
 * inter-node bandwidth. Returns 1 when the path has it (and takes it), 0 otherwise; mult -1
 * gives it back. */
static int follow(struct nn_sys *s, struct nn_graph *gr, const struct nn_path *x, int rev_type,
                  int inter, float mult) {
  int tree = gr->pattern == NN_PAT_BALANCED_TREE || gr->pattern == NN_PAT_TREE;
  int type = inter ? gr->type_inter : gr->type_intra;
  if (x->type >= NN_PATH_DIS) return 0;
  if (mult == 1 && x->type > type) return 0;
  if (mult == 1 && tree && rev_type > type) return 0;
  float bw = (inter ? gr->bw_inter : gr->bw_intra) * mult;
  int n = x->nlinks;
  int done = follow_links(s, x, n, bw);
  if (done < n) {
    follow_links(s, x, done, -bw);
    return 0;
  }
  gr->hops += (int)(mult * (float)x->count);
  return 1;
}

/* ---- NICs ---- */

/* ncclTopoGetLocal: the entries of paths[0..n) of the widest, then shortest type. */
static int get_local(const struct nn_path *const *paths, int n, int *out) {
  int min_type = NN_PATH_DIS, count = 0;
  float max_bw = 0;
  for (int i = 0; i < n; i++) {
    const struct nn_path *p = paths[i];
    if (p->bw > max_bw || (p->bw == max_bw && p->type < min_type)) {
      max_bw = p->bw;
      min_type = p->type;
      count = 0;
    }
    if (p->bw == max_bw && p->type == min_type) out[count++] = i;
  }
  return count;
}

static int local_nets(const struct nn_sys *s, int g, int *out) {
  const struct nn_path *paths[NN_SEARCH_MAX_NICS];
  for (int n = 0; n < s->nn; n++) paths[n] = &s->gpu_net[g][n];
  return get_local(paths, s->nn, out);
}

static int local_gpus(const struct nn_sys *s, int net, int *out) {
  const struct nn_path *paths[NN_SEARCH_MAX_GPUS];
  for (int g = 0; g < s->ng; g++) paths[g] = &s->net_gpu[net][g];
  return get_local(paths, s->ng, out);
}

static int mirror_bits(int val, int pow2) {
  int mirror = 0;
  for (int b = 1, mb = pow2 >> 1; b < pow2; b <<= 1, mb >>= 1)
    if (val & b) mirror |= mb;
  return mirror;
}

/* ncclTopoGetLocalNet, NCCL_NETDEVS_POLICY=AUTO: the NIC of GPU g on channel c. The GPU's device
 * number is its place in bus order, its rank on this node. */
static int local_net(const struct nn_sys *s, int g, int c) {
  int nets[NN_SEARCH_MAX_NICS], gpus[NN_SEARCH_MAX_GPUS];
  int n = local_nets(s, g, nets);
  if (n < 1) return 0; /* no NIC: never asked (the search runs from NICs only when it has some) */
  int sharing = local_gpus(s, nets[0], gpus);
  if (sharing < 1) sharing = 1;
  int per_gpu = (n + sharing - 1) / sharing;
  int net = s->rank[g];
  if (s->rel->local_net_mod_gpus) net %= sharing;
  if ((n & (n - 1)) == 0) net = mirror_bits(net, n);
  net += c % per_gpu;
  return nets[net % n];
}

static int add_unique(int *list, int count, int v) {
  for (int i = 0; i < count; i++)
    if (list[i] == v) return count;
  list[count] = v;
  return count + 1;
}

int nn_search_rec_select_nets(const struct nn_sys *s, int type_inter, int gpu, int *nets) {
  int count = 0;
  /* ncclTopoPrefNetsChannelFirst: each GPU's NICs over the channels, until they repeat */
  for (int g = 0; g < s->ng; g++) {
    if (gpu != -1 && gpu != g) continue;
    for (int i = 0; i < s->n_gpu_nets[g]; i++) count = add_unique(nets, count, s->gpu_nets[g][i]);
  }
  for (int t = 0; t <= type_inter; t++)
    for (int g = 0; g < s->ng; g++) {
      if (gpu != -1 && gpu != g) continue;
      for (int n = 0; n < s->nn; n++)
        if (s->gpu_net[g][n].type == t) count = add_unique(nets, count, n);
    }
  return count;
}

static int local_gpu(const struct nn_sys *s, int net) {
  int gpus[NN_SEARCH_MAX_GPUS];
  int n = local_gpus(s, net, gpus);
  for (int c = 0; c < NN_MAX_CH; c++)
    for (int i = 0; i < n; i++)
      if (local_net(s, gpus[i], c) == net) return gpus[i];
  return -1;
}

void nn_search_rec_init_nets(struct nn_sys *s) {
  for (int g = 0; g < s->ng; g++) {
    int *list = s->gpu_nets[g], n = 0;
    list[n++] = local_net(s, g, 0);
    for (int c = 1; c < NN_MAX_CH && n < NN_SEARCH_MAX_NICS; c++) {
      int net = local_net(s, g, c);
      if (net == list[0]) break;
      list[n++] = net;
    }
    s->n_gpu_nets[g] = n;
  }
  for (int n = 0; n < s->nn; n++) s->net_local_gpu[n] = local_gpu(s, n);
}

/* ---- the recursion ---- */

int nn_search_rec_gpu_of_rank(const struct nn_sys *s, int rank) {
  for (int g = 0; g < s->ng; g++)
    if (s->rank[g] == rank) return g;
  return 0;
}

/* ncclTopoCompareGraphs: enough channels, then more channels x bandwidth, then fewer hops. */
static int better(const struct nn_graph *gr, const struct nn_graph *ref) {
  if (gr->nch < gr->min_ch) return 0;
  float a = (float)gr->nch * gr->bw_intra, b = (float)ref->nch * ref->bw_intra;
  if (a > b) return 1;
  if (a < b) return 0;
  return gr->pattern == ref->pattern && gr->cross_nic == ref->cross_nic && gr->hops < ref->hops;
}

/* ncclGpuScore: the NIC's path to the GPU first (inter-node), then the GPU-to-GPU path. */
struct nn_score {
  int g, start, hops, bw, net_hops, net_pci_bw, net_bw;
};

/* cmpScore: a total order (starts differ). */
static int score_before(const struct nn_score *x, const struct nn_score *y) {
  if (x->net_bw != y->net_bw) return x->net_bw > y->net_bw;
  if (x->net_pci_bw != y->net_pci_bw) return x->net_pci_bw > y->net_pci_bw;
  if (x->net_hops != y->net_hops) return x->net_hops < y->net_hops;
  if (x->bw != y->bw) return x->bw > y->bw;
  if (x->hops != y->hops) return x->hops < y->hops;
  return x->start < y->start;
}

/* ncclTopoSearchNextGpuSort: sort_net 1 ranks the GPUs by the start NIC's path too, -1 as well
 * but reversed when every GPU-to-GPU path is alike. Bandwidths compared as integers, as NCCL
 * stores them. An insertion sort: at most 31 candidates, sorted in every step. */
static int next_sorted(const struct nn_sys *s, const struct nn_graph *gr, int gpu, int sort_net,
                       int *next) {
  struct nn_score sc[NN_SEARCH_MAX_GPUS];
  uint64_t flag = 1ull << gr->nch;
  int n = 0;
  for (int i = 1; i < s->ng; i++) {
    int g = (gpu + i) % s->ng;
    if (s->used[g] & flag) continue;
    struct nn_score x = {g, i, s->path[gpu][g].count, (int)s->path[gpu][g].bw, 0, 0, 0};
    if (sort_net) {
      const struct nn_path *np = &s->net_gpu[gr->inter[gr->nch * 2]][g];
      x.net_hops = np->count;
      x.net_pci_bw = s->gpu_pci_bw[g];
      x.net_bw = (int)np->bw;
    }
    int j = n++;
    for (; j > 0 && score_before(&x, &sc[j - 1]); j--) sc[j] = sc[j - 1];
    sc[j] = x;
  }
  int alike = 1;
  for (int i = 1; i < n; i++) alike &= sc[i].bw == sc[0].bw && sc[i].hops == sc[0].hops;
  for (int i = 0; i < n; i++) next[i] = sort_net == -1 && alike ? sc[n - 1 - i].g : sc[i].g;
  return n;
}

enum nn_from { NN_FROM_NONE, NN_FROM_GPU, NN_FROM_NET };

struct nn_step {
  int step, back_net, back_first, forced;
};

static void rec_gpu(struct nn_search *c, struct nn_graph *gr, int gpu, struct nn_step st);

/* ncclTopoSearchTryGpu: reach GPU g from nothing, GPU `from` or NIC `from`, then go on. */
static void try_gpu(struct nn_search *c, struct nn_graph *gr, struct nn_step st, int kind, int from,
                    int g) {
  struct nn_sys *s = c->s;
  uint64_t flag = 1ull << gr->nch;
  const struct nn_path *x = NULL;
  int rev = 0, inter = kind == NN_FROM_NET;
  if (kind == NN_FROM_GPU) {
    x = &s->path[from][g];
    rev = s->path[g][from].type;
  } else if (kind == NN_FROM_NET) {
    x = &s->net_gpu[from][g];
    rev = s->gpu_net[g][from].type;
  }
  if (x && !follow(s, gr, x, rev, inter, 1)) return;
  s->used[g] ^= flag;
  rec_gpu(c, gr, g, st);
  s->used[g] ^= flag;
  if (x) follow(s, gr, x, rev, inter, -1);
}

static void channel_done(struct nn_search *c, struct nn_graph *gr) {
  gr->nch++;
  if (better(gr, c->save)) {
    *c->save = *gr;
    if (gr->nch == gr->max_ch) *c->time = -1;
  }
  if (gr->nch < gr->max_ch) nn_search_rec_run(c, gr);
  gr->nch--;
}

/* ncclTopoSearchCheckNet: whether the channel may go back to NIC n (no rails or planes here;
 * every NIC its own ASIC). */
static int check_net(const struct nn_graph *gr, int start, int n, int step) {
  if (gr->pattern == NN_PAT_TREE && n != start) return 0;
  if (gr->pattern == NN_PAT_RING && gr->cross_nic == 2) {
    if ((gr->nch & 1) && n != gr->inter[(gr->nch - 1) * 2]) return 0;
  } else if (gr->cross_nic == 0 && n != start) {
    return 0;
  }
  return !(gr->pattern == NN_PAT_BALANCED_TREE && step != 0 && n != gr->inter[gr->nch * 2 + 1]);
}

/* The GPU at `step` goes back to a NIC; a balanced tree books half on each of its first two
 * GPUs. */
static void back_to_net(struct nn_search *c, struct nn_graph *gr, int gpu, struct nn_step st) {
  struct nn_sys *s = c->s;
  int nets[NN_SEARCH_MAX_NICS];
  int count = nn_search_rec_select_nets(s, gr->type_inter, gpu, nets);
  int start = gr->inter[gr->nch * 2];
  for (int i = 0; i < count; i++) {
    int n = nets[i];
    if (!check_net(gr, start, n, st.step)) continue;
    struct nn_step next = st;
    float save = gr->bw_inter;
    next.back_net = -1;
    if (gr->pattern == NN_PAT_BALANCED_TREE) {
      if (st.step == 0) next.back_net = 1;
      gr->bw_inter /= 2;
    }
    const struct nn_path *x = &s->gpu_net[gpu][n];
    int rev = s->net_gpu[n][gpu].type;
    int ok = follow(s, gr, x, rev, 1, 1);
    gr->bw_inter = save;
    if (!ok) continue;
    gr->inter[gr->nch * 2 + 1] = n;
    rec_gpu(c, gr, gpu, next);
    if (gr->pattern == NN_PAT_BALANCED_TREE) gr->bw_inter /= 2;
    follow(s, gr, x, rev, 1, -1);
    gr->bw_inter = save;
  }
}

static void next_gpus(struct nn_search *c, struct nn_graph *gr, int gpu, struct nn_step st) {
  struct nn_sys *s = c->s;
  int ng = s->ng, next[NN_SEARCH_MAX_GPUS], count;
  if (st.forced == NN_FORCED_PCI) {
    next[0] = st.step + 1;
    count = 1;
  } else if (st.forced == NN_FORCED_REPLAY) {
    next[0] = nn_search_rec_gpu_of_rank(s, gr->intra[(gr->nch - 1) * ng + st.step + 1]);
    count = 1;
  } else {
    int sort_net = st.back_net == -1 ? 0 : st.back_net == st.step + 1 ? 1 : -1;
    count = next_sorted(s, gr, gpu, sort_net, next);
  }
  struct nn_step on = st;
  on.step++;
  for (int i = 0; i < count; i++) try_gpu(c, gr, on, NN_FROM_GPU, gpu, next[i]);
}

/* ncclTopoSearchRecGpu */
static void rec_gpu(struct nn_search *c, struct nn_graph *gr, int gpu, struct nn_step st) {
  struct nn_sys *s = c->s;
  int ng = s->ng;
  if (*c->time <= 0) return;
  (*c->time)--;
  if (st.step == ng) {
    channel_done(c, gr);
    return;
  }
  gr->intra[gr->nch * ng + st.step] = s->rank[gpu];
  if (st.step == st.back_net) {
    back_to_net(c, gr, gpu, st);
  } else if (st.step < ng - 1) {
    next_gpus(c, gr, gpu, st);
  } else if (st.step == st.back_first) {
    int first = nn_search_rec_gpu_of_rank(s, gr->intra[gr->nch * ng]);
    const struct nn_path *x = &s->path[gpu][first];
    int rev = s->path[first][gpu].type;
    if (follow(s, gr, x, rev, 0, 1)) {
      rec_gpu(c, gr, first, (struct nn_step){st.step + 1, st.back_net, -1, st.forced});
      follow(s, gr, x, rev, 0, -1);
    }
  } else {
    rec_gpu(c, gr, gpu, (struct nn_step){ng, -1, -1, st.forced});
  }
}

/* ncclTopoSearchRecNet: each channel starts from a NIC, in turn from the channel's place in the
 * list; the NIC's own bandwidth is booked as an integer, as NCCL does. */
static void rec_net(struct nn_search *c, struct nn_graph *gr, struct nn_step st) {
  struct nn_sys *s = c->s;
  int bw = (int)gr->bw_inter;
  int nets[NN_SEARCH_MAX_NICS];
  int count = nn_search_rec_select_nets(s, gr->type_inter, -1, nets);
  for (int i = 0; i < count; i++) {
    int n = nets[(gr->nch + i) % count];
    if (s->net_bw[n] < (float)bw) continue;
    if (gr->pattern == NN_PAT_RING && gr->cross_nic == 2 && (gr->nch & 1) &&
        n != gr->inter[(gr->nch - 1) * 2 + 1])
      continue;
    gr->inter[gr->nch * 2] = n;
    s->net_bw[n] -= (float)bw;
    if (gr->nch > 0 && gr->same == 1) {
      int g = nn_search_rec_gpu_of_rank(s, gr->intra[(gr->nch - 1) * s->ng]);
      struct nn_step replay = st;
      replay.forced = NN_FORCED_REPLAY;
      try_gpu(c, gr, replay, NN_FROM_NET, n, g);
    } else {
      if (gr->nch == 0) {
        int t = NN_PCI_ORDER_BUDGET, *time = c->time;
        struct nn_step pci = st;
        pci.forced = NN_FORCED_PCI;
        c->time = &t;
        try_gpu(c, gr, pci, NN_FROM_NET, n, 0);
        c->time = time;
        if (t == -1) *time = -1;
      }
      int local = s->net_local_gpu[n], gpus[NN_SEARCH_MAX_GPUS];
      if (local != -1) try_gpu(c, gr, st, NN_FROM_NET, n, local);
      int k = local_gpus(s, n, gpus);
      for (int j = 0; j < k; j++)
        if (gpus[j] != local) try_gpu(c, gr, st, NN_FROM_NET, n, gpus[j]);
    }
    s->net_bw[n] += (float)bw;
  }
}

/* ncclTopoSearchRec (with ncclTopoSearchParams): from a NIC on several nodes, else the PCI order
 * (or a replay of the last channel), then every start GPU unless the channels must repeat. */
void nn_search_rec_run(struct nn_search *c, struct nn_graph *gr) {
  struct nn_sys *s = c->s;
  if (s->nn > 0) {
    int back = gr->pattern == NN_PAT_RING ? s->ng - 1 : 0;
    rec_net(c, gr, (struct nn_step){0, back, -1, 0});
    return;
  }
  struct nn_step st = {0, -1, gr->pattern == NN_PAT_RING ? s->ng - 1 : -1, 0};
  if (gr->nch == 0) {
    st.forced = NN_FORCED_PCI;
    try_gpu(c, gr, st, NN_FROM_NONE, -1, 0);
  } else {
    st.forced = NN_FORCED_REPLAY;
    try_gpu(c, gr, st, NN_FROM_NONE, -1,
            nn_search_rec_gpu_of_rank(s, gr->intra[(gr->nch - 1) * s->ng]));
  }
  st.forced = 0;
  if (gr->same == 0 || gr->nch == 0)
    for (int g = 0; g < s->ng; g++) try_gpu(c, gr, st, NN_FROM_NONE, -1, g);
}
