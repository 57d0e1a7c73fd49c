/* SPDX-License-Identifier: BSD-3-Clause */
/* explain_text.c - explain's text, rendered from the model (explain.h); nothing computed here. */
#include <stdio.h>
#include <string.h>

#include "cli/predict/explain.h"
#include "cli/predict/protonotes.h"
#include "cpuinfo.h"
#include "nccl_model.h"
#include "printable.h"
#include "sizetext.h"

/* The candidates the rules are resolved against when NCCL's cost model is not available. */
#define PCIE_ONLY_TABLE \
  "NCCL's PCIe-only table (ring x ll, simple; tree x ll, simple for allreduce; the rest disabled)"

static void rule_name(const struct nn_config *cfg, int rule, char *buf, size_t size) {
  if (rule < 0) snprintf(buf, size, "NCCL's choice");
  else
    snprintf(buf, size, "%s:%d", cfg->rules[rule].file ? cfg->rules[rule].file : "?",
             cfg->rules[rule].line);
}

static void print_rule_rows(FILE *out, const struct nn_config *cfg,
                            const struct nn_explain_coll *c) {
  fprintf(out, "\n%s\n  %-22s %-36s %s\n", nn_coll_name(c->coll), "size", "decision", "rule");
  for (int i = 0; i < c->n_rows; i++) {
    char l[32], h[32], what[96], where[300], range[80];
    nn_sizetext((uint64_t)1 << c->row_lo[i], l, sizeof l);
    nn_sizetext((uint64_t)1 << c->row_hi[i], h, sizeof h);
    nn_policy_describe_rule(cfg, c->row_rule[i], NN_CHOICE_WORDS, what, sizeof what, where,
                            sizeof where);
    snprintf(range, sizeof range, c->row_lo[i] == c->row_hi[i] ? "%s" : "%s - %s", l, h);
    fprintf(out, "  %-22s %-36s %s\n", range, what, where);
  }
}

/* What NCCL enables by default over PCIe for the release (NCCL's tuning code, nccl_model.c). */
static void print_protocols(FILE *out, const struct nn_nccl_release *r, int sm) {
  char list[64] = "";
  for (int p = 0; p < NN_PROTO_COUNT; p++)
    if (nn_nccl_proto_enabled_pcie(r, p, sm))
      snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", list[0] ? ", " : "",
               nn_proto_name(p));
  fprintf(out, "protocols:    NCCL %s enables %s by default between PCIe-only GPUs\n", r->name,
          list);
}

/* NCCL's own view is built for the CPU NCCL runs on, which a `cpu` line does not change: the
 * named cpuinfo or this machine's where it has the mapping's GPUs, else the mapping's `cpu` line.
 */
static void print_own_cpu(FILE *out, const struct nn_cpu_kind *served,
                          const struct nn_topo_verdict *v) {
  struct nn_cpu_kind own;
  char err[512], vendor[64];
  if (v->own_cpu_source == NN_OWN_CPU_MAPPING) {
    fprintf(
      out,
      "              (NCCL's own view: the mapping's `cpu` line and no NUMA node per GPU, as this "
      "machine lacks the mapping's GPUs; --cpuinfo FILE and --sysfs-root DIR model another)\n");
    return;
  }
  if (served->from_cpuinfo) return;
  if (nn_topology_cpu_kind(NULL, NULL, &own, err, sizeof err) != 0)
    fprintf(out, "              (NCCL's own view: %s)\n", err);
  else
    fprintf(out, "              (NCCL's own view: CPU %s family %d model %d from %s)\n",
            nn_printable(vendor, sizeof vendor, own.vendor, NN_PRINTABLE_CSTR, NULL), own.family,
            own.model, nn_cpuinfo_default());
}

static void print_forced(FILE *out, const struct nn_config *cfg, const struct nn_forced *forced) {
  char text[768];
  for (int var = 0; var < NN_FORCED_COUNT; var++) {
    if (!forced->value[var]) continue;
    nn_forced_describe(cfg, forced, var, text, sizeof text);
    fprintf(out, "forced:       %s\n", text);
  }
}

static void print_job(FILE *out, const struct nn_explain *e) {
  const struct nn_cli_config *cc = e->in->cc;
  const struct nn_visible *vis = &e->job.vis;
  char sockets[256];
  nn_topology_describe_sockets(cc->cfg, sockets, sizeof sockets);
  fprintf(out, "config:       %s (%d GPUs: %s; %d rules)\n", cc->src.path, cc->cfg->n_gpus, sockets,
          e->cfg->n_rules);
  if (vis->why[0]) fprintf(out, "devices:      %s\n", vis->why);
  if (!vis->set && !vis->n && e->ranks < (size_t)cc->cfg->n_gpus && e->nodes == 1)
    fprintf(
      out,
      "note:         %zu ranks, but the job sees all %d GPUs of the mapping; a server that uses\n"
      "              some of them sees only those: give them with --visible-devices (e.g. %s)\n",
      e->ranks, cc->cfg->n_gpus,
      e->ranks == 4 && cc->cfg->n_gpus == 8 ? "0,1,2,3 or 4,5,6,7" : "0,1");
  if (cc->src.tuner_csv)
    fprintf(out, "csv rules:    NCCL_TUNER_CONFIG_FILE %s (%s)\n", cc->src.tuner_csv,
            e->cfg->n_files > 1 && !strcmp(e->cfg->files[e->cfg->n_files - 1], cc->src.tuner_csv)
              ? "used: the mapping has no rules of its own"
              : "not used: the mapping has rules");
  fprintf(out, "communicator: %zu ranks on %zu node(s): scope %s; %d of %d rules can apply\n",
          e->ranks, e->nodes, nn_scope_name(nn_policy_scope(e->p)), nn_policy_rule_count(e->p),
          e->cfg->n_rules);
  print_forced(out, e->cfg, &e->forced);
}

