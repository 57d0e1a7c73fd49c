/* SPDX-License-Identifier: BSD-3-Clause */
/* test_costview.c - explain's bands: NCCL's choice, the plugin's, both under NCCL's model. */
#include "cost_fixture.h"
#include "nn_test.h"
#include "nn_tuning_fixture.h"

#include <math.h>

#include "cli/sweep/costmeasure.h"
#include "cli/predict/costview.h"

static const char *conf =
  "cpu vendor=AuthenticAMD family=25 model=17\n"
  "gpu 0 bus=0000:01:00.0 numa=0 sm=90\n"
  "gpu 1 bus=0000:02:00.0 numa=0 sm=90\n"
  "gpu 2 bus=0000:03:00.0 numa=0 sm=90\n"
  "gpu 3 bus=0000:04:00.0 numa=0 sm=90\n"
  "gpu 4 bus=0000:05:00.0 numa=1 sm=90\n"
  "gpu 5 bus=0000:06:00.0 numa=1 sm=90\n"
  "gpu 6 bus=0000:07:00.0 numa=1 sm=90\n"
  "gpu 7 bus=0000:08:00.0 numa=1 sm=90\n"
  "rule coll=allreduce bytes=64K-1M algo=tree proto=simple\n"  /* line 10: overrides NCCL */
  "rule coll=allreduce bytes=2M-4M algo=ring\n"                /* line 11: NCCL's own pick */
  "rule coll=allgather bytes=1K-4K proto=simple channels=2\n"; /* line 12 */

/* 8 GPUs, gen5, 9.0, NCCL 2.28.9, NCCL's flat view: 2 x 24 GB/s ring and tree (oracle). */
static void model(struct nn_cost_model *m) {
  struct nn_cost_comm c = cost_flat_comm(22809, 8, 90);
  char err[128];
  assert_int_equal(nn_cost_model_init(&c, m, err, sizeof err), 0);
}

/* The 8-GPU model, the config above and its policy for 8 ranks on one node. */
struct fixture {
  struct nn_cost_model m;
  struct nn_config *cfg;
  struct nn_policy *p;
};

static struct nn_config *load(void);

static void setup(struct fixture *f) {
  model(&f->m);
  f->cfg = load();
  f->p = nn_policy_compile(f->cfg, 8, 1);
  assert_non_null(f->p);
}

static void teardown(struct fixture *f) {
  nn_policy_free(f->p);
  nn_config_free(f->cfg);
}

static struct nn_config *load(void) {
  struct nn_config *cfg = NULL;
  struct nn_diag d = {0};
  int rc = nn_config_parse("t.conf", conf, strlen(conf), NULL, &cfg, &d);
  for (int i = 0; i < d.n; i++) fprintf(stderr, "%s\n", d.msgs[i]);
  assert_int_equal(rc, 0);
  nn_diag_clear(&d);
  return cfg;
}

static const struct nn_costview_band *band_at(const struct nn_costview_band *b, int n, int log2) {
  for (int i = 0; i < n; i++)
    if (b[i].lo_log2 <= log2 && log2 <= b[i].hi_log2) return &b[i];
  fail_msg("no band holds 2^%d", log2);
}

static void allreduce_bands(void **state) {
  (void)state;
  struct fixture fx;
  setup(&fx);
  struct nn_config *cfg = fx.cfg;
  struct nn_costview_band b[64];
  int n = nn_costview_bands(&fx.m, fx.p, NN_COLL_ALLREDUCE, 30, b, 64);
  /* below 64K: NCCL's ring/ll, no rule */
  const struct nn_costview_band *x = band_at(b, n, 13);
  assert_int_equal(x->rule, -1);
  assert_int_equal(x->overrides, 0);
  assert_int_equal(x->nccl_lo.algo, NN_ALGO_RING);
  assert_int_equal(x->nccl_lo.proto, NN_PROTO_LL);
  assert_int_equal(x->plug_lo.algo, NN_ALGO_RING);
  /* 64K..1M: the rule forces tree/simple where NCCL picks ring/ll; NCCL's model rates it
   * 69.3 us at 64K against ring/ll's 25.4 (oracle, 2.28.9) */
  x = band_at(b, n, 16);
  assert_int_equal(x->lo_log2, 16);
  assert_int_equal(x->hi_log2, 20);
  assert_int_equal(cfg->rules[x->rule].line, 10);
  assert_int_equal(x->overrides, 1);
  assert_int_equal(x->plug_lo.algo, NN_ALGO_TREE);
  assert_int_equal(x->plug_lo.proto, NN_PROTO_SIMPLE);
  assert_true(fabs(x->plug_lo.time_us - 69.3) < 0.7);
  assert_true(fabs(x->nccl_lo.time_us - 25.38) < 0.25);
  assert_true(fabs(x->nccl_hi.time_us - 97.06) < 0.97);
  /* 2M..4M: a rule fires but "ring, cheapest protocol" is what NCCL picks anyway */
  x = band_at(b, n, 21);
  assert_int_equal(cfg->rules[x->rule].line, 11);
  assert_int_equal(x->overrides, 0);
  assert_int_equal(x->plug_lo.algo, x->nccl_lo.algo);
  assert_int_equal(x->plug_lo.proto, x->nccl_lo.proto);
  /* 64M: ring/simple, NCCL's */
  x = band_at(b, n, 26);
  assert_int_equal(x->rule, -1);
  assert_int_equal(x->nccl_lo.proto, NN_PROTO_SIMPLE);
  teardown(&fx);
}

