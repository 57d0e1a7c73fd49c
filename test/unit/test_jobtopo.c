/* SPDX-License-Identifier: BSD-3-Clause */
/* test_jobtopo.c - the file served for each job of the reference guest with NUMA nodes, against
 * NCCL's own code: test/fixtures/nccl-cost/job-facts.txt holds, per release (2.28.9, 2.30.7,
 * 2.31.0a7) and job (TP=8, the TP=4 servers 0-3 and 4-7, the spanning 0,1,4,5), NCCL's graphs and
 * choice (nccl-oracle, written by test/cost/job_facts.py) on the NUMA file, the flat file and its
 * own view, and which one nccl-numa serves. The plugin's verdict must serve that one, predict
 * NCCL's graphs on all three, and the served one must be the best NCCL's own graphs give. */
#include "nn_config.h"
#include "nn_facts.h"
#include "nn_test.h"
#include "topology.h"
#include "visible.h"

#define JFACTS "test/fixtures/nccl-cost/job-facts.txt"
#define CONF "test/fixtures/config/ref-guest-numa.conf"

static const struct {
  const char *name, *devices;
} jobs[] = {
  {"tp8", "0,1,2,3,4,5,6,7"}, {"g0123", "0,1,2,3"}, {"g4567", "4,5,6,7"}, {"g0145", "0,1,4,5"}};

static const char *devices_of(const char *name) {
  for (size_t i = 0; i < sizeof jobs / sizeof jobs[0]; i++)
    if (!strncmp(name, jobs[i].name, strlen(jobs[i].name)) && name[strlen(jobs[i].name)] == '-')
      return jobs[i].devices;
  fail_msg("unknown job in %s", name);
  return NULL;
}

/* The verdict the env plugin reaches for the job: links gen5 x16, sm 10.0 assumed, NCCL's own
 * view on the guest's sysfs nodes (GPUs 0-3 on node 1, 4-7 on node 0) and the guest's CPU. */
static void verdict_for(const struct nn_config *cfg, const char *devices, int version,
                        int decide_only, struct nn_topo_verdict *v) {
  static struct nn_gpu own[NN_VISIBLE_MAX];
  struct nn_visible vis;
  struct nn_config view;
  struct nn_pcie_link links[NN_SEARCH_MAX_GPUS];
  int numa[NN_SEARCH_MAX_GPUS];
  struct nn_cpu_kind cpu;
  char err[256];
  nn_visible_resolve(cfg, devices, NULL, &vis);
  nn_visible_view(cfg, &vis, own, &view);
  for (int i = 0; i < view.n_gpus; i++) {
    links[i] = (struct nn_pcie_link){5, 16, NN_LINK_SYSFS};
    numa[i] = view.gpus[i].numa; /* sysfs agrees with the mapping here */
  }
  assert_int_equal(nn_topology_cpu_kind(&view, NULL, &cpu, err, sizeof err), 0);
  struct nn_verdict_in in = {.nccl_version = version,
                             .links = links,
                             .own_numa = numa,
                             .own_cpu = &cpu,
                             .own_cpu_source = NN_OWN_CPU_CPUINFO,
                             .decide_only = decide_only};
  nn_topology_verdict(&view, &cpu, &in, v);
}

static const struct nn_search_pred *pred_of(const struct nn_topo_verdict *v, const char *file) {
  return !strcmp(file, "numa") ? &v->numa.pred : !strcmp(file, "flat") ? &v->flat.pred : &v->own;
}

static int file_kind(const char *file) {
  return !strcmp(file, "numa") ? NN_FILE_NUMA : !strcmp(file, "flat") ? NN_FILE_FLAT : NN_FILE_NONE;
}

/* channels x bandwidth of a graph line ("2,24.0,...") */
static double line_gbps(const char *line) {
  int ch;
  double bw;
  const char *e;
  assert_int_equal(nn_int_parse_prefix(line, 0, 64, &ch, &e), 0);
  assert_int_equal(nn_double_parse_prefix(e + 1, &bw, &e), 0);
  return ch * bw;
}

static void job_facts(void **state) {
  (void)state;
  size_t len;
  char *text = nn_test_slurp(JFACTS, &len), *conf = nn_test_slurp(CONF, &len);
  struct nn_config *cfg = nn_test_parse(conf);
  struct nn_fact_block b = {.body_len = 0};
  const char *p = text;
  int cases = 0, served = 0, flat_served = 0;
  double best = 0, served_gbps = 0;
  struct nn_topo_verdict v;
  while ((p = nn_facts_read_block(p, &b)) != NULL) {
    char job[16], file[8], tag[8], what[200];
    assert_int_equal(sscanf(b.name, "%15[^-]-%7[^-]-%7s", job, file, tag), 3);
    if (!strcmp(file, "numa")) best = 0; /* each job's three blocks: numa, flat, own */
    verdict_for(cfg, devices_of(b.name), nn_facts_version(b.rel), 0, &v);
    assert_int_equal(v.predicted, 1);
    const struct nn_search_pred *pr = pred_of(&v, file);
    snprintf(what, sizeof what, "%s %s ring", b.rel, b.name);
    nn_facts_expect_graph(what, b.ring, pr->model_nchannels, &pr->ring);
    snprintf(what, sizeof what, "%s %s tree", b.rel, b.name);
    nn_facts_expect_graph(what, b.tree, pr->model_nchannels, &pr->tree);
    double gbps = line_gbps(b.ring) + line_gbps(b.tree);
    if (gbps > best) best = gbps;
    if (!strcmp(tag, "served")) {
      if (v.file != file_kind(file))
        fail_msg("%s %s: the plugin serves file %d", b.rel, b.name, v.file);
      verdict_for(cfg, devices_of(b.name), nn_facts_version(b.rel), 1,
                  &v); /* the env plugin's way */
      if (v.file != file_kind(file))
        fail_msg("%s %s: the env plugin serves file %d", b.rel, b.name, v.file);
      served_gbps = gbps;
      served++;
      flat_served += v.file == NN_FILE_FLAT;
    }
    /* after the own block: the served file is the best of the three by NCCL's own graphs */
    if (!strcmp(file, "own") && served_gbps < best)
      fail_msg("%s %s: a better file than the served one", b.rel, job);
    cases++;
  }
  assert_int_equal(cases, 36); /* 3 releases x 4 jobs x 3 files */
  assert_int_equal(served, 12);
  assert_int_equal(flat_served, 6); /* TP=8 and 0,1,4,5 on every release */
  nn_config_free(cfg);
  free(conf);
  free(text);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(job_facts)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
