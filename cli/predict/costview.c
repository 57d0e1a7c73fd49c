/* SPDX-License-Identifier: BSD-3-Clause */
/* costview.c - NCCL's choice beside the plugin's, under NCCL's cost model (costview.h). */
#include "cli/predict/costview.h"

#include <string.h>

#include "nccl_model.h"
#include "nccl_search.h"
#include "sizetext.h"

void nn_costview_pair_name(int algo, int proto, char *buf, size_t size) {
  if (algo < 0 || proto < 0) snprintf(buf, size, "-");
  else snprintf(buf, size, "%s/%s", nn_algo_name(algo), nn_proto_name(proto));
}

int nn_costview_model(const struct nn_topo_verdict *v, const struct nn_cpu_kind *cpu,
                      const struct nn_config *cfg, int ranks, int nodes, struct nn_cost_model *m,
                      char *desc, size_t desc_size) {
  if (!v->predicted || !v->rel) {
    snprintf(desc, desc_size,
             "no prediction of NCCL's search for this mapping: NCCL's choice not modelled");
    return -1;
  }
  if (nodes > 1) {
    snprintf(desc, desc_size,
             "NCCL's choice not modelled for %d nodes: the cost bands cover one node (NCCL's "
             "inter-node graphs: `inter-node:` below, with nic lines)",
             nodes);
    return -1;
  }
  const struct nn_search_pred *pr = v->serve ? &v->served : &v->own;
  double pci_latency_us = cfg ? cfg->pci_latency_us : 0;
  char err[256];
  if (nn_topology_cost_model(v, v->serve, cpu, ranks, pci_latency_us, m, err, sizeof err)) {
    snprintf(desc, desc_size, "NCCL's choice not modelled: %s", err);
    return -1;
  }
  char ver[16], lat[160] = "NCCL's default constants";
  nn_nccl_version_format(v->version, ver, sizeof ver);
  if (pci_latency_us > 0)
    snprintf(lat, sizeof lat,
             m->pci_latency_applied ? "`model pci-latency-us=%.2f` in effect"
                                    : "`model pci-latency-us=%.2f` has no effect on this release",
             pci_latency_us);
  int n = snprintf(desc, desc_size,
                   "NCCL %s on %s: ring %d x %.1f GB/s, tree %d x %.1f GB/s; LL128 %s; %s", ver,
                   v->serve ? "the served file" : "its own view",
                   m->nranks >= 2 ? pr->model_nchannels : 0, pr->ring.bw_intra, pr->model_nchannels,
                   pr->tree.bw_intra, m->ll128_enabled ? "on" : "off", lat);
  if (cfg && ranks != cfg->n_gpus && n > 0 && (size_t)n < desc_size)
    snprintf(desc + n, desc_size - (size_t)n, " (graphs predicted for the mapping's %d GPUs)",
             cfg->n_gpus);
  return 0;
}

void nn_costview_mask(const struct nn_forced *forced, int coll, float *table) {
  for (int a = 0; forced && a < NN_ALGO_COUNT; a++)
    for (int p = 0; p < NN_PROTO_COUNT; p++)
      if (!forced->algo_on[coll][a] || !forced->proto_on[coll][p])
        table[a * NN_PROTO_COUNT + p] = -1.0f;
}

/* plugin_choice on the table NCCL hands the tuner under `forced` (NULL: none). */
static int choice_under(const struct nn_cost_model *m, const struct nn_policy *p,
                        const struct nn_forced *forced, int coll, uint64_t nbytes,
                        struct nn_cost_choice *out, int *rule, int *channels) {
  float table[NN_ALGO_COUNT * NN_PROTO_COUNT];
  nn_cost_table(m, coll, nbytes, table);
  nn_costview_mask(forced, coll, table);
  int ch = 0;
  int r =
    p ? nn_policy_apply(p, coll, nbytes, 1, 0, table, NN_ALGO_COUNT, NN_PROTO_COUNT, &ch) : -1;
  if (rule) *rule = r;
  if (channels) *channels = r >= 0 ? ch : 0;
  if (nn_cost_pick(m, table, out)) return -1;
  /* the table now holds the policy's marks; the time is NCCL's model of the pair */
  out->time_us = nn_cost_time(m, coll, out->algo, out->proto, nbytes);
  return 0;
}

