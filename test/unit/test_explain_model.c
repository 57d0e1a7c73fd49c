/* SPDX-License-Identifier: BSD-3-Clause */
/* test_explain_model.c - the explain model (cli/predict/explain.c): what one call computes for
 * the reference machine's TP=8 job and its socket-0 TP=4 server, checked on the struct (the
 * verdict's kind, the summary's facts, the rows), and the JSON renderer writing from it alone. */
#include "nn_test.h"

#include "cli/predict/explain.h"
#include "cpuinfo.h"

#define EXAMPLE "docs/examples/proxmox-epyc-8gpu.conf"

static struct nn_explain e;

static void build(const char *visible, struct nn_cli_config *cc, const struct nn_ncclver *ver) {
  struct nn_explain_in in = {.cc = cc, .visible = visible, .nodes = 1, .only = -1, .ver = ver};
  static struct nn_explain_in keep;
  char err[256];
  keep = in;
  assert_int_equal(nn_explain_build(&keep, &e, err, sizeof err), 0);
}

static void reference_jobs(void **state) {
  (void)state;
  nn_cpuinfo_set_default("test/fixtures/cpuinfo/amd-turin");
  struct nn_cli_config cc;
  assert_int_equal(nn_cli_config_load("test", EXAMPLE, NULL, 0, &cc), NN_CFG_OK);
  struct nn_ncclver ver = {.code = 22809};
  /* TP=8: every GPU, the two-socket file withheld, nothing changed */
  build("", &cc, &ver);
  assert_int_equal(e.ranks, 8);
  assert_int_equal(e.have_verdict, 1);
  assert_int_equal(e.v.kind, NN_VERDICT_WORSE);
  assert_int_equal(e.facts.topo, NN_SUMMARY_TOPO_WITHHELD);
  assert_int_equal(e.facts.nothing, 1);
  assert_int_equal(e.modelled, 1);
  assert_int_equal(e.n_colls, NN_COLL_COUNT);
  assert_int_equal(e.colls[0].coll, NN_COLL_ALLREDUCE);
  assert_true(e.colls[0].n_bands > 0);
  assert_int_equal(e.colls[0].bands[0].lo_log2, 0);
  nn_explain_free(&e);
  /* the socket-0 TP=4 server: 4 ranks, one node, served, the node's CPUs pinned */
  build("4,5,6,7", &cc, &ver);
  assert_int_equal(e.ranks, 4);
  assert_int_equal(e.cfg->n_gpus, 4);
  assert_int_equal(e.v.kind, NN_VERDICT_ONE_NODE);
  assert_int_equal(e.facts.topo, NN_SUMMARY_TOPO_SERVED);
  assert_int_equal(e.facts.search, NN_SUMMARY_SEARCH_SAME);
  assert_int_equal(e.facts.affinity, NN_SUMMARY_AFFINITY_NODE);
  assert_int_equal(e.facts.nothing, 0);
  /* the JSON renderer writes from the struct: its summary is the model's */
  char *doc = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&doc, &len);
  assert_non_null(f);
  nn_explain_json(f, &e);
  fclose(f);
  assert_non_null(strstr(doc, "\"ranks\":4,"));
  assert_non_null(strstr(doc, "\"served\":true"));
  assert_non_null(strstr(doc, "\"summary\":\"summary: what nccl-numa changes for this job"));
  free(doc);
  nn_explain_free(&e);
  nn_cli_config_free(&cc);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(reference_jobs)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
