/* SPDX-License-Identifier: BSD-3-Clause */
/* test_costmeasure.c - NCCL's predicted choice beside what a run measured
 * (cli/sweep/costmeasure.c): the model taken from NCCL's logged tuning table, what a run
 * directory's probe gives (or its absence says), the pci-latency estimate, and one size's
 * prediction, measurement and loss, on the synthetic calibrate run of
 * test/fixtures/rundir-synthetic. */
#include "nn_test.h"
#include "nn_tuning_fixture.h"

#include <math.h>

#include "cli/sweep/costmeasure.h"
#include "cli/sweep/rundir.h"

#define RUNDIR "test/fixtures/rundir-synthetic"

/* The cell of the table named func/algo/proto, as nccltuning.h stores it. */
static int cell(const struct nn_nccltuning *t, const char *func, const char *algo,
                const char *proto, float *lat, float *bw) {
  for (int f = 0; f < t->n_funcs; f++)
    for (int a = 0; a < t->n_algos; a++)
      for (int p = 0; p < t->n_protos; p++)
        if (!strcmp(t->funcs[f], func) && !strcmp(t->algos[a], algo) &&
            !strcmp(t->protos[p], proto)) {
          *lat = t->lat[f][a][p];
          *bw = t->bw[f][a][p];
          return t->enabled[f][a][p];
        }
  return -1;
}

static void test_from_tuning(void **state) {
  (void)state;
  struct nn_nccltuning t;
  struct nn_cost_model m;
  char why[256] = "";
  float lat = 0, bw = 0;
  nn_test_tuning_231(&t);
  assert_int_equal(nn_costmeasure_from_tuning(&t, 23102, 8, &m, why, sizeof why), 0);
  assert_int_equal(m.nranks, 8);
  assert_int_equal(m.subsystem, 1);
  assert_int_equal(cell(&t, "AllReduce", "Ring", "Simple", &lat, &bw), 1);
  assert_true(m.lat[NN_COLL_ALLREDUCE][NN_ALGO_RING][NN_PROTO_SIMPLE] == lat);
  assert_true(m.bw[NN_COLL_ALLREDUCE][NN_ALGO_RING][NN_PROTO_SIMPLE] == bw && bw > 0);
  /* An enabled algorithm the model leaves out makes NCCL's choice unpredictable. */
  snprintf(t.algos[0], sizeof t.algos[0], "NVLS");
  for (int f = 0; f < t.n_funcs; f++) t.enabled[f][0][0] = 1;
  assert_int_equal(nn_costmeasure_from_tuning(&t, 23102, 8, &m, why, sizeof why), -1);
  assert_string_equal(why, "NCCL enabled NVLS, which this model of its choice leaves out");
}

/* The fixture's probe gives a model with NCCL's AllReduce rings; a copy without it says
 * what is missing and who writes it. */
static void test_load(void **state) {
  (void)state;
  struct nn_rundir rd;
  struct nn_cost_model m;
  char err[256], why[256] = "", dir[] = "/tmp/nn-costmeasure-XXXXXX", cmd[256];
  assert_int_equal(nn_rundir_read(RUNDIR, &rd, err, sizeof err), 0);
  assert_int_equal(nn_costmeasure_load(&rd, 8, &m, why, sizeof why), 0);
  assert_int_equal(m.nranks, 8);
  assert_int_equal(m.version_code, 22809); /* the run's "nccl 2.28.9" */
  assert_true(m.bw[NN_COLL_ALLREDUCE][NN_ALGO_RING][NN_PROTO_SIMPLE] > 0);
  nn_rundir_free(&rd);
  assert_non_null(mkdtemp(dir));
  snprintf(cmd, sizeof cmd, "cp -r %s/. %s && rm %s/runs/probe.out", RUNDIR, dir, dir);
  assert_int_equal(system(cmd), 0);
  assert_int_equal(nn_rundir_read(dir, &rd, err, sizeof err), 0);
  assert_int_equal(nn_costmeasure_load(&rd, 8, &m, why, sizeof why), -1);
  assert_string_equal(
    why, "no runs/probe.out (calibrate writes it: a probe run with NCCL_DEBUG_SUBSYS=TUNING)");
  nn_rundir_free(&rd);
  assert_int_equal(nn_test_remove_tree(dir), 0);
}

/* The run's forced ring/ll all_reduce gives the estimate, and `how` says from what. */
static void test_pci_latency(void **state) {
  (void)state;
  struct nn_rundir rd;
  struct nn_series *s;
  int ns;
  char err[256], how[256] = "";
  assert_int_equal(nn_rundir_read(RUNDIR, &rd, err, sizeof err), 0);
  assert_int_equal(nn_rundir_series(&rd, NULL, &s, &ns, err, sizeof err), 0);
  double hop = nn_costmeasure_pci_latency(&rd, s, ns, how, sizeof how);
  assert_true(hop > 0 && hop < 1e6);
  assert_non_null(strstr(how, "all_reduce ring/ll, 8 ranks: "));
  assert_non_null(strstr(how, "14 hops x "));
  /* Without that arm there is nothing to estimate from. */
  assert_true(nn_costmeasure_pci_latency(&rd, s, 0, how, sizeof how) == 0);
  assert_non_null(strstr(how, "no pci-latency estimate"));
  nn_rundir_series_free(s, ns);
  nn_rundir_free(&rd);
}

/* One size: NCCL's choice under the model, where it was measured, the best arm and the loss,
 * each checked against the series the run directory holds. */
static void test_point(void **state) {
  (void)state;
  struct nn_rundir rd;
  struct nn_series *s;
  struct nn_nccltuning t;
  struct nn_cost_model m;
  struct nn_costmeasure_point pt;
  int ns;
  char err[256], why[256] = "";
  nn_test_tuning_231(&t);
  assert_int_equal(nn_costmeasure_from_tuning(&t, 22809, 8, &m, why, sizeof why), 0);
  assert_int_equal(nn_rundir_read(RUNDIR, &rd, err, sizeof err), 0);
  assert_int_equal(nn_rundir_series(&rd, NULL, &s, &ns, err, sizeof err), 0);
  assert_int_equal(nn_costmeasure_point_at(&rd, s, ns, "all_reduce", 8, &m, &pt), 0);
  assert_true(pt.pred.algo == NN_ALGO_TREE || pt.pred.algo == NN_ALGO_RING);
  assert_non_null(pt.best_arm);
  assert_non_null(pt.pred_pt);
  const struct nn_point *best =
    nn_rundir_series_point(nn_rundir_series_find(s, ns, pt.best_arm->name, "all_reduce"), 8);
  assert_ptr_equal(best, pt.best_pt);
  for (int i = 0; i < ns; i++) {
    const struct nn_point *p = nn_rundir_series_point(&s[i], 8);
    if (p && !p->failed) assert_true(p->median >= best->median);
  }
  assert_true(fabs(pt.loss_us - (pt.pred_pt->median - best->median)) < 1e-9);
  assert_int_equal(nn_costmeasure_point_at(&rd, s, ns, "alltoall", 8, &m, &pt), -1);
  nn_rundir_series_free(s, ns);
  nn_rundir_free(&rd);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_from_tuning),
    cmocka_unit_test(test_load),
    cmocka_unit_test(test_pci_latency),
    cmocka_unit_test(test_point),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