static void print_verdict(FILE *out, const struct nn_explain *e) {
  const struct nn_topo_verdict *v = &e->v;
  const struct nn_cpu_kind *cpu = &e->cpu;
  nn_ncclver_print(out, "topology:     ", e->in->ver, v, NULL);
  char link[64] = "one CPU node: no socket link";
  if (v->link_gbps > 0) snprintf(link, sizeof link, "modelled socket link %.0f GB/s", v->link_gbps);
  char vendor[64];
  fprintf(out, "              (CPU %s family %d model %d%s%s; %s)\n",
          nn_printable(vendor, sizeof vendor, cpu->vendor, NN_PRINTABLE_CSTR, NULL), cpu->family,
          cpu->model, cpu->from_cpuinfo ? " from " : "",
          cpu->from_cpuinfo ? nn_cpuinfo_default() : "", link);
  print_own_cpu(out, cpu, v);
  print_protocols(out, v->rel, v->sm);
  nn_protonotes_print(out, "rules:        ", "", e->cfg, v->rel, v->sm);
  char how[256];
  nn_nccl_tuner_semantics(v->rel, how, sizeof how);
  fprintf(out, "tuner:        %s\n", how);
  if (e->cfg->pci_latency_us > 0) {
    char why[200];
    fprintf(out,
            "model:        hwLatencies[PCI] tree/ring x ll/simple set to %.2f us (tuner v5+)\n",
            e->cfg->pci_latency_us);
    if (nn_nccl_constants_ignored(e->in->ver->code, why, sizeof why))
      fprintf(out, "              %s\n", why);
  }
  if (e->bind_list[0])
    fprintf(out,
            "binding:      this OS has the mapping's NUMA nodes: `exec --bind-for sglang` adds "
            "--numa-node %s,\n"
            "              `--bind-for vllm` adds --numa-bind --numa-bind-nodes %s\n",
            e->bind_list, e->bind_list);
  fprintf(out, "cost model:   %s\n", e->model_desc);
  if (!e->modelled) fprintf(out, "table:        %s\n", PCIE_ONLY_TABLE);
  else
    fprintf(out, "              * = a rule overrides NCCL's choice; vs NCCL = the rule's choice "
                 "under NCCL's model\n");
}

static void print_sizes(FILE *out, const struct nn_explain *e) {
  fprintf(out, "\nsizes\n  %-14s %-12s %-16s %12s   %-18s %12s   %s\n", "collective", "size",
          "NCCL picks", "modelled us", "with the plugin", "modelled us", "decided by");
  for (int c = 0, k = 0; c < e->n_colls; c++)
    for (int i = 0; i < e->in->n_sizes; i++, k++) {
      const struct nn_costview_at *at = &e->at[k];
      char size[32], a[16], b[16], rule[4200];
      nn_sizetext(e->in->sizes[i], size, sizeof size);
      nn_costview_pair_name(at->nccl.algo, at->nccl.proto, a, sizeof a);
      nn_costview_pair_name(at->plug.algo, at->plug.proto, b, sizeof b);
      rule_name(e->cfg, at->rule, rule, sizeof rule);
      fprintf(out, "  %-14s %-12s %-16s %12.1f   %-18s %12.1f   %s\n",
              nn_coll_name(e->colls[c].coll), size, a, at->nccl.time_us, b, at->plug.time_us, rule);
    }
}

void nn_explain_text(FILE *out, const struct nn_explain *e) {
  print_job(out, e);
  if (e->have_verdict) print_verdict(out, e);
  else fprintf(out, "topology:     %s\ntable:        %s\n", e->no_verdict, PCIE_ONLY_TABLE);
  if (e->nodes > 1) {
    char release[16];
    nn_nccl_version_format(e->in->ver->code, release, sizeof release);
    nn_nicview_print(out, &e->nics.cfg, release, &e->nics);
  }
  for (int c = 0; c < e->n_colls; c++) {
    if (e->modelled)
      nn_costview_print_bands(out, e->cfg, &e->m, e->colls[c].coll, e->colls[c].bands,
                              e->colls[c].n_bands);
    else print_rule_rows(out, e->cfg, &e->colls[c]);
  }
  if (e->in->n_sizes && e->modelled) print_sizes(out, e);
  else if (e->in->n_sizes)
    fprintf(out, "\nsizes: no rows: NCCL's cost model is not available here (cost model: above)\n");
  if (e->compared) nn_release_diff_print(out, &e->diff, e->in->only);
  fprintf(out, "\n%s", e->summary);
}
