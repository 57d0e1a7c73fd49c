/* SPDX-License-Identifier: BSD-3-Clause */
/* explain_json.c - explain's JSON document, rendered from the model (explain.h; keys in
 * docs/user/cli.md). */
#include "cli/common/jsonw.h"
#include "cli/predict/explain.h"
#include "nccl_model.h"

#define NN_EXPLAIN_JSON_VERSION 1

static void json_choice(struct nn_jsonw *w, const char *key, const struct nn_cost_choice *c) {
  nn_jsonw_object(w, key);
  nn_jsonw_str(w, "algo", c->algo >= 0 ? nn_algo_name(c->algo) : NULL);
  nn_jsonw_str(w, "proto", c->proto >= 0 ? nn_proto_name(c->proto) : NULL);
  if (c->algo >= 0 && c->time_us >= 0) nn_jsonw_num(w, "time_us", c->time_us);
  else nn_jsonw_null(w, "time_us");
  nn_jsonw_end(w);
}

static void json_rule(struct nn_jsonw *w, const struct nn_config *cfg, int rule) {
  char name[4200];
  if (rule >= 0)
    snprintf(name, sizeof name, "%s:%d", cfg->rules[rule].file ? cfg->rules[rule].file : "?",
             cfg->rules[rule].line);
  nn_jsonw_str(w, "rule", rule >= 0 ? name : NULL);
}

static void json_band(struct nn_jsonw *w, const struct nn_config *cfg,
                      const struct nn_costview_band *b) {
  nn_jsonw_object(w, NULL);
  nn_jsonw_int(w, "lo_bytes", 1LL << b->lo_log2);
  nn_jsonw_int(w, "hi_bytes", 1LL << b->hi_log2);
  json_choice(w, "nccl_lo", &b->nccl_lo);
  json_choice(w, "nccl_hi", &b->nccl_hi);
  json_choice(w, "plugin_lo", &b->plug_lo);
  json_choice(w, "plugin_hi", &b->plug_hi);
  json_rule(w, cfg, b->rule);
  nn_jsonw_bool(w, "overrides", b->overrides);
  nn_jsonw_int(w, "channels", b->channels);
  nn_jsonw_end(w);
}

static void json_collectives(struct nn_jsonw *w, const struct nn_explain *e) {
  nn_jsonw_array(w, "collectives");
  for (int c = 0; c < e->n_colls; c++) {
    nn_jsonw_object(w, NULL);
    nn_jsonw_str(w, "coll", nn_coll_name(e->colls[c].coll));
    nn_jsonw_array(w, "bands");
    for (int i = 0; i < e->colls[c].n_bands; i++) json_band(w, e->cfg, &e->colls[c].bands[i]);
    nn_jsonw_end(w);
    nn_jsonw_end(w);
  }
  nn_jsonw_end(w);
}

static void json_sizes(struct nn_jsonw *w, const struct nn_explain *e) {
  nn_jsonw_array(w, "sizes");
  for (int c = 0, k = 0; c < e->n_colls; c++)
    for (int i = 0; i < e->in->n_sizes; i++, k++) {
      nn_jsonw_object(w, NULL);
      nn_jsonw_str(w, "coll", nn_coll_name(e->colls[c].coll));
      nn_jsonw_int(w, "bytes", (long long)e->in->sizes[i]);
      json_choice(w, "nccl", &e->at[k].nccl);
      json_choice(w, "plugin", &e->at[k].plug);
      json_rule(w, e->cfg, e->at[k].rule);
      nn_jsonw_int(w, "channels", e->at[k].channels);
      nn_jsonw_end(w);
    }
  nn_jsonw_end(w);
}

static void json_topology(struct nn_jsonw *w, const struct nn_explain *e) {
  char reason[1024] = "", warning[512] = "";
  if (e->have_verdict) {
    nn_topology_verdict_text(&e->v, reason, sizeof reason);
    nn_topology_verdict_warning(&e->v, warning, sizeof warning);
  }
  nn_jsonw_object(w, "topology");
  nn_jsonw_bool(w, "served", e->have_verdict && e->v.serve);
  nn_jsonw_str(w, "file", e->have_verdict ? nn_topology_file_key(e->v.file) : NULL);
  nn_jsonw_str(w, "mode", e->have_verdict ? nn_topo_mode_name(e->v.mode) : NULL);
  nn_jsonw_str(w, "reason", e->have_verdict ? reason : e->no_verdict);
  nn_jsonw_str(w, "warning", warning[0] ? warning : NULL);
  nn_jsonw_end(w);
}

static void json_nic_view(struct nn_jsonw *w, const struct nn_config *cfg, const char *key,
                          const struct nn_nicview *v, int g) {
  const struct nn_nicview_gpu *x = &v->gpu[g];
  nn_jsonw_object(w, key);
  nn_jsonw_int(w, "nic", cfg->nics[x->nic].index);
  nn_jsonw_str(w, "name", cfg->nics[x->nic].name[0] ? cfg->nics[x->nic].name : NULL);
  nn_jsonw_str(w, "path", nn_nicview_path_name(x->path));
  nn_jsonw_bool(w, "gdr_read", x->gdr_read);
  nn_jsonw_bool(w, "gdr_write", x->gdr_write);
  nn_jsonw_end(w);
}

