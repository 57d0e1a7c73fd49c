/* SPDX-License-Identifier: BSD-3-Clause */
/* p2pprint.c - the report of `nccl-numa p2p`; see p2pprint.h. */
#include "cli/p2p/p2pprint.h"

#include <stdlib.h>
#include <string.h>

#include "cli/common/jsonw.h"
#include "cli/common/strbuf.h"

static const char *outcome(int o) { return o == NN_P2P_PASSED ? "ok" : o == NN_P2P_FAILED ? "FAIL" : "-"; }

static const char *state_words(int s) {
  return s == NN_P2P_PAIR_OK ? "works" : s == NN_P2P_PAIR_NOPEER ? "no peer access" : "BROKEN";
}

static void nvml_cell(char *buf, size_t size, const struct nn_p2p_pair *p) {
  if (p->a == p->b) snprintf(buf, size, "self");
  else if (p->nvml_read < 0 && p->nvml_write < 0) snprintf(buf, size, "?");
  else snprintf(buf, size, "%s/%s", nn_p2preport_nvml_name(p->nvml_read), nn_p2preport_nvml_name(p->nvml_write));
}

/* The pairs in `state` (-1: NVML not OK on a working pair) as "0->1, 1->0". */
static void pair_list(struct nn_strbuf *b, const struct nn_p2p_report *r, int state) {
  for (int i = 0; i < r->n_pairs; i++) {
    const struct nn_p2p_pair *p = &r->pairs[i];
    int in = state >= 0 ? p->state == state
                        : p->state == NN_P2P_PAIR_OK && p->a != p->b && (p->nvml_read > 0 || p->nvml_write > 0);
    if (in) nn_strbuf_printf(b, "%s%d->%d", b->len ? ", " : "", p->a, p->b);
  }
}

static void range(const struct nn_p2p_report *r, int bw, double *lo, double *hi) {
  *lo = *hi = -1;
  for (int i = 0; i < r->n_pairs; i++) {
    double v = bw ? r->pairs[i].gbps : r->pairs[i].latency_us;
    if (r->pairs[i].state != NN_P2P_PAIR_OK || v < 0) continue;
    if (*lo < 0 || v < *lo) *lo = v;
    if (v > *hi) *hi = v;
  }
}

static void print_head(FILE *out, const struct nn_p2p_report *r) {
  fprintf(out, "nccl-numa p2p: CUDA driver API %d.%d", r->cuda_version / 1000, r->cuda_version % 1000 / 10);
  if (r->nvml_driver[0]) fprintf(out, ", NVIDIA driver %s", r->nvml_driver);
  fprintf(out, "\n");
  if (r->mapping) fprintf(out, "mapping: %s (pairs on one NUMA node: PHB, across nodes: SYS)\n", r->mapping);
  else fprintf(out, "no mapping: every pair counted as PHB, the flat view a VM gives\n");
  for (int i = 0; i < r->n_gpus; i++) {
    const struct nn_p2p_gpu *g = &r->gpus[i];
    fprintf(out, "GPU %d  %s  %s", g->ordinal, g->bus, g->name);
    if (r->mapping) {
      if (g->numa >= 0) fprintf(out, "  (NUMA node %d)", g->numa);
      else fprintf(out, "  (not in the mapping: its pairs are counted as SYS)");
    }
    fprintf(out, "\n");
  }
}

static void print_rows(FILE *out, const struct nn_p2p_report *r) {
  fprintf(out, "\n%-7s %-4s %-6s %-8s %-5s %-5s %-5s %12s %10s  %s\n", "pair", "path", "driver", "NVML r/w", "write",
          "read", "copy", "latency(us)", "GB/s", "result");
  for (int i = 0; i < r->n_pairs; i++) {
    const struct nn_p2p_pair *p = &r->pairs[i];
    char name[24], nv[24], lat[24] = "-", bw[24] = "-";
    snprintf(name, sizeof name, "%d->%d", p->a, p->b);
    nvml_cell(nv, sizeof nv, p);
    if (p->latency_us >= 0) snprintf(lat, sizeof lat, "%.2f", p->latency_us);
    if (p->gbps >= 0) snprintf(bw, sizeof bw, "%.2f", p->gbps);
    fprintf(out, "%-7s %-4s %-6s %-8s %-5s %-5s %-5s %12s %10s  %s\n", name, nn_config_p2p_level_name(p->path),
            p->can < 0 ? "?" : p->can ? "yes" : "no", nv, outcome(p->step[NN_P2P_WRITE]),
            outcome(p->step[NN_P2P_READ]), outcome(p->step[NN_P2P_COPY]), lat, bw, state_words(p->state));
  }
  for (int i = 0; i < r->n_pairs; i++)
    if (r->pairs[i].state == NN_P2P_PAIR_BROKEN)
      fprintf(out, "  %d->%d: %s\n", r->pairs[i].a, r->pairs[i].b, r->pairs[i].reason);
}