int nn_costview_plugin_choice(const struct nn_cost_model *m, const struct nn_policy *p, int coll,
                              uint64_t nbytes, struct nn_cost_choice *out, int *rule,
                              int *channels) {
  return choice_under(m, p, NULL, coll, nbytes, out, rule, channels);
}

struct point {
  struct nn_cost_choice nccl, plug;
  int rule, channels, chunk_rule;
  size_t chunk;
};

static void eval_bytes(const struct nn_cost_model *m, const struct nn_policy *p,
                       const struct nn_forced *forced, int coll, uint64_t b, struct point *pt) {
  float table[NN_ALGO_COUNT * NN_PROTO_COUNT];
  nn_cost_table(m, coll, b, table);
  nn_costview_mask(forced, coll, table);
  if (nn_cost_pick(m, table, &pt->nccl)) pt->nccl.algo = pt->nccl.proto = -1;
  if (choice_under(m, p, forced, coll, b, &pt->plug, &pt->rule, &pt->channels))
    pt->plug.algo = pt->plug.proto = -1;
  pt->chunk = 0;
  pt->chunk_rule = nn_policy_chunk(p, coll, b, pt->plug.algo, pt->plug.proto, &pt->chunk);
}

static void eval_point(const struct nn_cost_model *m, const struct nn_policy *p,
                       const struct nn_forced *forced, int coll, int e, struct point *pt) {
  eval_bytes(m, p, forced, coll, (uint64_t)1 << e, pt);
}

void nn_costview_at(const struct nn_cost_model *m, const struct nn_policy *p,
                    const struct nn_forced *forced, int coll, uint64_t nbytes,
                    struct nn_costview_at *out) {
  struct point pt;
  eval_bytes(m, p, forced, coll, nbytes, &pt);
  *out = (struct nn_costview_at){
    .nccl = pt.nccl, .plug = pt.plug, .rule = pt.rule, .channels = pt.channels};
  if (out->nccl.algo >= 0)
    out->nccl.time_us = nn_cost_time(m, coll, out->nccl.algo, out->nccl.proto, nbytes);
  if (out->plug.algo < 0) out->plug.time_us = -1.0f;
}

static int same_band(const struct point *a, const struct point *b) {
  return a->rule == b->rule && a->channels == b->channels && a->chunk_rule == b->chunk_rule &&
         a->nccl.algo == b->nccl.algo && a->nccl.proto == b->nccl.proto &&
         a->plug.algo == b->plug.algo && a->plug.proto == b->plug.proto;
}

int nn_costview_bands_under(const struct nn_cost_model *m, const struct nn_policy *p,
                            const struct nn_forced *forced, int coll, int max_log2,
                            struct nn_costview_band *bands, int max_bands) {
  int n = 0;
  struct point first, prev, cur;
  for (int e = 0; e <= max_log2 && n < max_bands; e++) {
    eval_point(m, p, forced, coll, e, &cur);
    if (e > 0 && same_band(&cur, &prev)) {
      bands[n - 1].hi_log2 = e;
      bands[n - 1].nccl_hi = cur.nccl;
      bands[n - 1].plug_hi = cur.plug;
    } else {
      first = cur;
      struct nn_costview_band *b = &bands[n++];
      b->lo_log2 = b->hi_log2 = e;
      b->nccl_lo = b->nccl_hi = first.nccl;
      b->plug_lo = b->plug_hi = first.plug;
      b->rule = first.rule;
      b->channels = first.channels;
      b->chunk = first.chunk;
      b->chunk_rule = first.chunk_rule;
      b->overrides = first.rule >= 0 &&
                     (first.plug.algo != first.nccl.algo || first.plug.proto != first.nccl.proto);
    }
    prev = cur;
  }
  return n;
}

