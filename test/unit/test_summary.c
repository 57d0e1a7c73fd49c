/* SPDX-License-Identifier: BSD-3-Clause */
/* test_summary.c - the `summary:` paragraph of explain and check (cli/predict/summary.c). */
#include "nn_config.h"
#include "nn_test.h"
#include "cost_fixture.h"

#include "cli/predict/summary.h"
#include "nccl_cost.h"
#include "policy.h"

#define AMD "cpu vendor=AuthenticAMD family=26 model=2\n"
#define FOUR \
  "gpu 0 bus=01:00.0 numa=1\ngpu 1 bus=02:00.0 numa=1\ngpu 2 bus=03:00.0 numa=1\ngpu 3 " \
  "bus=04:00.0 numa=1\n"

static void graph(struct nn_graph_pred *g, int ok, int ch, float bw) {
  *g = (struct nn_graph_pred){.ok = ok, .nchannels = ch, .bw_intra = bw, .bw_inter = bw};
}

static struct nn_topo_verdict verdict(int serve, int served_ch, float served_bw) {
  struct nn_topo_verdict v;
  memset(&v, 0, sizeof v);
  v.serve = serve;
  v.predicted = 1;
  v.numa_nodes = 1;
  graph(&v.served.ring, served_bw > 0.1f, served_ch, served_bw);
  graph(&v.served.tree, served_bw > 0.1f, served_ch, served_bw);
  graph(&v.own.ring, 1, 2, 24.0f);
  graph(&v.own.tree, 1, 2, 24.0f);
  v.served.model_nchannels = served_ch;
  v.own.model_nchannels = 2;
  return v;
}

/* The text on one line (the wrap undone), for substring checks. */
static const char *unwrapped(char *text) {
  char *w = text;
  for (const char *r = text; *r; r++) {
    if (r[0] == '\n' && r[1] == ' ' && r[2] == ' ') {
      *w++ = ' ';
      r += 2;
      continue;
    }
    *w++ = *r;
  }
  *w = 0;
  return text;
}

/* The sentence of a mapping without a p2p line (p2pview.c). */
#define NO_P2P \
  "GPU peer-to-peer is off (no `p2p` line): every transfer between GPUs goes through host " \
  "memory. In a VM it is the largest gain left (public reports, not measured here: 15.2 -> 1.0 " \
  "us a transfer), once tested: docs/user/p2p.md."

/* The decode all-reduce sentence of a job of `tp` GPUs without peer access (allreduce.c), the
 * Python environment not read (NCCL_NUMA_PYTHON empty, main). */
#define HOST_AR(tp) \
  "At decode sizes (TP=" tp ") SGLang's and vLLM's all-reduces go to NCCL over host memory " \
  "(no peer access verified for these GPUs). Measure A against B with the engine's own latency " \
  "benchmark, same seed: docs/user/sglang.md."

static void has(const char *text, const char *want) {
  if (!strstr(text, want)) fail_msg("'%s' not in:\n%s", want, text);
}

static void served_one_node(void **state) {
  (void)state;
  struct nn_config *cfg =
    nn_test_parse(AMD "numa 1 cpus=0-31\n" FOUR "rule coll=allreduce algo=ring proto=ll\n");
  struct nn_topo_verdict v = verdict(1, 2, 24.0f);
  struct nn_summary_rules r = {.modelled = 1, .applying = 1, .changing = 0};
  struct nn_summary_in in = {.nccl_version = 22809, .cfg = cfg, .v = &v, .rules = &r};
  char buf[4096];
  nn_summary_text(&in, buf, sizeof buf);
  assert_memory_equal(buf, "summary: what nccl-numa changes for this job on NCCL 2.28.9: ", 61);
  for (const char *l = buf; (l = strchr(l, '\n')) && l[1]; l++)
    assert_true(strcspn(l + 1, "\n") <= 100);
  unwrapped(buf);
  struct nn_summary_facts f;
  nn_summary_facts_of(&in, &f);
  assert_int_equal(f.topo, NN_SUMMARY_TOPO_SERVED);
  assert_int_equal(f.search, NN_SUMMARY_SEARCH_SAME);
  assert_int_equal(f.affinity, NN_SUMMARY_AFFINITY_NODE);
  assert_int_equal(f.nothing, 0);
  /* the consequence first, the figures after, in the user's words */
  has(buf, "NCCL gets the topology file, which leaves its rings and trees as they are (ring 2 x "
           "24.0 GB/s, tree 2 x "
           "24.0 GB/s); it pins NCCL's threads to the CPUs of NUMA node 1; the one rule that "
           "applies picks what NCCL "
           "picks itself at every size; there are no `env` lines. " NO_P2P
           " " HOST_AR("4") " Next: measure on the GPUs with "
                            "`nccl-numa calibrate`");
  assert_null(strstr(buf, "graphs"));
  assert_null(strstr(buf, "own view"));
  assert_null(strstr(buf, "changes nothing"));
  nn_config_free(cfg);
}

