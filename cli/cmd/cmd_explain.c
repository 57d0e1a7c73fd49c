/* SPDX-License-Identifier: BSD-3-Clause */
/* cmd_explain.c - `nccl-numa explain`: the plugin's decision per collective and size,
 * computed by the plugin's own policy module on NCCL's usual PCIe-only table. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/common/cliconfig.h"
#include "cli/commands.h"
#include "cli/common/options.h"
#include "cli/common/bindfor.h"
#include "cli/predict/costview.h"
#include "cli/predict/protonotes.h"
#include "cli/predict/ncclver.h"
#include "cli/predict/release_diff.h"
#include "cli/predict/summary.h"
#include "cpuinfo.h"
#include "nccl_forced.h"
#include "nccl_model.h"
#include "nn_config.h"
#include "numparse.h"
#include "policy.h"
#include "topology.h"
#include "visible.h"

#define NN_EXPLAIN_MAX_LOG2 32   /* 1 B .. 4 GiB */

static void usage(FILE *out) {
  fprintf(out,
          "usage: nccl-numa explain [--config FILE] [--ranks N] [--nodes N] [--coll NAME]\n"
          "                         [--nccl-version X.Y.Z | --nccl-lib PATH] [--cpuinfo FILE]\n"
          "                         [--visible-devices LIST] [--compare-release X.Y.Z [--emit-rules]]\n\n"
          "Shows, for one communicator shape, which rule decides each collective at each size\n"
          "(powers of two from 1 B to 4 GiB, merged where nothing changes), as the plugin would\n"
          "on NCCL's usual PCIe-only table (ring with ll and simple, and tree with ll and simple\n"
          "for allreduce; ll128, CollNet, NVLS and PAT disabled), and the topology verdict.\n\n"
          "  --config FILE   the mapping file (format 1); default: NCCL_NUMA_CONFIG, else\n"
          "                  /etc/nccl-numa.conf. NCCL_TUNER_CONFIG_FILE's rules apply as in the plugin\n"
          "  --ranks N       ranks in the communicator (default: the visible GPUs' count, else 8)\n"
          "  --nodes N       nodes in the communicator (default 1)\n"
          "  --coll NAME     only this collective: " NN_COLL_NAMES "\n"
          "  --nccl-version X.Y.Z  the NCCL release to predict for (its search and protocols)\n"
          "  --nccl-lib PATH the release of this libnccl.so.2 (default: the Python environment's\n"
          "                  nvidia-nccl wheel, else the one on the library path)\n"
          "  --cpuinfo FILE  the CPU kind NCCL would see, from FILE (default: NCCL_NUMA_CPUINFO, else\n"
          "                  /proc/cpuinfo); a `cpu` line in the mapping takes precedence\n"
          "  --compare-release X.Y.Z  also the sizes where NCCL's own choice (algorithm, protocol or\n"
          "                  graphs) on release X.Y.Z differs from that on the release above\n"
          "  --emit-rules    with --compare-release: print only mapping rules that keep X.Y.Z's choice\n"
          "                  on the release above (commented out where a tuner cannot express it)\n");
}

/* NCCL runs Tree only for allreduce; Ring everywhere; LL128 is off on PCIe-only paths. */
static void pcie_only_table(int coll, float *t) {
  for (int i = 0; i < NN_ALGO_COUNT * NN_PROTO_COUNT; i++) t[i] = -1.0f;
  int protos[] = {NN_PROTO_LL, NN_PROTO_SIMPLE};
  for (int p = 0; p < 2; p++) {
    t[NN_ALGO_RING * NN_PROTO_COUNT + protos[p]] = 1.0f;
    if (coll == NN_COLL_ALLREDUCE) t[NN_ALGO_TREE * NN_PROTO_COUNT + protos[p]] = 1.0f;
  }
}

static void human_size(uint64_t v, char *buf, size_t size) {
  static const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (u < 4 && v >= 1024 && v % 1024 == 0) { v /= 1024; u++; }
  snprintf(buf, size, "%llu %s", (unsigned long long)v, unit[u]);
}

static void print_row(const struct nn_config *cfg, int lo, int hi, int rule) {
  char l[32], h[32], what[96], where[300];
  human_size((uint64_t)1 << lo, l, sizeof l);
  human_size((uint64_t)1 << hi, h, sizeof h);
  nn_policy_describe_rule(cfg, rule, NN_CHOICE_WORDS, what, sizeof what, where, sizeof where);
  char range[80];
  snprintf(range, sizeof range, lo == hi ? "%s" : "%s - %s", l, h);
  printf("  %-22s %-36s %s\n", range, what, where);
}