/* The GPUs --gpus left out, and what the line then serves. */
static void print_untested(FILE *out, const struct nn_p2p_report *r) {
  uint64_t all = 0;
  for (int i = 0; i < r->n_gpus; i++) {
    int g = r->by_ordinal ? i : r->gpus[i].index;
    if (g >= 0 && g < NN_P2P_MAX_TESTED) all |= (uint64_t)1 << g;
  }
  char untested[160], tested[160];
  nn_config_p2p_gpus_format(all & ~r->tested, untested, sizeof untested);
  nn_config_p2p_gpus_format(r->tested, tested, sizeof tested);
  int many = strpbrk(untested, ",-") != NULL;
  fprintf(out, "note: GPU%s %s untested (--gpus left %s out): the line serves P2P only to a process whose "
          "GPUs are all among gpus=%s; any other keeps P2P off\n", many ? "s" : "", untested[0] ? untested : "-",
          many ? "them" : "it", tested);
}

static void print_notes(FILE *out, const struct nn_p2p_report *r, int subset) {
  struct nn_strbuf b = {0};
  if (r->nvml_off[0])
    fprintf(out, "note: NVML gave no P2P status (%s); NCCL reads that status too\n", r->nvml_off);
  pair_list(&b, r, -1);
  if (b.len)
    fprintf(out, "note: NVML's P2P read/write status is not OK on %s: NCCL checks it (ncclTopoCheckP2p, "
            "src/graph/paths.cc) and keeps P2P off there even with the line below\n", b.s);
  free(nn_strbuf_take(&b));
  if (r->verdict == NN_P2P_OK) {
    pair_list(&b, r, NN_P2P_PAIR_NOPEER);
    if (b.len) fprintf(out, "note: no peer access on %s: NCCL keeps those on host memory (SHM)\n", b.s);
    free(nn_strbuf_take(&b));
  }
  if (subset) print_untested(out, r);
  if (r->by_ordinal && r->verdict == NN_P2P_OK)
    fprintf(out, "note: no mapping: gpus= counts the CUDA device numbers; `nccl-numa p2p --update MAPPING` "
            "writes the mapping's own\n");
}

static void print_verdict(FILE *out, const struct nn_p2p_report *r) {
  struct nn_strbuf b = {0};
  int n_ok = 0;
  double llo, lhi, blo, bhi;
  for (int i = 0; i < r->n_pairs; i++) n_ok += r->pairs[i].state == NN_P2P_PAIR_OK;
  range(r, 0, &llo, &lhi);
  range(r, 1, &blo, &bhi);
  fprintf(out, "\nverdict: ");
  switch (r->verdict) {
  case NN_P2P_NONE:
    fprintf(out, "%s: the kernels loaded, ran and were timed on each GPU with itself (latency %.2f-%.2f us, "
            "%.2f-%.2f GB/s); peer-to-peer needs two GPUs: pairs N/A, no mapping line\n",
            n_ok == r->n_pairs ? "self-test passed" : "self-test FAILED", llo, lhi, blo, bhi);
    return;
  case NN_P2P_BROKEN:
    pair_list(&b, r, NN_P2P_PAIR_BROKEN);
    fprintf(out, "peer-to-peer is BROKEN on %s. Keep it off: NCCL would hang or compute wrong results "
            "there. The line makes the plugin set NCCL_P2P_DISABLE=1.\n", b.s);
    free(nn_strbuf_take(&b));
    break;
  case NN_P2P_UNSUPPORTED:
    fprintf(out, "the driver grants peer access on no pair: nothing to verify; NCCL goes through host "
            "memory (SHM). In a Proxmox VM, the GPUs' clique (proxmox-numa --p2p-clique) may grant it: "
            "then run this again.\n");
    break;
  default:
    fprintf(out, "peer-to-peer works: %d pair(s) wrote, read and copied correctly (latency %.2f-%.2f us, "
            "%.2f-%.2f GB/s). The line lets NCCL use it up to path %s (NCCL_P2P_LEVEL).\n",
            n_ok, llo, lhi, blo, bhi, nn_config_p2p_level_name(r->level));
  }
  fprintf(out, "add this line to the mapping:\n%s\n", r->line);
}

void nn_p2pprint_text(FILE *out, const struct nn_p2p_report *r, int subset) {
  print_head(out, r);
  print_rows(out, r);
  print_notes(out, r, subset);
  print_verdict(out, r);
}

static void json_num_or_null(struct nn_jsonw *w, const char *key, double v) {
  if (v < 0) nn_jsonw_null(w, key);
  else nn_jsonw_num(w, key, v);
}

