/* SPDX-License-Identifier: BSD-3-Clause */
/* test_calibrate.c - rules from a calibrate run (cli/sweep/calibrate.c): with NCCL's model only
 * where the best arm beats NCCL's own choice beyond the spread, the rank count and scope a
 * rule carries, the runner-up criterion without a model, and the scope a mapping decides. */
#include "nn_test.h"

#include "cli/sweep/calibrate.h"
#include "cli/sweep/costmeasure.h"
#include "cli/sweep/rundir.h"

#define RUNDIR "test/fixtures/rundir-synthetic"
#define EPYC "docs/examples/proxmox-epyc-8gpu.conf"

struct run {
  struct nn_rundir rd;
  struct nn_series *s;
  int ns;
  struct nn_cost_model m;
};

static void open_run(struct run *r) {
  char err[256], why[256];
  assert_int_equal(nn_rundir_read(RUNDIR, &r->rd, err, sizeof err), 0);
  assert_int_equal(nn_rundir_series(&r->rd, NULL, &r->s, &r->ns, err, sizeof err), 0);
  assert_int_equal(nn_costmeasure_load(&r->rd, 8, &r->m, why, sizeof why), 0);
}

static void close_run(struct run *r) {
  nn_rundir_series_free(r->s, r->ns);
  nn_rundir_free(&r->rd);
}

/* What nn_calibrate_emit wrote, its return value in *n. */
static char *emitted(const struct run *r, int ranks, const char *scope, const struct nn_cost_model *m, int *n) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  assert_non_null(f);
  *n = nn_calibrate_emit(&r->rd, r->s, r->ns, ranks, scope, m, f);
  fclose(f);
  return text;
}

/* The rule lines of text, joined by '\n'. */
static char *rules_of(const char *text) {
  char *out = calloc(strlen(text) + 1, 1);
  for (const char *p = text; *p;) {
    size_t n = strcspn(p, "\n");
    if (!strncmp(p, "rule ", 5)) strncat(out, p, n + (p[n] == '\n'));
    p += n + (p[n] == '\n');
  }
  return out;
}

/* NCCL 2.28.9's model of the run: one rule, at 512 KiB, where ring/simple beats NCCL's ring/ll. */
static void test_with_model(void **state) {
  (void)state;
  struct run r;
  int n;
  open_run(&r);
  char *text = emitted(&r, 0, NULL, &r.m, &n), *rules = rules_of(text);
  assert_int_equal(n, 1);
  assert_string_equal(rules, "rule coll=allreduce bytes=512K-2097151 ranks=8 nodes=1 algo=ring proto=simple\n");
  assert_non_null(strstr(text, "# all_reduce 8 KiB: no rule (NCCL's choice ring/ll is the fastest measured"));
  free(text);
  free(rules);
  text = emitted(&r, 4, "intra", &r.m, &n);
  rules = rules_of(text);
  assert_string_equal(rules, "rule coll=allreduce bytes=512K-2097151 ranks=4 nodes=1 scope=intra algo=ring proto=simple\n");
  free(text);
  free(rules);
  close_run(&r);
}

/* Without a model the fastest arm needs only to beat the runner-up beyond the spread: ring/ll
 * from 8 B to 128 KiB (its rule reaching just below 512 KiB) and ring/simple from 512 KiB. */
static void test_without_model(void **state) {
  (void)state;
  struct run r;
  int n;
  open_run(&r);
  char *text = emitted(&r, 0, NULL, NULL, &n), *rules = rules_of(text);
  assert_int_equal(n, 2);
  assert_string_equal(rules, "rule coll=allreduce bytes=8-524287 ranks=8 nodes=1 algo=ring proto=ll\n"
                             "rule coll=allreduce bytes=512K-32M ranks=8 nodes=1 algo=ring proto=simple\n");
  free(text);
  free(rules);
  close_run(&r);
}

/* The reference mapping's eight GPUs span both nodes: 8 ranks are cross-socket, and the
 * count is given back; no mapping decides nothing. */
static void test_scope(void **state) {
  (void)state;
  int gpus = 0;
  assert_string_equal(nn_calibrate_scope(EPYC, 8, 1, &gpus), "cross");
  assert_int_equal(gpus, 8);
  gpus = 0;
  assert_null(nn_calibrate_scope("", 8, 1, &gpus));
  assert_int_equal(gpus, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_with_model), cmocka_unit_test(test_without_model), cmocka_unit_test(test_scope),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