int nn_costview_bands(const struct nn_cost_model *m, const struct nn_policy *p, int coll,
                      int max_log2, struct nn_costview_band *bands, int max_bands) {
  return nn_costview_bands_under(m, p, NULL, coll, max_log2, bands, max_bands);
}

void nn_costview_time_range(float lo, float hi, int same, char *buf, size_t size) {
  char h[24];
  snprintf(buf, size, "%.1f", lo);
  snprintf(h, sizeof h, "%.1f", hi);
  if (lo < 0 || hi < 0) snprintf(buf, size, "-");
  else if (!same && strcmp(buf, h)) snprintf(buf, size, "%.1f-%.1f", lo, hi);
}

/* The plugin's choice as NCCL's model rates it: + is slower than NCCL's own choice. */
static void penalty(const struct nn_costview_band *b, char *buf, size_t size) {
  if (!b->overrides || b->nccl_lo.time_us <= 0 || b->nccl_hi.time_us <= 0) {
    buf[0] = 0;
    return;
  }
  double lo = 100.0 * (b->plug_lo.time_us / b->nccl_lo.time_us - 1);
  double hi = 100.0 * (b->plug_hi.time_us / b->nccl_hi.time_us - 1);
  if (b->lo_log2 == b->hi_log2) snprintf(buf, size, "%+.0f%%", lo);
  else snprintf(buf, size, "%+.0f%%..%+.0f%%", lo, hi);
}

int nn_costview_channels_no_effect(const struct nn_cost_model *m, int channels) {
  return nn_nccl_channels_no_effect(nn_nccl_release_find(m->version_code, NULL), channels,
                                    m->comm_nchannels);
}

/* What the band's rule did, after its file:line. */
static void band_note(const struct nn_cost_model *m, const struct nn_costview_band *b, char *buf,
                      size_t size) {
  char ver[16];
  nn_nccl_version_format(m->version_code, ver, sizeof ver);
  if (b->channels && nn_costview_channels_no_effect(m, b->channels))
    snprintf(buf, size, " (%schannels=%d: no effect, NCCL %s only lowers its %d)",
             b->overrides ? "" : "NCCL's pick; ", b->channels, ver, m->comm_nchannels);
  else
    snprintf(buf, size, "%s",
             b->overrides  ? ""
             : b->channels ? " (NCCL's pick, the rule's channels)"
                           : " (same as NCCL's)");
}

/* One printed row; columns are as wide as their widest cell (at least the usual width), so a
 * long time range (89498.3-178996.6) never pushes the rest of its row out of line. */
struct row {
  char range[56], nccl[24], nt[40], mark[2], plug[40], pt[40], pen[40], where[400];
};

#define ROW_COLS 7

static char *row_cell(struct row *r, int i) {
  char *cells[ROW_COLS] = {r->range, r->nccl, r->nt, r->mark, r->plug, r->pt, r->pen};
  return cells[i];
}

/* The band's chunk rule, after its decision. */
static void chunk_note(const struct nn_config *cfg, const struct nn_cost_model *m,
                       const struct nn_costview_band *b, char *where, size_t size) {
  if (b->chunk_rule < 0 || !cfg || b->chunk_rule >= cfg->n_rules) return;
  char c[32], ver[16];
  nn_policy_format_bytes(b->chunk, c, sizeof c);
  nn_nccl_version_format(m->version_code, ver, sizeof ver);
  int asked = nn_nccl_release_find(m->version_code, NULL)->tuner_chunk_size;
  size_t used = strlen(where);
  snprintf(where + used, size - used, "; chunk=%s from %s:%d%s%s%s", c,
           cfg->rules[b->chunk_rule].file ? cfg->rules[b->chunk_rule].file : "?",
           cfg->rules[b->chunk_rule].line, asked ? "" : " (no effect: NCCL ", asked ? "" : ver,
           asked ? "" : " asks no tuner for chunk sizes)");
}

