/* SPDX-License-Identifier: BSD-3-Clause */
/* visible.c - CUDA_VISIBLE_DEVICES as a subset of the mapping (see visible.h). */
#include "visible.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cudrv.h"

static int find_by_index(const struct nn_config *cfg, int index) {
  for (int i = 0; i < cfg->n_gpus; i++)
    if (cfg->gpus[i].index == index) return i;
  return -1;
}

static int find_by_bus(const struct nn_config *cfg, const struct nn_busid *b) {
  for (int i = 0; i < cfg->n_gpus; i++) {
    const struct nn_gpu *g = &cfg->gpus[i];
    if (g->has_bus && g->bus.domain == b->domain && g->bus.bus == b->bus && g->bus.dev == b->dev &&
        g->bus.func == b->func)
      return i;
  }
  return -1;
}

static int add_gpu(struct nn_visible *v, int pos) {
  for (int i = 0; i < v->n; i++)
    if (v->gpu[i] == pos) return 0;   /* MIG instances of one GPU share its bus id */
  if (v->n == NN_VISIBLE_MAX) return -1;
  v->gpu[v->n++] = pos;
  return 0;
}

/* A decimal index as CUDA reads one: digits only. -1 when the entry is not one. */
static int entry_index(const char *s, size_t len) {
  if (len == 0 || len > 6) return -1;
  int v = 0;
  for (size_t i = 0; i < len; i++) {
    if (s[i] < '0' || s[i] > '9') return -1;
    v = v * 10 + (s[i] - '0');
  }
  return v;
}

/* "CUDA_VISIBLE_DEVICES=0,1" or, when it is unset, what the driver enumerates. */
static void who(const struct nn_visible *v, char *buf, size_t size) {
  if (v->set) snprintf(buf, size, "CUDA_VISIBLE_DEVICES=%.127s", v->list);
  else snprintf(buf, size, "the CUDA devices of this process");
}

/* The whole mapping is judged; the visible GPUs found so far (v->n) stay listed. */
static void whole(struct nn_visible *v, const char *what) {
  char w[160];
  who(v, w, sizeof w);
  v->kind = NN_VISIBLE_ALL;
  snprintf(v->why, sizeof v->why, "%s: %.200s; the whole mapping is judged", w, what);
}

/* The devices could not be matched to the mapping: nothing is listed. */
static void unmatched(struct nn_visible *v, const char *what) {
  v->n = 0;
  v->unmatched = 1;
  whole(v, what);
}

/* Index entries, up to the first one CUDA would reject. Returns 0, or -1 (whole() called). */
static int from_indices(const struct nn_config *cfg, struct nn_visible *v) {
  const char *s = v->list;
  while (*s) {
    size_t len = strcspn(s, ",");
    if (!strncmp(s, "GPU-", 4) || !strncmp(s, "MIG-", 4)) {
      unmatched(v, "UUID or MIG entries need the CUDA driver, which this process has not loaded");
      return -1;
    }
    int index = entry_index(s, len);
    if (index < 0) break;            /* CUDA ignores the rest of the list after a bad entry */
    int pos = find_by_index(cfg, index);
    if (pos < 0) {
      char what[64];
      snprintf(what, sizeof what, "GPU %d is not in the mapping", index);
      unmatched(v, what);
      return -1;
    }
    if (add_gpu(v, pos)) break;
    s += len + (s[len] == ',');
  }
  return 0;
}

static int from_driver(const struct nn_config *cfg, struct nn_visible *v, const struct nn_busid *bus, int n) {
  for (int i = 0; i < n; i++) {
    int pos = find_by_bus(cfg, &bus[i]);
    if (pos < 0) {
      char b[16], what[80];
      nn_busid_format(&bus[i], b, sizeof b);
      snprintf(what, sizeof what, "the CUDA device at %s is not in the mapping", b);
      unmatched(v, what);
      return -1;
    }
    if (add_gpu(v, pos)) break;
  }
  return 0;
}

static void classify(const struct nn_config *cfg, struct nn_visible *v) {
  char w[160];
  who(v, w, sizeof w);
  if (v->n == 0) { whole(v, "no mapped GPU visible"); return; }
  if (v->n == 1) {
    whole(v, "one GPU visible, whose communicator may hold other processes' GPUs on other NUMA nodes");
    return;
  }
  v->numa = cfg->gpus[v->gpu[0]].numa;
  v->kind = NN_VISIBLE_ONE_NODE;
  for (int i = 1; i < v->n; i++)
    if (cfg->gpus[v->gpu[i]].numa != v->numa) v->kind = NN_VISIBLE_SPANS;
  if (v->kind == NN_VISIBLE_SPANS)
    snprintf(v->why, sizeof v->why, "%s: %d GPUs on more than one NUMA node; the whole mapping is judged", w, v->n);
  else
    snprintf(v->why, sizeof v->why, "%s: %d GPUs, all on NUMA node %d; NCCL keeps only these of the file, so they "
             "are judged alone", w, v->n, v->numa);
}

void nn_visible_resolve(const struct nn_config *cfg, const char *value, nn_visible_busids_fn busids,
                        struct nn_visible *out) {
  memset(out, 0, sizeof *out);
  out->numa = -1;
  if (!cfg || cfg->n_gpus == 0) return;
  struct nn_busid bus[NN_VISIBLE_MAX];
  int n = busids ? busids(bus, NN_VISIBLE_MAX) : -1;
  if (!value && n < 0) return;     /* unset, and no driver to ask: the whole mapping */
  out->set = value != NULL;
  snprintf(out->list, sizeof out->list, "%s", value ? value : "");
  if (n >= 0 ? from_driver(cfg, out, bus, n) : from_indices(cfg, out)) return;
  if (!value && out->n == cfg->n_gpus) return;   /* the driver sees the whole mapping: nothing to say */
  classify(cfg, out);
}

void nn_visible_view(const struct nn_config *cfg, const struct nn_visible *vis, struct nn_gpu *storage,
                     struct nn_config *view) {
  *view = *cfg;
  if (vis->kind != NN_VISIBLE_ONE_NODE) return;
  for (int i = 0; i < vis->n; i++) {
    storage[i] = cfg->gpus[vis->gpu[i]];
    storage[i].index = i;
  }
  view->gpus = storage;
  view->n_gpus = vis->n;
}

int nn_visible_order(const struct nn_config *cfg, const struct nn_visible *vis, int *pos, int max) {
  if (vis->unmatched) return -1;
  int named = vis->set || vis->n > 0;   /* else unset with no driver to ask: every GPU of the mapping */
  int n = named ? vis->n : cfg->n_gpus;
  for (int i = 0; i < n && i < max; i++) pos[i] = named ? vis->gpu[i] : i;
  return n < max ? n : max;
}

void nn_visible_of_process(const struct nn_config *cfg, struct nn_visible *out) {
  nn_visible_resolve(cfg, getenv("CUDA_VISIBLE_DEVICES"), nn_cudrv_visible_busids, out);
}

const struct nn_config *nn_visible_for_comm(const struct nn_config *cfg, const struct nn_visible *vis, size_t n_ranks,
                                            size_t n_nodes, struct nn_gpu *storage, struct nn_config *view) {
  if (!cfg || vis->kind != NN_VISIBLE_ONE_NODE || n_nodes == 0 || n_ranks / n_nodes > (size_t)vis->n) return cfg;
  nn_visible_view(cfg, vis, storage, view);
  return view;
}
