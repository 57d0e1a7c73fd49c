/* SPDX-License-Identifier: BSD-3-Clause */
/* cmd_explain.c - `nccl-numa explain`: the plugin's decision per collective and size,
 * computed by the plugin's own policy module on NCCL's usual PCIe-only table. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/common/cliconfig.h"
#include "cli/sweep/rundir.h"
#include "cli/common/jsonw.h"
#include "cli/commands.h"
#include "cli/common/options.h"
#include "cli/common/bindfor.h"
#include "cli/predict/costview.h"
#include "cli/predict/protonotes.h"
#include "cli/predict/ncclver.h"
#include "cli/predict/release_diff.h"
#include "cli/predict/summary.h"
#include "cli/predict/job.h"
#include "cpuinfo.h"
#include "nccl_forced.h"
#include "nccl_model.h"
#include "nn_config.h"
#include "numparse.h"
#include "policy.h"
#include "printable.h"
#include "topology.h"
#include "visible.h"
#include "sizetext.h"

#define NN_EXPLAIN_MAX_LOG2 32   /* 1 B .. 4 GiB */
#define NN_EXPLAIN_MAX_SIZES 32  /* --sizes */
#define NN_EXPLAIN_JSON_VERSION 1

/* explain's text: stdout, or nowhere under --json (the document is all stdout then holds). */
static FILE *text_out;

static const int coll_order[NN_COLL_COUNT] = {NN_COLL_ALLREDUCE, NN_COLL_ALLGATHER, NN_COLL_REDUCESCATTER,
                                              NN_COLL_BROADCAST, NN_COLL_REDUCE};