static void explain_coll(const struct nn_config *cfg, const struct nn_policy *p, const struct nn_forced *forced,
                         int coll) {
  float table[NN_ALGO_COUNT * NN_PROTO_COUNT];
  pcie_only_table(coll, table);
  nn_costview_mask(forced, coll, table);
  printf("\n%s\n  %-22s %-36s %s\n", nn_coll_name(coll), "size", "decision", "rule");
  int start = 0, prev = -2;
  for (int e = 0; e <= NN_EXPLAIN_MAX_LOG2; e++) {
    int rule = nn_policy_lookup(p, coll, (uint64_t)1 << e, 1, 0, table, NN_ALGO_COUNT, NN_PROTO_COUNT);
    if (e > 0 && rule != prev) { print_row(cfg, start, e - 1, prev); start = e; }
    prev = rule;
  }
  print_row(cfg, start, NN_EXPLAIN_MAX_LOG2, prev);
}

/* What NCCL enables by default over PCIe for the release (NCCL's tuning code, nccl_model.c). */
static void print_protocols(const struct nn_nccl_release *r, int sm) {
  char list[64] = "";
  for (int p = 0; p < NN_PROTO_COUNT; p++)
    if (nn_nccl_proto_enabled_pcie(r, p, sm))
      snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", list[0] ? ", " : "", nn_proto_name(p));
  printf("protocols:    NCCL %s enables %s by default between PCIe-only GPUs\n", r->name, list);
}

/* The candidates the rules are resolved against when NCCL's cost model is not available. */
#define PCIE_ONLY_TABLE \
  "NCCL's PCIe-only table (ring x ll, simple; tree x ll, simple for allreduce; the rest disabled)"

/* NCCL's cost model for the communicator (costview.h); 1 when *m was filled. */
static int print_cost_model(const struct nn_topo_verdict *v, const struct nn_cpu_kind *cpu, const struct nn_config *cfg,
                            size_t ranks, size_t nodes, struct nn_cost_model *m) {
  char desc[512];
  int ok = nn_costview_model(v, cpu, cfg, (int)ranks, (int)nodes, m, desc, sizeof desc) == 0;
  printf("cost model:   %s\n", desc);
  if (!ok) printf("table:        %s\n", PCIE_ONLY_TABLE);
  if (ok)
    printf("              * = a rule overrides NCCL's choice; vs NCCL = the rule's choice under NCCL's model\n");
  return ok;
}

/* NCCL's own view is built for the CPU NCCL runs on, which a `cpu` line does not change. */
static void print_own_cpu(const struct nn_cpu_kind *served) {
  struct nn_cpu_kind own;
  char err[512];
  if (served->from_cpuinfo) return;
  if (nn_topology_cpu_kind(NULL, NULL, &own, err, sizeof err) != 0)
    printf("              (NCCL's own view: %s)\n", err);
  else
    printf("              (NCCL's own view: CPU %s family %d model %d from %s)\n", own.vendor, own.family,
           own.model, nn_cpuinfo_default());
}

/* What NCCL applies before any tuner: one line per variable set. */
static void print_forced(const struct nn_config *cfg, const struct nn_forced *forced) {
  char text[768];
  for (int var = 0; var < NN_FORCED_COUNT; var++) {
    if (!forced->value[var]) continue;
    nn_forced_describe(cfg, forced, var, text, sizeof text);
    printf("forced:       %s\n", text);
  }
}

/* What print_header found, for the summary. */
struct header {
  struct nn_topo_verdict v;
  int have_verdict;
  char no_verdict[512];
};

