/* SPDX-License-Identifier: BSD-3-Clause */
/* p2pprint.c - the report of `nccl-numa p2p`; see p2pprint.h. */
#include "cli/p2p/p2pprint.h"

#include <stdlib.h>
#include <string.h>

#include "cli/common/jsonw.h"
#include "cli/common/strbuf.h"

static const char *outcome(int o) {
  return o == NN_P2P_PASSED ? "ok" : o == NN_P2P_FAILED ? "FAIL" : "-";
}

static const char *state_words(int s) {
  return s == NN_P2P_PAIR_OK ? "works" : s == NN_P2P_PAIR_NOPEER ? "no peer access" : "BROKEN";
}

static void nvml_cell(char *buf, size_t size, const struct nn_p2p_pair *p) {
  if (p->a == p->b) snprintf(buf, size, "self");
  else if (p->nvml_read < 0 && p->nvml_write < 0) snprintf(buf, size, "?");
  else
    snprintf(buf, size, "%s/%s", nn_p2preport_nvml_name(p->nvml_read),
             nn_p2preport_nvml_name(p->nvml_write));
}

/* The pairs in `state` (-1: NVML not OK on a working pair) as "0->1, 1->0". */
static void pair_list(struct nn_strbuf *b, const struct nn_p2p_report *r, int state) {
  for (int i = 0; i < r->n_pairs; i++) {
    const struct nn_p2p_pair *p = &r->pairs[i];
    int in = state >= 0 ? p->state == state
                        : p->state == NN_P2P_PAIR_OK && p->a != p->b &&
                            (p->nvml_read > 0 || p->nvml_write > 0);
    if (in) nn_strbuf_printf(b, "%s%d->%d", b->len ? ", " : "", p->a, p->b);
  }
}

/* The range of a measure over the working pairs: 0 latency, 1 copy-engine, 2 SM-store GB/s. */
static void range(const struct nn_p2p_report *r, int which, double *lo, double *hi) {
  *lo = *hi = -1;
  for (int i = 0; i < r->n_pairs; i++) {
    const struct nn_p2p_pair *p = &r->pairs[i];
    double v = which == 2 ? p->sm_gbps : which ? p->gbps : p->latency_us;
    if (r->pairs[i].state != NN_P2P_PAIR_OK || v < 0) continue;
    if (*lo < 0 || v < *lo) *lo = v;
    if (v > *hi) *hi = v;
  }
}