static void usage(FILE *out) {
  fprintf(out,
          "usage: nccl-numa explain [--config FILE] [--ranks N] [--nodes N] [--coll NAME]\n"
          "                         [--nccl-version X.Y.Z | --nccl-lib PATH] [--cpuinfo FILE]\n"
          "                         [--visible-devices LIST] [--compare-release X.Y.Z [--emit-rules]]\n"
          "                         [--sizes LIST] [--json]\n\n"
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
          "                  on the release above (commented out where a tuner cannot express it)\n"
          "  --sizes LIST    also one row per size (e.g. 8K,64K,1M,64M; K, M, G are binary): NCCL's\n"
          "                  choice and modelled time, the plugin's and its time, the deciding rule\n"
          "  --json          one JSON document on stdout instead of the text (keys: docs/user/cli.md)\n");
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

static void print_row(const struct nn_config *cfg, int lo, int hi, int rule) {
  char l[32], h[32], what[96], where[300];
  nn_sizetext((uint64_t)1 << lo, l, sizeof l);
  nn_sizetext((uint64_t)1 << hi, h, sizeof h);
  nn_policy_describe_rule(cfg, rule, NN_CHOICE_WORDS, what, sizeof what, where, sizeof where);
  char range[80];
  snprintf(range, sizeof range, lo == hi ? "%s" : "%s - %s", l, h);
  fprintf(text_out, "  %-22s %-36s %s\n", range, what, where);
}

static void explain_coll(const struct nn_config *cfg, const struct nn_policy *p, const struct nn_forced *forced,
                         int coll) {
  float table[NN_ALGO_COUNT * NN_PROTO_COUNT];
  pcie_only_table(coll, table);
  nn_costview_mask(forced, coll, table);
  fprintf(text_out, "\n%s\n  %-22s %-36s %s\n", nn_coll_name(coll), "size", "decision", "rule");
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
  fprintf(text_out, "protocols:    NCCL %s enables %s by default between PCIe-only GPUs\n", r->name, list);
}

/* The candidates the rules are resolved against when NCCL's cost model is not available. */
#define PCIE_ONLY_TABLE \
  "NCCL's PCIe-only table (ring x ll, simple; tree x ll, simple for allreduce; the rest disabled)"

/* NCCL's cost model for the communicator (costview.h); 1 when *m was filled. */
static int print_cost_model(const struct nn_topo_verdict *v, const struct nn_cpu_kind *cpu, const struct nn_config *cfg,
                            size_t ranks, size_t nodes, struct nn_cost_model *m) {
  char desc[512];
  int ok = nn_costview_model(v, cpu, cfg, (int)ranks, (int)nodes, m, desc, sizeof desc) == 0;
  fprintf(text_out, "cost model:   %s\n", desc);
  if (!ok) fprintf(text_out, "table:        %s\n", PCIE_ONLY_TABLE);
  if (ok)
    fprintf(text_out, "              * = a rule overrides NCCL's choice; vs NCCL = the rule's choice under NCCL's model\n");
  return ok;
}

/* NCCL's own view is built for the CPU NCCL runs on, which a `cpu` line does not change. */
static void print_own_cpu(const struct nn_cpu_kind *served) {
  struct nn_cpu_kind own;
  char err[512], vendor[64];
  if (served->from_cpuinfo) return;
  if (nn_topology_cpu_kind(NULL, NULL, &own, err, sizeof err) != 0)
    fprintf(text_out, "              (NCCL's own view: %s)\n", err);
  else
    fprintf(text_out, "              (NCCL's own view: CPU %s family %d model %d from %s)\n",
            nn_printable(vendor, sizeof vendor, own.vendor, NN_PRINTABLE_CSTR, NULL), own.family, own.model,
            nn_cpuinfo_default());
}

/* What NCCL applies before any tuner: one line per variable set. */
static void print_forced(const struct nn_config *cfg, const struct nn_forced *forced) {
  char text[768];
  for (int var = 0; var < NN_FORCED_COUNT; var++) {
    if (!forced->value[var]) continue;
    nn_forced_describe(cfg, forced, var, text, sizeof text);
    fprintf(text_out, "forced:       %s\n", text);
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
  fprintf(text_out, "config:       %s (%d GPUs: %s; %d rules)\n", cc->src.path, cc->cfg->n_gpus, sockets, cfg->n_rules);
  if (vis->why[0]) fprintf(text_out, "devices:      %s\n", vis->why);
  if (cc->src.tuner_csv)
    fprintf(text_out, "csv rules:    NCCL_TUNER_CONFIG_FILE %s (%s)\n", cc->src.tuner_csv,
           cfg->n_files > 1 && !strcmp(cfg->files[cfg->n_files - 1], cc->src.tuner_csv)
               ? "used: the mapping has no rules of its own" : "not used: the mapping has rules");
  fprintf(text_out, "communicator: %zu ranks on %zu node(s): scope %s; %d of %d rules can apply\n", ranks, nodes,
         nn_scope_name(nn_policy_scope(p)), nn_policy_rule_count(p), cfg->n_rules);
  print_forced(cfg, forced);
  struct nn_cpu_kind cpu;
  char err[512];
  if (nn_topology_cpu_kind(cfg, NULL, &cpu, err, sizeof err) != 0) {
    fprintf(text_out, "topology:     %s\n", err);
    fprintf(text_out, "table:        %s\n", PCIE_ONLY_TABLE);
    snprintf(h->no_verdict, sizeof h->no_verdict, "%s", err);
    return 0;
  }
  struct nn_topo_verdict v;
  nn_ncclver_verdict(cfg, &cpu, ver, NULL, NULL, 0, &v);
  h->v = v;
  h->have_verdict = 1;
  nn_ncclver_print(text_out, "topology:     ", ver, &v, NULL);
  char link[64] = "one CPU node: no socket link";
  if (v.link_gbps > 0) snprintf(link, sizeof link, "modelled socket link %.0f GB/s", v.link_gbps);
  char vendor[64];
  fprintf(text_out, "              (CPU %s family %d model %d%s%s; %s)\n",
          nn_printable(vendor, sizeof vendor, cpu.vendor, NN_PRINTABLE_CSTR, NULL), cpu.family, cpu.model,
         cpu.from_cpuinfo ? " from " : "", cpu.from_cpuinfo ? nn_cpuinfo_default() : "", link);
  print_own_cpu(&cpu);
  print_protocols(v.rel, v.sm);
  nn_protonotes_print(text_out, "rules:        ", "", cfg, v.rel, v.sm);
  char how[256];
  nn_nccl_tuner_semantics(v.rel, how, sizeof how);
  fprintf(text_out, "tuner:        %s\n", how);
  if (cfg->pci_latency_us > 0) {
    char why[200];
    fprintf(text_out, "model:        hwLatencies[PCI] tree/ring x ll/simple set to %.2f us (tuner v5+)\n", cfg->pci_latency_us);
    if (nn_nccl_constants_ignored(ver->code, why, sizeof why)) fprintf(text_out, "              %s\n", why);
  }
  char list[NN_MAX_GPUS * 6];
  if (nn_bind_applies(cc->cfg, vis, NULL, list, sizeof list))
    fprintf(text_out, "binding:      this OS has the mapping's NUMA nodes: `exec --bind-for sglang` adds --numa-node %s,\n"
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
  else nn_release_diff_print(text_out, &d, only);
  return NN_EXIT_OK;
}

static void rule_name(const struct nn_config *cfg, int rule, char *buf, size_t size) {
  if (rule < 0) snprintf(buf, size, "NCCL's choice");
  else snprintf(buf, size, "%s:%d", cfg->rules[rule].file ? cfg->rules[rule].file : "?", cfg->rules[rule].line);
}

/* One row per collective and size of --sizes. */
static void print_sizes(const struct nn_config *cfg, const struct nn_cost_model *m, const struct nn_policy *p,
                        const struct nn_forced *forced, int only, const uint64_t *sizes, int n) {
  fprintf(text_out, "\nsizes\n  %-14s %-12s %-16s %12s   %-18s %12s   %s\n", "collective", "size", "NCCL picks",
          "modelled us", "with the plugin", "modelled us", "decided by");
  for (int c = 0; c < NN_COLL_COUNT; c++) {
    if (only >= 0 && only != coll_order[c]) continue;
    for (int i = 0; i < n; i++) {
      struct nn_costview_at at;
      char size[32], a[16], b[16], rule[4200];
      nn_costview_at(m, p, forced, coll_order[c], sizes[i], &at);
      nn_sizetext(sizes[i], size, sizeof size);
      nn_costview_pair_name(at.nccl.algo, at.nccl.proto, a, sizeof a);
      nn_costview_pair_name(at.plug.algo, at.plug.proto, b, sizeof b);
      rule_name(cfg, at.rule, rule, sizeof rule);
      fprintf(text_out, "  %-14s %-12s %-16s %12.1f   %-18s %12.1f   %s\n", nn_coll_name(coll_order[c]), size, a,
              at.nccl.time_us, b, at.plug.time_us, rule);
    }
  }
}

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
  rule_name(cfg, rule, name, sizeof name);
  nn_jsonw_str(w, "rule", rule >= 0 ? name : NULL);
}

/* The bands of every collective, as the text tables show them. */
static void json_bands(struct nn_jsonw *w, const struct nn_config *cfg, const struct nn_cost_model *m,
                       const struct nn_policy *p, const struct nn_forced *forced, int only) {
  static struct nn_costview_band bands[NN_EXPLAIN_MAX_LOG2 + 1];
  nn_jsonw_array(w, "collectives");
  for (int c = 0; c < NN_COLL_COUNT; c++) {
    if (only >= 0 && only != coll_order[c]) continue;
    int n = nn_costview_bands_under(m, p, forced, coll_order[c], NN_EXPLAIN_MAX_LOG2, bands, NN_EXPLAIN_MAX_LOG2 + 1);
    nn_jsonw_object(w, NULL);
    nn_jsonw_str(w, "coll", nn_coll_name(coll_order[c]));
    nn_jsonw_array(w, "bands");
    for (int i = 0; i < n; i++) {
      nn_jsonw_object(w, NULL);
      nn_jsonw_int(w, "lo_bytes", 1LL << bands[i].lo_log2);
      nn_jsonw_int(w, "hi_bytes", 1LL << bands[i].hi_log2);
      json_choice(w, "nccl_lo", &bands[i].nccl_lo);
      json_choice(w, "nccl_hi", &bands[i].nccl_hi);
      json_choice(w, "plugin_lo", &bands[i].plug_lo);
      json_choice(w, "plugin_hi", &bands[i].plug_hi);
      json_rule(w, cfg, bands[i].rule);
      nn_jsonw_bool(w, "overrides", bands[i].overrides);
      nn_jsonw_int(w, "channels", bands[i].channels);
      nn_jsonw_end(w);
    }
    nn_jsonw_end(w);
    nn_jsonw_end(w);
  }
  nn_jsonw_end(w);
}

static void json_sizes(struct nn_jsonw *w, const struct nn_config *cfg, const struct nn_cost_model *m,
                       const struct nn_policy *p, const struct nn_forced *forced, int only, const uint64_t *sizes,
                       int n) {
  nn_jsonw_array(w, "sizes");
  for (int c = 0; c < NN_COLL_COUNT; c++) {
    if (only >= 0 && only != coll_order[c]) continue;
    for (int i = 0; i < n; i++) {
      struct nn_costview_at at;
      nn_costview_at(m, p, forced, coll_order[c], sizes[i], &at);
      nn_jsonw_object(w, NULL);
      nn_jsonw_str(w, "coll", nn_coll_name(coll_order[c]));
      nn_jsonw_int(w, "bytes", (long long)sizes[i]);
      json_choice(w, "nccl", &at.nccl);
      json_choice(w, "plugin", &at.plug);
      json_rule(w, cfg, at.rule);
      nn_jsonw_int(w, "channels", at.channels);
      nn_jsonw_end(w);
    }
  }
  nn_jsonw_end(w);
}

/* What explain says, as one JSON document (keys: docs/user/cli.md). */
struct explain_json {
  const struct nn_cli_config *cc;
  const struct nn_config *cfg;
  const struct nn_ncclver *ver;
  const struct nn_visible *vis;
  const struct header *h;
  size_t ranks, nodes;
  int modelled, only, n_sizes;
  const struct nn_cost_model *m;
  const struct nn_policy *p;
  const struct nn_forced *forced;
  const uint64_t *sizes;
  const char *summary;
};

static void json_topology(struct nn_jsonw *w, const struct header *h) {
  nn_jsonw_object(w, "topology");
  nn_jsonw_bool(w, "served", h->have_verdict && h->v.serve);
  nn_jsonw_str(w, "mode", h->have_verdict ? nn_topo_mode_name(h->v.mode) : NULL);
  nn_jsonw_str(w, "reason", h->have_verdict ? h->v.reason : h->no_verdict);
  nn_jsonw_str(w, "warning", h->have_verdict && h->v.warning[0] ? h->v.warning : NULL);
  nn_jsonw_end(w);
}

static void print_json(const struct explain_json *e) {
  struct nn_jsonw w;
  char release[16] = "";
  if (e->ver->code) nn_nccl_version_format(e->ver->code, release, sizeof release);
  nn_jsonw_begin(&w, stdout);
  nn_jsonw_object(&w, NULL);
  nn_jsonw_int(&w, "version", NN_EXPLAIN_JSON_VERSION);
  nn_jsonw_str(&w, "command", "explain");
  nn_jsonw_str(&w, "config", e->cc->src.path);
  nn_jsonw_object(&w, "nccl");
  nn_jsonw_str(&w, "release", release[0] ? release : NULL);
  nn_jsonw_str(&w, "source", e->ver->source);
  nn_jsonw_end(&w);
  nn_jsonw_int(&w, "ranks", (long long)e->ranks);
  nn_jsonw_int(&w, "nodes", (long long)e->nodes);
  nn_jsonw_str(&w, "visible", e->vis->why[0] ? e->vis->why : NULL);
  json_topology(&w, e->h);
  nn_jsonw_int(&w, "rules", e->cfg->n_rules);
  nn_jsonw_bool(&w, "cost_model", e->modelled);
  if (e->modelled) json_bands(&w, e->cfg, e->m, e->p, e->forced, e->only);
  if (e->modelled && e->n_sizes) json_sizes(&w, e->cfg, e->m, e->p, e->forced, e->only, e->sizes, e->n_sizes);
  nn_jsonw_str(&w, "summary", e->summary);
  nn_jsonw_finish(&w);
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
                                       {"sizes", required_argument, 0, 'S'}, {"json", no_argument, 0, 'J'},
                                       {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
  const char *path = NULL, *version = NULL, *lib = NULL, *visible = NULL;
  size_t ranks = 0, nodes = 1;
  int only = -1, c, compare = 0, emit = 0, json = 0, n_sizes = 0;
  uint64_t sizes[NN_EXPLAIN_MAX_SIZES];
  text_out = stdout;
  nn_options_begin();
  while ((c = getopt_long(argc, argv, ":c:r:n:l:h", opts, NULL)) != -1) {
    switch (c) {
    case 'c': path = optarg; break;
    case 'V': version = optarg; break;
    case 'L': lib = optarg; break;
    case 'i': nn_cpuinfo_set_default(optarg); break;
    case 'D': visible = optarg; break;
    case 'R': {
      char err[160];
      if ((compare = nn_ncclver_parse_arg("--compare-release", optarg, err, sizeof err)) <= 0) {
        fprintf(stderr, "nccl-numa explain: %s\n", err);
        return NN_EXIT_USAGE;
      }
      break;
    }
    case 'E': emit = 1; break;
    case 'J': json = 1; break;
    case 'S':
      if ((n_sizes = nn_rundir_size_list(optarg, 1, (uint64_t)1 << NN_EXPLAIN_MAX_LOG2, sizes, NN_EXPLAIN_MAX_SIZES)) < 0) {
        fprintf(stderr, "nccl-numa explain: --sizes '%s': expected up to %d sizes of 1 B to 4G, e.g. 8K,64K,1M,64M\n",
                optarg, NN_EXPLAIN_MAX_SIZES);
        return NN_EXIT_USAGE;
      }
      break;
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
  if (json && emit) {
    fprintf(stderr, "nccl-numa explain: --json and --emit-rules: choose one (the rules are text for a mapping)\n");
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
  static struct nn_job job;
  nn_job_resolve(cc.cfg, visible, 1, &job);
  const struct nn_visible *vis = &job.vis;
  struct nn_config view;
  const struct nn_config *cfg = &job.view;
  if (!ranks) ranks = nn_job_ranks(cc.cfg, &job);
  struct nn_policy *p = nn_policy_compile(nn_visible_for_comm(cc.cfg, vis, ranks, nodes, job.own, &view), ranks, nodes);
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
  FILE *discard = json ? fopen("/dev/null", "w") : NULL;
  if (json && !discard) {
    perror("nccl-numa explain: /dev/null");
    nn_policy_free(p);
    nn_cli_config_free(&cc);
    return NN_EXIT_INVALID;
  }
  if (json) text_out = discard;
  int modelled = print_header(&cc, cfg, vis, ranks, nodes, p, &ver, &forced, &model, &h);
  for (int coll = 0; coll < NN_COLL_COUNT; coll++) {
    if (only >= 0 && only != coll_order[coll]) continue;
    if (modelled) nn_costview_print(text_out, cfg, &model, p, &forced, coll_order[coll], NN_EXPLAIN_MAX_LOG2);
    else explain_coll(cfg, p, &forced, coll_order[coll]);
  }
  if (n_sizes && modelled) print_sizes(cfg, &model, p, &forced, only, sizes, n_sizes);
  else if (n_sizes) fprintf(text_out, "\nsizes: no rows: NCCL's cost model is not available here (cost model: above)\n");
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
  fprintf(text_out, "\n%s", summary);
  if (json) {
    struct explain_json e = {&cc, cfg, &ver, vis, &h, ranks, nodes, modelled, only, n_sizes, &model, p, &forced,
                             sizes, summary};
    print_json(&e);
    fclose(discard);
    text_out = stdout;
  }
  nn_policy_free(p);
  nn_cli_config_free(&cc);
  return NN_EXIT_OK;
}