static int print_header(const struct nn_cli_config *cc, const struct nn_config *cfg, const struct nn_visible *vis,
                        size_t ranks, size_t nodes, const struct nn_policy *p, const struct nn_ncclver *ver,
                        const struct nn_forced *forced, struct nn_cost_model *m, struct header *h) {
  char sockets[256];
  nn_topology_describe_sockets(cc->cfg, sockets, sizeof sockets);
  printf("config:       %s (%d GPUs: %s; %d rules)\n", cc->src.path, cc->cfg->n_gpus, sockets, cfg->n_rules);
  if (vis->why[0]) printf("devices:      %s\n", vis->why);
  if (cc->src.tuner_csv)
    printf("csv rules:    NCCL_TUNER_CONFIG_FILE %s (%s)\n", cc->src.tuner_csv,
           cfg->n_files > 1 && !strcmp(cfg->files[cfg->n_files - 1], cc->src.tuner_csv)
               ? "used: the mapping has no rules of its own" : "not used: the mapping has rules");
  printf("communicator: %zu ranks on %zu node(s): scope %s; %d of %d rules can apply\n", ranks, nodes,
         nn_scope_name(nn_policy_scope(p)), nn_policy_rule_count(p), cfg->n_rules);
  print_forced(cfg, forced);
  struct nn_cpu_kind cpu;
  char err[512];
  if (nn_topology_cpu_kind(cfg, NULL, &cpu, err, sizeof err) != 0) {
    printf("topology:     %s\n", err);
    printf("table:        %s\n", PCIE_ONLY_TABLE);
    snprintf(h->no_verdict, sizeof h->no_verdict, "%s", err);
    return 0;
  }
  struct nn_topo_verdict v;
  nn_ncclver_verdict(cfg, &cpu, ver, NULL, NULL, 0, &v);
  h->v = v;
  h->have_verdict = 1;
  nn_ncclver_print(stdout, "topology:     ", ver, &v, NULL);
  char link[64] = "one CPU node: no socket link";
  if (v.link_gbps > 0) snprintf(link, sizeof link, "modelled socket link %.0f GB/s", v.link_gbps);
  printf("              (CPU %s family %d model %d%s%s; %s)\n", cpu.vendor, cpu.family, cpu.model,
         cpu.from_cpuinfo ? " from " : "", cpu.from_cpuinfo ? nn_cpuinfo_default() : "", link);
  print_own_cpu(&cpu);
  print_protocols(v.rel, v.sm);
  nn_protonotes_print(stdout, "rules:        ", "", cfg, v.rel, v.sm);
  char how[256];
  nn_nccl_tuner_semantics(v.rel, how, sizeof how);
  printf("tuner:        %s\n", how);
  if (cfg->pci_latency_us > 0) {
    char why[200];
    printf("model:        hwLatencies[PCI] tree/ring x ll/simple set to %.2f us (tuner v5+)\n", cfg->pci_latency_us);
    if (nn_nccl_constants_ignored(ver->code, why, sizeof why)) printf("              %s\n", why);
  }
  char list[NN_MAX_GPUS * 6];
  if (nn_bind_applies(cfg, NULL, list, sizeof list))
    printf("binding:      this OS has the mapping's NUMA nodes: `exec --bind-for sglang` adds --numa-node %s,\n"
           "              `--bind-for vllm` adds --numa-bind --numa-bind-nodes %s\n", list, list);
  return print_cost_model(&v, &cpu, cfg, ranks, nodes, m);
}

/* --compare-release: the comparison after the tables, or (emit) only the rules. */
static int compare_release(const struct nn_config *cfg, const struct nn_ncclver *ver, int x_code, size_t ranks,
                           size_t nodes, const struct nn_forced *forced, int only, int emit) {
  static struct nn_release_diff d;   /* large; the CLI is single-threaded */
  char err[768];
  if (nn_release_diff_compute(cfg, ver, x_code, (int)ranks, (int)nodes, forced, NN_EXPLAIN_MAX_LOG2, &d, err,
                              sizeof err)) {
    fprintf(stderr, "nccl-numa explain: --compare-release: %s\n", err);
    return NN_EXIT_INVALID;
  }
  if (emit) nn_release_diff_rules(stdout, &d, only);
  else nn_release_diff_print(stdout, &d, only);
  return NN_EXIT_OK;
}

static int parse_count(const char *s, size_t *out) {
  int v;
  if (nn_int_parse(s, 1, 1000000, &v)) return -1;
  *out = (size_t)v;
  return 0;
}