static void json_graph(struct nn_jsonw *w, const char *key, const struct nn_graph_pred *g,
                       const struct nn_config *cfg, const int *nic) {
  nn_jsonw_object(w, key);
  nn_jsonw_int(w, "channels", g->nchannels);
  nn_jsonw_num(w, "gbps_inter", g->bw_inter);
  nn_jsonw_num(w, "gbps_intra", g->bw_intra);
  nn_jsonw_str(w, "path_inter", nn_nicview_path_name(g->type_inter));
  nn_jsonw_str(w, "path_intra", nn_nicview_path_name(g->type_intra));
  nn_jsonw_array(w, "nics");
  for (int c = 0; c < g->nchannels && c < NN_SEARCH_MAX_CHANNELS; c++) {
    nn_jsonw_array(w, NULL);
    nn_jsonw_int(w, NULL, cfg->nics[nic[g->nets[2 * c]]].index);
    nn_jsonw_int(w, NULL, cfg->nics[nic[g->nets[2 * c + 1]]].index);
    nn_jsonw_end(w);
  }
  nn_jsonw_end(w);
  nn_jsonw_end(w);
}

/* nodes > 1 with nic lines: NCCL's inter-node ring and tree on both views, or null. */
static void json_inter(struct nn_jsonw *w, const struct nn_explain *e) {
  const struct nn_nicview_inter *x = &e->nics.inter;
  if (e->nodes < 2 || !e->nics.cfg.n_nics || !x->ok) {
    nn_jsonw_null(w, "inter_node");
    return;
  }
  nn_jsonw_object(w, "inter_node");
  nn_jsonw_object(w, "own");
  json_graph(w, "ring", &x->own.ring, &e->nics.cfg, x->own_nic);
  json_graph(w, "tree", &x->own.tree, &e->nics.cfg, x->own_nic);
  nn_jsonw_end(w);
  nn_jsonw_object(w, "served");
  json_graph(w, "ring", &x->served.ring, &e->nics.cfg, x->served_nic);
  json_graph(w, "tree", &x->served.tree, &e->nics.cfg, x->served_nic);
  nn_jsonw_end(w);
  nn_jsonw_end(w);
}

/* nodes > 1: per GPU, the NIC NCCL gives it in its own view and with the served file. */
static void json_nics(struct nn_jsonw *w, const struct nn_explain *e) {
  if (e->nodes < 2 || !e->nics.cfg.n_nics) {
    nn_jsonw_null(w, "nics");
    return;
  }
  nn_jsonw_array(w, "nics");
  for (int g = 0; g < e->nics.own.n_gpus; g++) {
    nn_jsonw_object(w, NULL);
    nn_jsonw_int(w, "gpu", g);
    nn_jsonw_int(w, "numa", e->nics.cfg.gpus[g].numa);
    json_nic_view(w, &e->nics.cfg, "own", &e->nics.own, g);
    json_nic_view(w, &e->nics.cfg, "served", &e->nics.served, g);
    nn_jsonw_end(w);
  }
  nn_jsonw_end(w);
}

void nn_explain_json(FILE *out, const struct nn_explain *e) {
  struct nn_jsonw w;
  char release[16] = "";
  if (e->in->ver->code) nn_nccl_version_format(e->in->ver->code, release, sizeof release);
  nn_jsonw_begin(&w, out);
  nn_jsonw_object(&w, NULL);
  nn_jsonw_int(&w, "version", NN_EXPLAIN_JSON_VERSION);
  nn_jsonw_str(&w, "command", "explain");
  nn_jsonw_str(&w, "config", e->in->cc->src.path);
  nn_jsonw_object(&w, "nccl");
  nn_jsonw_str(&w, "release", release[0] ? release : NULL);
  nn_jsonw_str(&w, "source", e->in->ver->source);
  nn_jsonw_end(&w);
  nn_jsonw_int(&w, "ranks", (long long)e->ranks);
  nn_jsonw_int(&w, "nodes", (long long)e->nodes);
  nn_jsonw_str(&w, "visible", e->job.vis.why[0] ? e->job.vis.why : NULL);
  json_topology(&w, e);
  json_nics(&w, e);
  json_inter(&w, e);
  nn_jsonw_int(&w, "rules", e->cfg->n_rules);
  nn_jsonw_bool(&w, "cost_model", e->modelled);
  if (e->modelled) json_collectives(&w, e);
  if (e->modelled && e->in->n_sizes) json_sizes(&w, e);
  nn_jsonw_str(&w, "summary", e->summary);
  nn_jsonw_finish(&w);
}