static void print_head(FILE *out, const struct nn_p2p_report *r) {
  fprintf(out, "nccl-numa p2p: CUDA driver API %d.%d", r->cuda_version / 1000,
          r->cuda_version % 1000 / 10);
  if (r->nvml_driver[0]) fprintf(out, ", NVIDIA driver %s", r->nvml_driver);
  fprintf(out, "\n");
  if (r->mapping)
    fprintf(out, "mapping: %s (pairs on one NUMA node: PHB, across nodes: SYS)\n", r->mapping);
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

/* Several steps in one cell: FAIL when one failed, ok when all passed, else "-". */
static const char *outcomes(const struct nn_p2p_pair *p, int first, int n) {
  int passed = 0;
  for (int i = first; i < first + n; i++) {
    if (p->step[i] == NN_P2P_FAILED) return "FAIL";
    passed += p->step[i] == NN_P2P_PASSED;
  }
  return passed == n ? "ok" : "-";
}

static void print_rows(FILE *out, const struct nn_p2p_report *r) {
  fprintf(out, "\n%-7s %-4s %-6s %-8s %-5s %-5s %-5s %-5s %-5s %-5s %11s %8s %8s  %s\n", "pair",
          "path", "driver", "NVML r/w", "write", "read", "copy", "xproc", "LL", "ipc",
          "latency(us)", "CE GB/s", "SM GB/s", "result");
  for (int i = 0; i < r->n_pairs; i++) {
    const struct nn_p2p_pair *p = &r->pairs[i];
    char name[24], nv[24], lat[24] = "-", bw[24] = "-", sm[24] = "-";
    snprintf(name, sizeof name, "%d->%d", p->a, p->b);
    nvml_cell(nv, sizeof nv, p);
    if (p->latency_us >= 0) snprintf(lat, sizeof lat, "%.2f", p->latency_us);
    if (p->gbps >= 0) snprintf(bw, sizeof bw, "%.2f", p->gbps);
    if (p->sm_gbps >= 0) snprintf(sm, sizeof sm, "%.2f", p->sm_gbps);
    fprintf(out, "%-7s %-4s %-6s %-8s %-5s %-5s %-5s %-5s %-5s %-5s %11s %8s %8s  %s\n", name,
            nn_config_p2p_level_name(p->path),
            p->can < 0 ? "?"
            : p->can   ? "yes"
                       : "no",
            nv, outcome(p->step[NN_P2P_WRITE]), outcome(p->step[NN_P2P_READ]),
            outcome(p->step[NN_P2P_COPY]), outcomes(p, NN_P2P_XWRITE, 2),
            outcomes(p, NN_P2P_XLL8, 2), outcomes(p, NN_P2P_IPCWRITE, 2), lat, bw, sm,
            state_words(p->state));
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
  fprintf(
    out,
    "note: GPU%s %s untested (--gpus left %s out): the line serves P2P only to a process whose "
    "GPUs are all among gpus=%s; any other keeps P2P off\n",
    many ? "s" : "", untested[0] ? untested : "-", many ? "them" : "it", tested);
}

/* The ring's rows: each GPU process's lines checked and its SM-store rate. */
static void print_ring(FILE *out, const struct nn_p2p_report *r) {
  const struct nn_p2p_ring *g = &r->ring;
  if (!g->run) return;
  fprintf(out,
          "\nall at once: every GPU a process, writing LL lines (16-byte stores with flags) to "
          "both ring "
          "neighbours for %.0f s\n",
          g->seconds);
  for (int i = 0; i < g->n; i++)
    fprintf(out, "GPU %-3d %6d rounds  %lld of %lld lines wrong  SM stores %.2f GB/s\n",
            g->gpus[i].ordinal, g->gpus[i].rounds, g->gpus[i].wrong, g->gpus[i].checked,
            g->gpus[i].gbps);
  if (!g->ok) fprintf(out, "  all at once: %s\n", g->reason);
}

static void print_notes(FILE *out, const struct nn_p2p_report *r, int subset) {
  struct nn_strbuf b = {0};
  if (r->nvml_off[0])
    fprintf(out, "note: NVML gave no P2P status (%s); NCCL reads that status too\n", r->nvml_off);
  pair_list(&b, r, -1);
  if (b.len)
    fprintf(out,
            "note: NVML's P2P read/write status is not OK on %s: NCCL checks it (ncclTopoCheckP2p, "
            "src/graph/paths.cc) and keeps P2P off there even with the line below\n",
            b.s);
  free(nn_strbuf_take(&b));
  if (r->verdict == NN_P2P_OK) {
    pair_list(&b, r, NN_P2P_PAIR_NOPEER);
    if (b.len && r->advice == NN_P2P_ADVICE_SOCKET_NOPEER)
      fprintf(out,
              "note: the driver refuses peer access across NUMA nodes (%s), as a clique per socket "
              "makes "
              "it: NCCL asks the driver for each pair (cudaDeviceCanAccessPeer in p2pCanConnect, "
              "src/transport/p2p.cc; NVML's P2P status in ncclTopoCheckP2p) and keeps those pairs "
              "on host "
              "memory (SHM), whatever the level; the pairs within each node use peer access\n",
              b.s);
    else if (b.len)
      fprintf(out, "note: no peer access on %s: NCCL keeps those on host memory (SHM)\n", b.s);
    free(nn_strbuf_take(&b));
  }
  if (r->verdict == NN_P2P_OK && (r->ring.rings > 1 || r->ring.n < r->n_sel))
    fprintf(out, "note: all at once: %s: not every pair among the GPUs tested has peer access\n",
            r->ring.run ? "a ring per NUMA node whose pairs all work, not all GPUs together"
                        : "not tested");
  if (subset) print_untested(out, r);
  if (r->by_ordinal && r->line[0])
    fprintf(
      out,
      "note: no mapping: gpus= counts the CUDA device numbers; `nccl-numa p2p --update MAPPING` "
      "writes the mapping's own\n");
}

static void print_broken(FILE *out, const struct nn_p2p_report *r) {
  struct nn_strbuf b = {0};
  pair_list(&b, r, NN_P2P_PAIR_BROKEN);
  if (b.len) fprintf(out, "peer-to-peer is BROKEN on %s", b.s);
  else fprintf(out, "peer-to-peer is BROKEN when every GPU writes at once (each pair alone works)");
  free(nn_strbuf_take(&b));
  if (r->advice == NN_P2P_ADVICE_SOCKET_CLIQUE) {
    fprintf(out, ". Every failing pair crosses NUMA nodes and every pair within a node passed: "
                 "give each socket "
                 "a clique of its own on the host (`nccl-numa proxmox-numa --vm-config FILE "
                 "--p2p-clique=socket "
                 "--write`), stop and start the VM, and run `nccl-numa p2p --update MAPPING` "
                 "again: the driver then "
                 "refuses the pairs across sockets and NCCL keeps them on host memory, while the "
                 "pairs within a "
                 "socket use peer access. Until then the line below keeps P2P off.\n");
    return;
  }
  fprintf(out, ". Keep it off: NCCL would hang or compute wrong results there. The line makes the "
               "plugin serve "
               "NCCL_P2P_DISABLE=1 and NCCL_WIN_ENABLE=0 (your own values of them win); NCCL's "
               "symmetric memory "
               "and the engines' own all-reduce kernels ask the driver instead, so remove the "
               "clique on the host "
               "(`nccl-numa proxmox-numa --vm-config FILE --write` without --p2p-clique, then stop "
               "and start the "
               "VM): the one switch every consumer obeys.\n");
}

static void print_works(FILE *out, const struct nn_p2p_report *r) {
  int n_ok = 0;
  double llo, lhi, blo, bhi, slo, shi;
  for (int i = 0; i < r->n_pairs; i++) n_ok += r->pairs[i].state == NN_P2P_PAIR_OK;
  range(r, 0, &llo, &lhi);
  range(r, 1, &blo, &bhi);
  range(r, 2, &slo, &shi);
  fprintf(
    out,
    "peer-to-peer works: %d pair(s) wrote, read and copied correctly, in one process and across "
    "processes (cuMem and legacy IPC, LL stores with flags)",
    n_ok);
  if (r->ring.run)
    fprintf(
      out, ", and every GPU wrote to its ring neighbours at once for %.0f s%s without a wrong line",
      r->ring.seconds, r->ring.rings > 1 ? " (a ring per NUMA node)" : "");
  fprintf(out,
          " (latency %.2f-%.2f us, copy engine %.2f-%.2f GB/s, SM stores %.2f-%.2f GB/s). The line "
          "lets NCCL "
          "use it up to path %s (NCCL_P2P_LEVEL): in NCCL's flat view (no topology file served) "
          "every pair is "
          "PHB; where the two-socket file is served, the pairs within a socket are PHB and those "
          "across SYS.\n",
          llo, lhi, blo, bhi, slo, shi, nn_config_p2p_level_name(r->level));
}

static void print_verdict(FILE *out, const struct nn_p2p_report *r, const char *updated) {
  double llo, lhi, blo, bhi;
  int n_ok = 0;
  for (int i = 0; i < r->n_pairs; i++) n_ok += r->pairs[i].state == NN_P2P_PAIR_OK;
  range(r, 0, &llo, &lhi);
  range(r, 1, &blo, &bhi);
  fprintf(out, "\nverdict: ");
  if (r->verdict == NN_P2P_NONE) {
    fprintf(
      out,
      "%s: the kernels loaded, ran and were timed on each GPU with itself (latency %.2f-%.2f us, "
      "%.2f-%.2f GB/s); peer-to-peer needs two GPUs: pairs N/A, no mapping line\n",
      n_ok == r->n_pairs ? "self-test passed" : "self-test FAILED", llo, lhi, blo, bhi);
    return;
  }
  if (r->verdict == NN_P2P_BROKEN) print_broken(out, r);
  else if (r->incomplete)
    fprintf(
      out,
      "incomplete: the run passed its deadline (--deadline) after %d pair(s) with nothing "
      "broken: no "
      "line, since pairs went untested; test fewer GPUs at a time (--gpus) or give it longer\n",
      r->n_pairs);
  else if (r->verdict == NN_P2P_UNSUPPORTED)
    fprintf(
      out,
      "the driver grants peer access on no pair: nothing to verify; NCCL goes through host "
      "memory (SHM). In a Proxmox VM, the GPUs' clique (proxmox-numa --p2p-clique) may grant it: "
      "then run this again.\n");
  else print_works(out, r);
  if (!r->line[0]) return;
  if (updated) fprintf(out, "the line written to %s:\n%s\n", updated, r->line);
  else fprintf(out, "add this line to the mapping (or run with --update MAPPING):\n%s\n", r->line);
}

void nn_p2pprint_text(FILE *out, const struct nn_p2p_report *r, int subset, const char *updated) {
  print_head(out, r);
  print_rows(out, r);
  print_ring(out, r);
  print_notes(out, r, subset);
  print_verdict(out, r, updated);
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
  static const char *const attrs[] = {"performance_rank", "access_supported", "native_atomic",
                                      "cuda_array_access"};
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
    nn_jsonw_str(w, nn_p2p_step_names[i],
                 p->step[i] == NN_P2P_PASSED   ? "ok"
                 : p->step[i] == NN_P2P_FAILED ? "fail"
                                               : NULL);
  json_num_or_null(w, "latency_us", p->latency_us);
  json_num_or_null(w, "bandwidth_gbps", p->gbps);
  json_num_or_null(w, "sm_bandwidth_gbps", p->sm_gbps);
  nn_jsonw_str(w, "state", states[p->state]);
  nn_jsonw_str(w, "reason", p->reason[0] ? p->reason : NULL);
  nn_jsonw_end(w);
}

static void json_ring(struct nn_jsonw *w, const struct nn_p2p_ring *g) {
  if (!g->run) {
    nn_jsonw_null(w, "ring");
    return;
  }
  nn_jsonw_object(w, "ring");
  nn_jsonw_num(w, "seconds", g->seconds);
  nn_jsonw_bool(w, "ok", g->ok);
  nn_jsonw_str(w, "reason", g->reason[0] ? g->reason : NULL);
  nn_jsonw_array(w, "gpus");
  for (int i = 0; i < g->n; i++) {
    nn_jsonw_object(w, NULL);
    nn_jsonw_int(w, "index", g->gpus[i].ordinal);
    nn_jsonw_int(w, "rounds", g->gpus[i].rounds);
    nn_jsonw_num(w, "wrong", (double)g->gpus[i].wrong);
    nn_jsonw_num(w, "checked", (double)g->gpus[i].checked);
    nn_jsonw_num(w, "sm_gbps", g->gpus[i].gbps);
    nn_jsonw_end(w);
  }
  nn_jsonw_end(w);
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
  nn_jsonw_str(&w, "verdict",
               r->verdict == NN_P2P_NONE ? "self-test" : nn_config_p2p_state_name(r->verdict));
  char tested[160];
  nn_config_p2p_gpus_format(r->tested, tested, sizeof tested);
  nn_jsonw_str(&w, "gpus_tested", r->line[0] && tested[0] ? tested : NULL);
  nn_jsonw_str(&w, "driver_tested", r->driver[0] ? r->driver : NULL);
  nn_jsonw_str(&w, "level", r->verdict == NN_P2P_OK ? nn_config_p2p_level_name(r->level) : NULL);
  nn_jsonw_str(&w, "mapping_line", r->line[0] ? r->line : NULL);
  static const char *const advice[] = {NULL, "socket-clique",
                                       "socket-nopeer"}; /* enum nn_p2p_advice */
  nn_jsonw_str(&w, "advice", advice[r->advice]);
  nn_jsonw_bool(&w, "incomplete", r->incomplete);
  json_ring(&w, &r->ring);
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