static void band_row(const struct nn_config *cfg, const struct nn_cost_model *m,
                     const struct nn_costview_band *b, struct row *r) {
  char l[24], h[24], note[120];
  nn_sizetext((uint64_t)1 << b->lo_log2, l, sizeof l);
  nn_sizetext((uint64_t)1 << b->hi_log2, h, sizeof h);
  int one = b->lo_log2 == b->hi_log2;
  snprintf(r->range, sizeof r->range, one ? "%s" : "%s - %s", l, h);
  nn_costview_pair_name(b->nccl_lo.algo, b->nccl_lo.proto, r->nccl, sizeof r->nccl);
  nn_costview_time_range(b->nccl_lo.time_us, b->nccl_hi.time_us, one, r->nt, sizeof r->nt);
  snprintf(r->mark, sizeof r->mark, "%c", b->overrides ? '*' : ' ');
  nn_costview_pair_name(b->plug_lo.algo, b->plug_lo.proto, r->plug, sizeof r->plug);
  if (b->channels && !nn_costview_channels_no_effect(m, b->channels))
    snprintf(r->plug + strlen(r->plug), sizeof r->plug - strlen(r->plug), " ch=%d", b->channels);
  nn_costview_time_range(b->plug_lo.time_us, b->plug_hi.time_us, one, r->pt, sizeof r->pt);
  penalty(b, r->pen, sizeof r->pen);
  band_note(m, b, note, sizeof note);
  snprintf(r->where, sizeof r->where, "NCCL's choice");
  if (b->rule >= 0 && cfg && b->rule < cfg->n_rules)
    snprintf(r->where, sizeof r->where, "%s:%d%s",
             cfg->rules[b->rule].file ? cfg->rules[b->rule].file : "?", cfg->rules[b->rule].line,
             note);
  chunk_note(cfg, m, b, r->where, sizeof r->where);
}

static void print_row(FILE *out, struct row *r, const int *w) {
  static const int right[ROW_COLS] = {0, 0, 1, 0, 0, 1, 0};
  fputs(" ", out);
  for (int i = 0; i < ROW_COLS; i++)
    fprintf(out, right[i] ? " %*s" : " %-*s", w[i], row_cell(r, i));
  fprintf(out, " %s\n", r->where);
}

void nn_costview_print(FILE *out, const struct nn_config *cfg, const struct nn_cost_model *m,
                       const struct nn_policy *p, const struct nn_forced *forced, int coll,
                       int max_log2) {
  struct nn_costview_band bands[64];
  int n = nn_costview_bands_under(m, p, forced, coll, max_log2, bands, 64);
  nn_costview_print_bands(out, cfg, m, coll, bands, n);
}

void nn_costview_print_bands(FILE *out, const struct nn_config *cfg, const struct nn_cost_model *m,
                             int coll, const struct nn_costview_band *bands, int n) {
  static struct row rows[65]; /* the header and up to 64 bands; the CLI is single-threaded */
  if (n > 64) n = 64;
  int w[ROW_COLS] = {19, 13, 15, 1, 18, 15, 13};
  rows[0] = (struct row){"size",        "NCCL picks", "modelled us", " ", "with the plugin",
                         "modelled us", "vs NCCL",    "decided by"};
  for (int i = 0; i < n; i++) band_row(cfg, m, &bands[i], &rows[i + 1]);
  for (int i = 0; i <= n; i++)
    for (int c = 0; c < ROW_COLS; c++) {
      int len = (int)strlen(row_cell(&rows[i], c));
      if (len > w[c]) w[c] = len;
    }
  fprintf(out, "\n%s\n", nn_coll_name(coll));
  for (int i = 0; i <= n; i++) print_row(out, &rows[i], w);
}