static void withheld_changes_nothing(void **state) {
  (void)state;
  struct nn_config *cfg = nn_test_parse(
    AMD FOUR "rule coll=allreduce algo=ring proto=ll\nrule coll=allgather algo=ring\n");
  struct nn_topo_verdict v = verdict(0, 1, 0.1f);
  v.numa_nodes = 2;
  struct nn_summary_rules r = {.modelled = 1, .applying = 2, .changing = 0};
  struct nn_summary_in in = {.nccl_version = 22809, .cfg = cfg, .v = &v, .rules = &r};
  char buf[4096];
  nn_summary_text(&in, buf, sizeof buf);
  unwrapped(buf);
  struct nn_summary_facts f;
  nn_summary_facts_of(&in, &f);
  assert_int_equal(f.topo, NN_SUMMARY_TOPO_WITHHELD);
  assert_int_equal(f.rules, 0);
  assert_int_equal(f.nothing, 1);
  has(buf, "summary: nccl-numa changes nothing for this job on NCCL 2.28.9: NCCL gets no topology "
           "file: with it "
           "NCCL would find no working ring, so it is not given and NCCL uses its own detection, "
           "which pins no CPUs "
           "(with the file: failed ring and tree searches, 1 x 0.1 GB/s; without it: ring 2 x 24.0 "
           "GB/s, tree 2 x "
           "24.0 GB/s)");
  has(buf, "CUDA_VISIBLE_DEVICES set to one socket's GPUs, `--visible-devices`) gets the file");
  has(buf, "the 2 rules that apply pick what NCCL picks itself at every size");
  /* mode=numa serves the worse file: the summary says NCCL finds slower rings and trees */
  v = verdict(1, 1, 0.1f);
  v.mode = NN_TOPO_NUMA;
  nn_summary_facts_of(&in, &f);
  assert_int_equal(f.search, NN_SUMMARY_SEARCH_SLOWER);
  assert_int_equal(f.nothing, 0);
  nn_summary_text(&in, buf, sizeof buf);
  unwrapped(buf);
  has(buf, "what nccl-numa changes for this job on NCCL 2.28.9: NCCL gets the topology file and "
           "finds slower rings "
           "and trees with it, by NCCL's own model (with the file: failed ring and tree searches");
  /* a served file without affinity and the same search results changes nothing NCCL models */
  v = verdict(1, 2, 24.0f);
  nn_summary_facts_of(&in, &f);
  assert_int_equal(f.affinity, NN_SUMMARY_AFFINITY_NONE);
  assert_int_equal(f.nothing, 1);
  nn_summary_text(&in, buf, sizeof buf);
  unwrapped(buf);
  has(buf, "without CPU affinity (no `numa N cpus=` line");
  nn_config_free(cfg);
}

/* A guest without real NUMA nodes: the mapping gives nodes 0 and 1 the same 16 vCPUs, so the
 * served file's affinity is every CPU: nothing is pinned, and the summary says how to get nodes. */
static void every_cpu_pins_nothing(void **state) {
  (void)state;
  struct nn_config *cfg = nn_test_parse(AMD "numa 0 cpus=0-15\nnuma 1 cpus=0-15\n" FOUR);
  struct nn_topo_verdict v = verdict(1, 2, 24.0f);
  struct nn_summary_rules r = {.modelled = 1};
  struct nn_summary_in in = {.nccl_version = 22809, .cfg = cfg, .v = &v, .rules = &r};
  struct nn_summary_facts f;
  nn_summary_facts_of(&in, &f);
  assert_int_equal(f.affinity, NN_SUMMARY_AFFINITY_EVERY_CPU);
  assert_int_equal(f.nothing, 1);
  char buf[4096];
  assert_int_equal(nn_summary_text(&in, buf, sizeof buf), 1);
  unwrapped(buf);
  has(buf, "summary: nccl-numa changes nothing");
  has(buf, "its CPU affinity is every CPU");
  has(buf, "so nothing is pinned");
  has(buf, "Next: give the VM NUMA nodes (`nccl-numa proxmox-numa`, docs/user/proxmox.md)");
  nn_config_free(cfg);
  /* the control: real nodes (0-7 and 8-15) pin node 1's CPUs */
  cfg = nn_test_parse(AMD "numa 0 cpus=0-7\nnuma 1 cpus=8-15\n" FOUR);
  in.cfg = cfg;
  nn_summary_facts_of(&in, &f);
  assert_int_equal(f.affinity, NN_SUMMARY_AFFINITY_NODE);
  assert_int_equal(f.nothing, 0);
  nn_config_free(cfg);
}