static void channels_and_print(void **state) {
  (void)state;
  struct fixture fx;
  setup(&fx);
  struct nn_config *cfg = fx.cfg;
  struct nn_cost_model m = fx.m;
  struct nn_policy *p = fx.p;
  struct nn_cost_choice ch;
  int rule, chan;
  assert_int_equal(nn_costview_plugin_choice(&m, p, NN_COLL_ALLGATHER, 2048, &ch, &rule, &chan), 0);
  assert_int_equal(cfg->rules[rule].line, 12);
  assert_int_equal(chan, 2);
  assert_int_equal(ch.algo, NN_ALGO_RING);
  assert_int_equal(ch.proto, NN_PROTO_SIMPLE);
  assert_true(ch.time_us > 0);
  char *path = nn_test_write_file("");
  FILE *f = fopen(path, "w");
  nn_costview_print(f, cfg, &m, p, NULL, NN_COLL_ALLREDUCE, 30);
  fclose(f);
  size_t len;
  char *text = nn_test_slurp(path, &len);
  assert_non_null(strstr(text, "64 KiB - 1 MiB"));
  assert_non_null(strstr(text, "t.conf:10"));
  assert_non_null(strstr(text, "* tree/simple"));
  assert_non_null(strstr(text, "(same as NCCL's)"));
  free(text);
  unlink(path);
  free(path);
  teardown(&fx);
}

/* NCCL's model from its own tuning table: 2.31 prints LL128's numbers even where its enable
 * check turns LL128 off (released 2.31.2); the dev branch's 2.31.0 runs it. */
static void from_tuning_231(void **state) {
  (void)state;
  struct nn_nccltuning t;
  char err[256] = "";
  nn_test_tuning_231(&t);
  struct nn_cost_model m;
  struct nn_cost_choice ch;
  assert_int_equal(nn_costmeasure_from_tuning(&t, 23102, 8, &m, err, sizeof err), 0);
  assert_int_equal(nn_cost_choose(&m, NN_COLL_ALLREDUCE, 1 << 20, &ch), 0);
  assert_int_equal(ch.proto, NN_PROTO_LL); /* 20.6 + 1 MiB / 13.7 GB/s */
  assert_true(fabs(ch.time_us - 97.1) < 1.0);
  assert_true(nn_cost_time(&m, NN_COLL_ALLREDUCE, NN_ALGO_RING, NN_PROTO_LL128, 1 << 20) < 0);
  assert_int_equal(nn_costmeasure_from_tuning(&t, 23100, 8, &m, err, sizeof err), 0);
  assert_int_equal(nn_cost_choose(&m, NN_COLL_ALLREDUCE, 1 << 20, &ch), 0);
  assert_int_equal(ch.proto, NN_PROTO_LL128); /* 49.0 + 1 MiB / 25.2 GB/s: 90.6 */
  assert_true(fabs(ch.time_us - 90.6) < 1.0);
  /* an enabled algorithm this model leaves out: no prediction */
  const char *nvls = "h:1:2 [0] NCCL INFO   Algorithm   |                            Ring          "
                     "        |                            NVLS                  |\n"
                     "h:1:2 [0] NCCL INFO   Protocol    |             LL |          LL128 |        "
                     " Simple |             LL |          LL128 |         Simple |\n"
                     "h:1:2 [0] NCCL INFO     AllReduce |    20.6/  13.7 |    49.0/   0.0 |    "
                     "88.2/  27.4 |     0.0/   0.0 |     0.0/   0.0 |    25.0/ 300.0 |\n";
  assert_int_equal(nn_nccltuning_parse(nvls, strlen(nvls), &t, err, sizeof err),
                   NN_NCCLTUNING_FOUND);
  assert_int_equal(nn_costmeasure_from_tuning(&t, 22809, 8, &m, err, sizeof err), -1);
  assert_non_null(strstr(err, "NVLS"));
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(allreduce_bands),
                                     cmocka_unit_test(channels_and_print),
                                     cmocka_unit_test(from_tuning_231)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
