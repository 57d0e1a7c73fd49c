/* SPDX-License-Identifier: BSD-3-Clause */
/* test_release_diff.c - explain --emit-rules: what a rule can and cannot keep on a release.
 * (What differs between releases is checked against NCCL's own code by
 * test/cli/test_explain_compare.sh.) */
#include "cost_fixture.h"
#include "nn_test.h"

#include "cli/predict/release_diff.h"
#include "nccl_model.h"

/* 8 GPUs, gen5, 12.0, one flat CPU: ring and tree 2 x 24 GB/s (nccl-oracle, 2.30.7 and dev). */
static void side(struct nn_release_diff_side *s, int version, int comm_channels) {
  struct nn_cost_comm c = cost_flat_comm(version, 8, 120);
  char err[128];
  assert_int_equal(nn_cost_model_init(&c, &s->m, err, sizeof err), 0);
  s->v.version = version;
  s->v.rel = nn_nccl_release_find(version, NULL);
  snprintf(s->name, sizeof s->name, "NCCL %d.%d.%d", version / 10000, version / 100 % 100,
           version % 100);
  s->g = (struct nn_release_diff_graphs){2, 2, 24.0f, 24.0f, comm_channels};
}

/* A against X with one differing allreduce band, 2 MiB - 8 MiB: ring/ll on A, x_proto on X. */
static struct nn_release_diff *diff(int a, int a_channels, int x, int x_channels, int x_proto) {
  static struct nn_release_diff d;
  memset(&d, 0, sizeof d);
  side(&d.a, a, a_channels);
  side(&d.x, x, x_channels);
  d.ranks = 8;
  d.nodes = 1;
  d.graphs_differ = a_channels != x_channels;
  struct nn_cost_choice ca = {NN_ALGO_RING, NN_PROTO_LL, 1.0f}, cx = {NN_ALGO_RING, x_proto, 1.0f};
  d.bands[d.n_bands++] = (struct nn_release_diff_band){.coll = NN_COLL_ALLREDUCE,
                                                       .lo_log2 = 21,
                                                       .hi_log2 = 23,
                                                       .a_lo = ca,
                                                       .a_hi = ca,
                                                       .x_lo = cx,
                                                       .x_hi = cx,
                                                       .choice_differs = 1};
  return &d;
}

/* The rules text for d, and how many are live. */
static char *rules(const struct nn_release_diff *d, int *live) {
  static char buf[8192];
  FILE *f = fmemopen(buf, sizeof buf, "w");
  assert_non_null(f);
  *live = nn_release_diff_rules(f, d, -1);
  fclose(f);
  return buf;
}

static void choice_kept(void **state) {
  (void)state;
  int live;
  char *out = rules(diff(23100, 4, 23007, 4, NN_PROTO_SIMPLE), &live);
  assert_int_equal(live, 1);
  assert_non_null(
    strstr(out, "\nrule coll=allreduce bytes=2M-8M ranks=8 nodes=1 algo=ring proto=simple\n"));
  assert_null(strstr(out, "not possible"));
}

/* 2.30.7 leaves LL128 off between PCIe GPUs: no candidate, so the rule is commented out. */
static void ll128_not_a_candidate(void **state) {
  (void)state;
  int live;
  char *out = rules(diff(23007, 4, 23100, 4, NN_PROTO_LL128), &live);
  assert_int_equal(live, 0);
  assert_non_null(strstr(
    out, "# not possible: NCCL 2.30.7 has no ring/ll128 candidate here (it leaves LL128 off"));
  assert_non_null(
    strstr(out, "\n# rule coll=allreduce bytes=2M-8M ranks=8 nodes=1 algo=ring proto=ll128\n"));
}

/* 2.31 takes a count below its own: the rules carry channels= and one keeps it at every size. */
static void fewer_channels_on_231(void **state) {
  (void)state;
  int live;
  char *out = rules(diff(23100, 4, 23007, 2, NN_PROTO_SIMPLE), &live);
  assert_int_equal(live, 2);
  assert_non_null(strstr(
    out, "\nrule coll=allreduce bytes=2M-8M ranks=8 nodes=1 algo=ring proto=simple channels=2\n"));
  assert_non_null(strstr(out, "\nrule coll=any bytes=0- ranks=8 nodes=1 channels=2\n"));
  assert_non_null(strstr(out, "# not possible: the graphs differ"));
}

/* 2.30.7 replaces its per-call count with a rule's: channels=2 would raise small calls. */
static void fewer_channels_on_230(void **state) {
  (void)state;
  int live;
  char *out = rules(diff(23007, 4, 23100, 2, NN_PROTO_SIMPLE), &live);
  assert_int_equal(live, 1);
  assert_non_null(
    strstr(out, "\nrule coll=allreduce bytes=2M-8M ranks=8 nodes=1 algo=ring proto=simple\n"));
  assert_non_null(
    strstr(out, "# not possible: on NCCL 2.30.7 a rule's channels replace NCCL's own count"));
  assert_non_null(strstr(out, "\n# rule coll=any bytes=0- ranks=8 nodes=1 channels=2\n"));
}

/* More channels than the communicator's: no release lets a tuner raise that. */
static void more_channels(void **state) {
  (void)state;
  int live;
  char *out = rules(diff(23100, 2, 23007, 4, NN_PROTO_SIMPLE), &live);
  assert_int_equal(live, 1);
  assert_non_null(
    strstr(out, "# not possible: NCCL 2.31.0 runs at most its communicator's 2 channels"));
  assert_non_null(strstr(out, "\n# rule coll=any bytes=0- ranks=8 nodes=1 channels=4\n"));
  assert_non_null(
    strstr(out, "\nrule coll=allreduce bytes=2M-8M ranks=8 nodes=1 algo=ring proto=simple\n"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(choice_kept), cmocka_unit_test(ll128_not_a_candidate),
    cmocka_unit_test(fewer_channels_on_231), cmocka_unit_test(fewer_channels_on_230),
    cmocka_unit_test(more_channels)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