static void releases_and_env(void **state) {
  (void)state;
  struct nn_config *cfg =
    nn_test_parse(AMD "numa 1 cpus=0-31\n" FOUR "env NCCL_IB_DISABLE=1\nenv NCCL_P2P_LEVEL=SYS\n");
  struct nn_topo_verdict v = verdict(1, 2, 24.0f);
  struct nn_summary_rules r = {.modelled = 1};
  struct nn_summary_in in = {.nccl_version = 22703, .cfg = cfg, .v = &v, .rules = &r};
  char buf[4096];
  nn_summary_text(&in, buf, sizeof buf);
  unwrapped(buf);
  has(buf, "nccl-numa changes nothing for this job on NCCL 2.27.3: NCCL 2.27.3 has no env plugin "
           "(it arrived in "
           "2.28.7), so NCCL gets no topology file from nccl-numa; the mapping has no rules; the 2 "
           "`env` lines "
           "cannot apply (no env plugin before 2.28.7). " NO_P2P
           " " HOST_AR("4") " Next: NCCL 2.28.7 or later, or "
                            "`nccl-numa topo`");
  in.nccl_version = 22807;
  nn_summary_text(&in, buf, sizeof buf);
  unwrapped(buf);
  has(buf, "the 2 `env` lines apply (NCCL 2.28.7 has the env plugin)");
  assert_null(strstr(buf, "changes nothing"));
  in.user_topo = "/tmp/mine.xml";
  nn_summary_text(&in, buf, sizeof buf);
  has(unwrapped(buf), "NCCL reads your NCCL_TOPO_FILE (/tmp/mine.xml), so nccl-numa serves none");
  nn_config_free(cfg);
}

/* Where rules change NCCL's choice, from NCCL's cost model: 4 ranks, ring and tree 2 x 24 GB/s. */
static void rules_from_the_model(void **state) {
  (void)state;
  struct nn_cost_comm c = cost_flat_comm(22809, 4, 120);
  struct nn_cost_model m;
  char err[256];
  assert_int_equal(nn_cost_model_init(&c, &m, err, sizeof err), 0);
  struct nn_config *cfg =
    nn_test_parse(AMD FOUR "rule coll=allreduce bytes=1M- algo=tree proto=simple\n"
                           "rule coll=allgather bytes=0-1M algo=ring proto=ll\n"
                           "rule coll=broadcast bytes=64K-64K algo=ring proto=ll\n");
  struct nn_policy *p = nn_policy_compile(cfg, 4, 1);
  struct nn_summary_rules r;
  nn_summary_rules_of(&m, p, 32, &r);
  assert_int_equal(r.modelled, 1);
  assert_int_equal(r.applying, 3);
  /* NCCL itself picks ring/ll for allgather up to 512 KiB (visible-facts.txt, 2.28.9), simple at 1
   * MiB */
  assert_int_equal(r.changing, 2);
  assert_string_equal(r.where, "allgather 1 MiB, allreduce 1 MiB - 4 GiB");
  nn_summary_rules_of(NULL, p, 32, &r);
  assert_int_equal(r.modelled, 0);
  struct nn_summary_in in = {
    .nccl_version = 22809, .cfg = cfg, .no_verdict = "CPU kind unknown", .rules = &r};
  char buf[4096];
  nn_summary_text(&in, buf, sizeof buf);
  unwrapped(buf);
  has(buf, "what nccl-numa changes for this job on NCCL 2.28.9: NCCL gets no topology file (CPU "
           "kind unknown); "
           "3 rules can apply, and whether they change NCCL's own choice is not modelled");
  nn_policy_free(p);
  nn_config_free(cfg);
}