static void json_int_or_null(struct nn_jsonw *w, const char *key, int v) {
  if (v < 0) nn_jsonw_null(w, key);
  else nn_jsonw_int(w, key, v);
}

static void json_pair(struct nn_jsonw *w, const struct nn_p2p_pair *p) {
  static const char *const states[] = {"ok", "no-peer-access", "broken"};
  static const char *const attrs[] = {"performance_rank", "access_supported", "native_atomic", "cuda_array_access"};
  nn_jsonw_object(w, NULL);
  nn_jsonw_int(w, "a", p->a);
  nn_jsonw_int(w, "b", p->b);
  nn_jsonw_str(w, "path", nn_config_p2p_level_name(p->path));
  if (p->can < 0) nn_jsonw_null(w, "peer_access");
  else nn_jsonw_bool(w, "peer_access", p->can);
  nn_jsonw_object(w, "attributes");
  for (int i = 0; i < 4; i++) json_int_or_null(w, attrs[i], p->attr[i]);
  nn_jsonw_end(w);
  nn_jsonw_str(w, "nvml_read", p->nvml_read < 0 ? NULL : nn_p2preport_nvml_name(p->nvml_read));
  nn_jsonw_str(w, "nvml_write", p->nvml_write < 0 ? NULL : nn_p2preport_nvml_name(p->nvml_write));
  for (int i = 0; i < NN_P2P_STEPS; i++)
    nn_jsonw_str(w, nn_p2p_step_names[i], p->step[i] == NN_P2P_PASSED ? "ok" : p->step[i] == NN_P2P_FAILED ? "fail" : NULL);
  json_num_or_null(w, "latency_us", p->latency_us);
  json_num_or_null(w, "bandwidth_gbps", p->gbps);
  nn_jsonw_str(w, "state", states[p->state]);
  nn_jsonw_str(w, "reason", p->reason[0] ? p->reason : NULL);
  nn_jsonw_end(w);
}

void nn_p2pprint_json(FILE *out, const struct nn_p2p_report *r, int subset) {
  struct nn_jsonw w;
  nn_jsonw_begin(&w, out);
  nn_jsonw_object(&w, NULL);
  nn_jsonw_int(&w, "version", 1);
  nn_jsonw_str(&w, "command", "p2p");
  nn_jsonw_int(&w, "cuda_driver_api", r->cuda_version);
  nn_jsonw_str(&w, "driver", r->nvml_driver[0] ? r->nvml_driver : NULL);
  nn_jsonw_str(&w, "nvml_unavailable", r->nvml_off[0] ? r->nvml_off : NULL);
  nn_jsonw_str(&w, "mapping", r->mapping);
  nn_jsonw_bool(&w, "subset", subset);
  nn_jsonw_array(&w, "gpus");
  for (int i = 0; i < r->n_gpus; i++) {
    nn_jsonw_object(&w, NULL);
    nn_jsonw_int(&w, "index", r->gpus[i].ordinal);
    nn_jsonw_str(&w, "bus", r->gpus[i].bus);
    nn_jsonw_str(&w, "name", r->gpus[i].name);
    json_int_or_null(&w, "numa", r->gpus[i].numa);
    nn_jsonw_end(&w);
  }
  nn_jsonw_end(&w);
  nn_jsonw_array(&w, "pairs");
  for (int i = 0; i < r->n_pairs; i++) json_pair(&w, &r->pairs[i]);
  nn_jsonw_end(&w);
  nn_jsonw_str(&w, "verdict", r->verdict == NN_P2P_NONE ? "self-test" : nn_config_p2p_state_name(r->verdict));
  char tested[160];
  nn_config_p2p_gpus_format(r->tested, tested, sizeof tested);
  nn_jsonw_str(&w, "gpus_tested", r->line[0] && tested[0] ? tested : NULL);
  nn_jsonw_str(&w, "driver_tested", r->driver[0] ? r->driver : NULL);
  nn_jsonw_str(&w, "level", r->verdict == NN_P2P_OK ? nn_config_p2p_level_name(r->level) : NULL);
  nn_jsonw_str(&w, "mapping_line", r->line[0] ? r->line : NULL);
  nn_jsonw_array(&w, "failing");
  for (int i = 0; i < r->n_pairs; i++) {
    if (r->pairs[i].state != NN_P2P_PAIR_BROKEN) continue;
    char name[24];
    snprintf(name, sizeof name, "%d->%d", r->pairs[i].a, r->pairs[i].b);
    nn_jsonw_str(&w, NULL, name);
  }
  nn_jsonw_end(&w);
  nn_jsonw_end(&w);
  nn_jsonw_finish(&w);
}
