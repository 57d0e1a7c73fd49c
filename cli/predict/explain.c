/* SPDX-License-Identifier: BSD-3-Clause */
/* explain.c - the explain model: everything the command says, computed once; see explain.h. */
#include "cli/predict/explain.h"

#include <stdlib.h>
#include <string.h>

#include "cli/common/bindfor.h"
#include "cli/predict/costview.h"

const int nn_explain_coll_order[NN_COLL_COUNT] = {
  NN_COLL_ALLREDUCE, NN_COLL_ALLGATHER, NN_COLL_REDUCESCATTER, NN_COLL_BROADCAST, NN_COLL_REDUCE};

/* NCCL runs Tree only for allreduce; Ring everywhere; LL128 is off on PCIe-only paths. */
static void pcie_only_table(int coll, float *t) {
  for (int i = 0; i < NN_ALGO_COUNT * NN_PROTO_COUNT; i++) t[i] = -1.0f;
  int protos[] = {NN_PROTO_LL, NN_PROTO_SIMPLE};
  for (int p = 0; p < 2; p++) {
    t[NN_ALGO_RING * NN_PROTO_COUNT + protos[p]] = 1.0f;
    if (coll == NN_COLL_ALLREDUCE) t[NN_ALGO_TREE * NN_PROTO_COUNT + protos[p]] = 1.0f;
  }
}

/* Without NCCL's model: the deciding rule per power of two on the PCIe-only table, merged. */
static void rule_rows(const struct nn_explain *e, struct nn_explain_coll *c) {
  float table[NN_ALGO_COUNT * NN_PROTO_COUNT];
  pcie_only_table(c->coll, table);
  nn_costview_mask(&e->forced, c->coll, table);
  int prev = -2;
  for (int x = 0; x <= NN_EXPLAIN_MAX_LOG2; x++) {
    int rule =
      nn_policy_lookup(e->p, c->coll, (uint64_t)1 << x, 1, 0, table, NN_ALGO_COUNT, NN_PROTO_COUNT);
    if (x == 0 || rule != prev) {
      c->row_lo[c->n_rows] = x;
      c->row_rule[c->n_rows++] = rule;
    }
    c->row_hi[c->n_rows - 1] = x;
    prev = rule;
  }
}

static void collectives(struct nn_explain *e) {
  for (int i = 0; i < NN_COLL_COUNT; i++) {
    int coll = nn_explain_coll_order[i];
    if (e->in->only >= 0 && e->in->only != coll) continue;
    struct nn_explain_coll *c = &e->colls[e->n_colls++];
    c->coll = coll;
    if (e->modelled)
      c->n_bands = nn_costview_bands_under(&e->m, e->p, &e->forced, coll, NN_EXPLAIN_MAX_LOG2,
                                           c->bands, NN_EXPLAIN_MAX_BANDS);
    else rule_rows(e, c);
    for (int s = 0; e->modelled && s < e->in->n_sizes; s++)
      nn_costview_at(&e->m, e->p, &e->forced, coll, e->in->sizes[s], &e->at[e->n_at++]);
  }
}

/* The verdict and NCCL's cost model; have_verdict 0 with no_verdict when the CPU is unknown. */
static void verdict(struct nn_explain *e) {
  char err[512];
  if (nn_topology_cpu_kind(e->cfg, NULL, &e->cpu, err, sizeof err) != 0) {
    snprintf(e->no_verdict, sizeof e->no_verdict, "%s", err);
    return;
  }
  nn_ncclver_verdict(e->cfg, &e->cpu, e->in->ver, e->in->sysfs_root, NULL, 0, &e->v);
  e->have_verdict = 1;
  e->modelled = nn_costview_model(&e->v, &e->cpu, e->cfg, (int)e->ranks, (int)e->nodes, &e->m,
                                  e->model_desc, sizeof e->model_desc) == 0;
}

static void summarise(struct nn_explain *e) {
  nn_summary_rules_of(e->modelled ? &e->m : NULL, e->p, NN_EXPLAIN_MAX_LOG2, &e->rules);
  if (e->nodes > 1) {
    nn_nicview_report(e->cfg, e->in->cc->cfg, e->in->ver->code, e->have_verdict ? &e->v : NULL,
                      &e->cpu, e->in->sysfs_root, &e->nics);
    nn_nicview_summary(&e->nics.cfg, &e->nics, e->nic_words, sizeof e->nic_words);
  }
  struct nn_summary_in sin = {.nccl_version = e->in->ver->code,
                              .cfg = e->cfg,
                              .v = e->have_verdict ? &e->v : NULL,
                              .no_verdict = e->no_verdict,
                              .user_topo = getenv("NCCL_TOPO_FILE"),
                              .rules = &e->rules,
                              .nics = e->nic_words};
  nn_summary_facts_of(&sin, &e->facts);
  nn_summary_text(&sin, e->summary, sizeof e->summary);
}

int nn_explain_build(const struct nn_explain_in *in, struct nn_explain *e, char *err,
                     size_t errsz) {
  memset(e, 0, sizeof *e);
  e->in = in;
  const struct nn_config *whole = in->cc->cfg;
  nn_job_resolve(whole, in->visible, 1, &e->job);
  e->cfg = &e->job.view;
  e->ranks = in->ranks ? in->ranks : nn_job_ranks(whole, &e->job);
  e->nodes = in->nodes;
  e->p = nn_policy_compile(
    nn_visible_for_comm(whole, &e->job.vis, e->ranks, e->nodes, e->job.own, &e->scope), e->ranks,
    e->nodes);
  if (!e->p) {
    snprintf(err, errsz, "out of memory");
    return -1;
  }
  nn_forced_read(e->cfg, &e->forced);
  verdict(e);
  if (!nn_bind_applies(whole, &e->job.vis, NULL, e->bind_list, sizeof e->bind_list))
    e->bind_list[0] = 0;
  collectives(e);
  if (in->compare &&
      nn_release_diff_compute(e->cfg, in->ver, in->compare, (int)e->ranks, (int)e->nodes,
                              &e->forced, NN_EXPLAIN_MAX_LOG2, &e->diff, err, errsz))
    return -1;
  e->compared = in->compare != 0;
  summarise(e);
  return 0;
}

void nn_explain_free(struct nn_explain *e) {
  nn_policy_free(e->p);
  e->p = NULL;
}