/* A p2p line the plugin serves is a change; each state is said in the user's terms. */
static void p2p_lines(void **state) {
  (void)state;
  static const struct {
    const char *line, *said;
    int changes;
  } cases[] = {
    {"p2p ok level=SYS gpus=0-3 driver=580.95.05 xproc=ok\n",
     "The mapping's `p2p ok` (line 6) has the env plugin serve "
     "NCCL_P2P_LEVEL=SYS, so NCCL moves data between GPUs directly (peer-to-peer) for pairs up "
     "to path type SYS",
     1},
    {"p2p ok level=SYS gpus=0-2 driver=580.95.05 xproc=ok\n",
     "The mapping's `p2p ok` (line 6) does not cover all the "
     "mapping's GPUs: GPU 3 of this process was not tested (p2p line 6: gpus=0-2)",
     1},
    {"p2p ok level=SYS\n",
     "The mapping's `p2p ok` (line 6) does not cover all the mapping's GPUs: the p2p line "
     "(line 6) does not say which GPUs were tested",
     1},
    {"p2p broken\n",
     "The mapping's `p2p broken` (line 6) has the env plugin serve NCCL_P2P_DISABLE=1 and "
     "NCCL_WIN_ENABLE=0",
     1},
    {"p2p unsupported\n", "GPU peer-to-peer is off (`p2p unsupported`, line 6): every transfer", 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char text[512];
    snprintf(text, sizeof text, AMD FOUR "%s", cases[i].line);
    struct nn_config *cfg = nn_test_parse(text);
    assert_int_equal(cfg->p2p.line, 6);
    struct nn_topo_verdict v = verdict(0, 1, 0.1f);
    struct nn_summary_rules r = {.modelled = 1};
    struct nn_summary_in in = {.nccl_version = 23007, .cfg = cfg, .v = &v, .rules = &r};
    char buf[4096];
    nn_summary_text(&in, buf, sizeof buf);
    unwrapped(buf);
    has(buf, cases[i].said);
    if (cases[i].changes) assert_null(strstr(buf, "changes nothing"));
    else has(buf, "nccl-numa changes nothing");
    nn_config_free(cfg);
  }
}

/* The decode all-reduce path per p2p line and TP: NCCL over host memory, over peer access, or the
 * engines' own custom all-reduce at TP=2 with peer access; nothing for one GPU. */
static void decode_allreduce(void **state) {
  (void)state;
  static const struct {
    const char *gpus, *line, *said;
  } cases[] = {
    {FOUR, "p2p ok level=SYS gpus=0-3 driver=580.95.05 xproc=ok\n",
     "At decode sizes (TP=4) SGLang's and vLLM's "
     "all-reduces go to NCCL over GPU peer access (their own custom all-reduce is off above two "
     "PCIe GPUs)."},
    {FOUR, "p2p ok level=SYS gpus=0-2 driver=580.95.05 xproc=ok\n", HOST_AR("4")},
    {FOUR, "p2p broken\n", HOST_AR("4")},
    {"gpu 0 bus=01:00.0 numa=1\ngpu 1 bus=02:00.0 numa=1\n",
     "p2p ok gpus=0-1 driver=580.95.05 xproc=ok\n",
     "At decode sizes (TP=2) SGLang's and vLLM's all-reduces go to their own custom all-reduce "
     "over GPU peer "
     "access (to NCCL with --disable-custom-all-reduce)."},
    {"gpu 0 bus=01:00.0 numa=1\n", "p2p ok gpus=0 driver=580.95.05 xproc=ok\n", NULL},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char text[512];
    snprintf(text, sizeof text, AMD "%s%s", cases[i].gpus, cases[i].line);
    struct nn_config *cfg = nn_test_parse(text);
    struct nn_topo_verdict v = verdict(0, 1, 0.1f);
    struct nn_summary_rules r = {.modelled = 1};
    struct nn_summary_in in = {.nccl_version = 23007, .cfg = cfg, .v = &v, .rules = &r};
    char buf[4096];
    nn_summary_text(&in, buf, sizeof buf);
    unwrapped(buf);
    if (cases[i].said) has(buf, cases[i].said);
    else assert_null(strstr(buf, "At decode sizes"));
    nn_config_free(cfg);
  }
}

int main(void) {
  setenv("NCCL_NUMA_PYTHON", "", 1); /* the engines installed here do not change the text */
  const struct CMUnitTest tests[] = {cmocka_unit_test(decode_allreduce),
                                     cmocka_unit_test(served_one_node),
                                     cmocka_unit_test(withheld_changes_nothing),
                                     cmocka_unit_test(every_cpu_pins_nothing),
                                     cmocka_unit_test(releases_and_env),
                                     cmocka_unit_test(rules_from_the_model),
                                     cmocka_unit_test(p2p_lines)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