int nn_cmd_explain(int argc, char **argv) {
  static const struct option opts[] = {{"config", required_argument, 0, 'c'}, {"ranks", required_argument, 0, 'r'},
                                       {"nodes", required_argument, 0, 'n'}, {"coll", required_argument, 0, 'l'},
                                       {"nccl-version", required_argument, 0, 'V'}, {"nccl-lib", required_argument, 0, 'L'},
                                       {"cpuinfo", required_argument, 0, 'i'}, {"visible-devices", required_argument, 0, 'D'},
                                       {"compare-release", required_argument, 0, 'R'}, {"emit-rules", no_argument, 0, 'E'},
                                       {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
  const char *path = NULL, *version = NULL, *lib = NULL, *visible = NULL;
  size_t ranks = 0, nodes = 1;
  int only = -1, c, compare = 0, emit = 0;
  nn_options_begin();
  while ((c = getopt_long(argc, argv, ":c:r:n:l:h", opts, NULL)) != -1) {
    switch (c) {
    case 'c': path = optarg; break;
    case 'V': version = optarg; break;
    case 'L': lib = optarg; break;
    case 'i': nn_cpuinfo_set_default(optarg); break;
    case 'D': visible = optarg; break;
    case 'R':
      if ((compare = nn_nccl_version_parse(optarg)) <= 0) {
        fprintf(stderr, "nccl-numa explain: --compare-release '%s': expected X.Y.Z (e.g. 2.30.7)\n", optarg);
        return NN_EXIT_USAGE;
      }
      break;
    case 'E': emit = 1; break;
    case 'r': if (parse_count(optarg, &ranks)) { fprintf(stderr, "nccl-numa explain: bad --ranks '%s' (expected 1-1000000)\n", optarg); return NN_EXIT_USAGE; } break;
    case 'n': if (parse_count(optarg, &nodes)) { fprintf(stderr, "nccl-numa explain: bad --nodes '%s' (expected 1-1000000)\n", optarg); return NN_EXIT_USAGE; } break;
    case 'l':
      only = nn_coll_from_name(optarg);
      if (only < 0) {
        fprintf(stderr, "nccl-numa explain: unknown collective '%s' (expected " NN_COLL_NAMES ")\n", optarg);
        return NN_EXIT_USAGE;
      }
      break;
    case 'h': usage(stdout); return NN_EXIT_OK;
    default:
      nn_options_error("explain", c, argc, argv);
      usage(stderr);
      return NN_EXIT_USAGE;
    }
  }
  if (optind < argc) {
    fprintf(stderr, "nccl-numa explain: unexpected argument '%s' (give the mapping with --config FILE)\n",
            argv[optind]);
    usage(stderr);
    return NN_EXIT_USAGE;
  }
  if (emit && !compare) {
    fprintf(stderr, "nccl-numa explain: --emit-rules needs --compare-release X.Y.Z\n");
    return NN_EXIT_USAGE;
  }
  struct nn_ncclver ver;
  char verr[512];
  if (nn_ncclver_resolve(version, lib, &ver, verr, sizeof verr)) {
    fprintf(stderr, "nccl-numa explain: %s\n", verr);
    return NN_EXIT_USAGE;
  }
  struct nn_cli_config cc;
  if (nn_cli_config_load("explain", path, NULL, 0, &cc) != NN_CFG_OK) return NN_EXIT_INVALID;
  struct nn_visible vis;
  struct nn_gpu own[NN_VISIBLE_MAX];
  struct nn_config view;
  if (!visible) visible = getenv("CUDA_VISIBLE_DEVICES");
  nn_visible_resolve(cc.cfg, visible && *visible ? visible : NULL, NULL, &vis);
  nn_visible_view(cc.cfg, &vis, own, &view);
  const struct nn_config *cfg = &view;
  if (!ranks) ranks = cfg->n_gpus ? (size_t)cfg->n_gpus : 8;
  struct nn_policy *p = nn_policy_compile(nn_visible_for_comm(cc.cfg, &vis, ranks, nodes, own, &view), ranks, nodes);
  if (!p) { nn_cli_config_free(&cc); fprintf(stderr, "nccl-numa explain: out of memory\n"); return NN_EXIT_INVALID; }
  struct nn_cost_model model;
  struct header h = {.have_verdict = 0};
  struct nn_forced forced;
  nn_forced_read(cfg, &forced);
  if (emit) {
    int rc = compare_release(cfg, &ver, compare, ranks, nodes, &forced, only, 1);
    nn_policy_free(p);
    nn_cli_config_free(&cc);
    return rc;
  }
  int modelled = print_header(&cc, cfg, &vis, ranks, nodes, p, &ver, &forced, &model, &h);
  for (int coll = 0; coll < NN_COLL_COUNT; coll++) {
    static const int order[NN_COLL_COUNT] = {NN_COLL_ALLREDUCE, NN_COLL_ALLGATHER, NN_COLL_REDUCESCATTER,
                                             NN_COLL_BROADCAST, NN_COLL_REDUCE};
    if (only >= 0 && only != order[coll]) continue;
    if (modelled) nn_costview_print(stdout, cfg, &model, p, &forced, order[coll], NN_EXPLAIN_MAX_LOG2);
    else explain_coll(cfg, p, &forced, order[coll]);
  }
  if (compare && compare_release(cfg, &ver, compare, ranks, nodes, &forced, only, 0) != NN_EXIT_OK) {
    nn_policy_free(p);
    nn_cli_config_free(&cc);
    return NN_EXIT_INVALID;
  }
  struct nn_summary_rules rules;
  nn_summary_rules_of(modelled ? &model : NULL, p, NN_EXPLAIN_MAX_LOG2, &rules);
  struct nn_summary_in sin = {.nccl_version = ver.code, .cfg = cfg, .v = h.have_verdict ? &h.v : NULL,
                              .no_verdict = h.no_verdict, .user_topo = getenv("NCCL_TOPO_FILE"), .rules = &rules};
  char summary[4096];
  nn_summary_text(&sin, summary, sizeof summary);
  printf("\n%s", summary);
  nn_policy_free(p);
  nn_cli_config_free(&cc);
  return NN_EXIT_OK;
}
