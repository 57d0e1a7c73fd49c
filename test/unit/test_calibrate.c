/* SPDX-License-Identifier: BSD-3-Clause */
/* test_calibrate.c - calibrate's rules from forced arms (cli/sweep/calibrate.c), on series built
 * here and, with NCCL's model, on the synthetic calibrate run of test/fixtures/rundir-synthetic. */
#include "nn_test.h"

#include "cli/sweep/calibrate.h"
#include "cli/sweep/costmeasure.h"
#include "cli/sweep/rundir.h"

#define KIB 1024ull
#define MIB (1024ull * 1024ull)

/* A run directory and its series built in memory: what nn_calibrate_emit reads. */
struct fx {
  struct nn_rundir rd;
  struct nn_run_rec runs[4];
  struct nn_series s[NN_MAX_ARMS];
  struct nn_point pts[NN_MAX_ARMS][4];
  int ns;
};

static void add_arm(struct fx *f, const char *name, int kind, const char *algo, const char *proto) {
  struct nn_arm *a = &f->rd.arms[f->rd.n_arms++];
  snprintf(a->name, sizeof a->name, "%s", name);
  a->kind = kind;
  snprintf(a->algo, sizeof a->algo, "%s", algo);
  snprintf(a->proto, sizeof a->proto, "%s", proto);
}

/* One series: arm x coll, three repeats of every size, median m[i], spread +-d[i]. */
static void add_series(struct fx *f, const char *arm, const char *coll, int n, const uint64_t *size,
                       const double *m, const double *d) {
  struct nn_series *s = &f->s[f->ns];
  snprintf(s->arm, sizeof s->arm, "%s", arm);
  snprintf(s->coll, sizeof s->coll, "%s", coll);
  s->ranks = 8;
  s->n_runs = 3;
  s->pts = f->pts[f->ns++];
  s->n_pts = n;
  for (int i = 0; i < n; i++)
    s->pts[i] = (struct nn_point){
      .size = size[i], .n_ok = 3, .median = m[i], .min = m[i] - d[i], .max = m[i] + d[i]};
}

static void add_coll(struct fx *f, const char *coll) {
  struct nn_run_rec *r = &f->runs[f->rd.n_runs++];
  snprintf(r->coll, sizeof r->coll, "%s", coll);
  f->rd.runs = f->runs;
}

/* What nn_calibrate_emit writes, NUL-terminated in buf; returns its result. */
static int emit(struct fx *f, int ranks, const char *scope, char *buf, size_t size) {
  FILE *out = fmemopen(buf, size, "w");
  assert_non_null(out);
  int n = nn_calibrate_emit(&f->rd, f->s, f->ns, ranks, scope, NULL, out);
  fclose(out);
  return n;
}

static const uint64_t sizes3[] = {8, 64, MIB};

/* ring.ll wins the two small sizes beyond the spread, ring.simple the large one: two rules,
 * the first running to just below the next measured size. */
static void merged_rules(void **state) {
  (void)state;
  static struct fx f;
  memset(&f, 0, sizeof f);
  add_arm(&f, "ring.ll", NN_ARM_FORCED, "ring", "ll");
  add_arm(&f, "ring.simple", NN_ARM_FORCED, "ring", "simple");
  add_coll(&f, "all_reduce");
  add_series(&f, "ring.ll", "all_reduce", 3, sizes3, (double[]){10, 11, 300},
             (double[]){0.5, 0.5, 2});
  add_series(&f, "ring.simple", "all_reduce", 3, sizes3, (double[]){20, 21, 100},
             (double[]){0.5, 0.5, 2});
  char buf[4096];
  assert_int_equal(emit(&f, 0, "intra", buf, sizeof buf), 2);
  assert_non_null(strstr(
    buf, "rule coll=allreduce bytes=8-1048575 ranks=8 nodes=1 scope=intra algo=ring proto=ll\n"));
  assert_non_null(strstr(
    buf, "rule coll=allreduce bytes=1M-1M ranks=8 nodes=1 scope=intra algo=ring proto=simple\n"));
  assert_non_null(strstr(buf, "ring.ll beats ring.simple by 10.00 us (spread 1.00 us)"));
  /* ranks given override the series' count */
  assert_int_equal(emit(&f, 4, NULL, buf, sizeof buf), 2);
  assert_non_null(strstr(buf, "bytes=8-1048575 ranks=4 nodes=1 algo=ring proto=ll\n"));
}

/* A lead within the spread is no rule; a failed arm is never the winner and gets a FAILED line. */
static void noise_and_failure(void **state) {
  (void)state;
  static struct fx f;
  memset(&f, 0, sizeof f);
  add_arm(&f, "stock", NN_ARM_STOCK, "", "");
  add_arm(&f, "tree.ll", NN_ARM_FORCED, "tree", "ll");
  add_arm(&f, "tree.simple", NN_ARM_FORCED, "tree", "simple");
  add_arm(&f, "ring.ll", NN_ARM_FORCED, "ring", "ll");
  add_coll(&f, "all_reduce");
  const uint64_t sz[] = {4 * KIB};
  add_series(&f, "stock", "all_reduce", 1, sz, (double[]){1}, (double[]){0.1});
  add_series(&f, "tree.ll", "all_reduce", 1, sz, (double[]){2}, (double[]){0.1});
  add_series(&f, "tree.simple", "all_reduce", 1, sz, (double[]){30}, (double[]){0.1});
  add_series(&f, "ring.ll", "all_reduce", 1, sz, (double[]){30.5}, (double[]){1});
  f.pts[1][0].failed = 1; /* tree.ll, the fastest forced arm, had a wrong result */
  f.pts[1][0].n_wrong = 1;
  char buf[4096];
  assert_int_equal(emit(&f, 0, NULL, buf, sizeof buf), 0);
  assert_non_null(
    strstr(buf, "# all_reduce tree.ll: FAILED at 1 of 1 sizes (4 KiB..4 KiB): #wrong > 0 at 1"));
  assert_non_null(
    strstr(buf, "# all_reduce 4 KiB: no rule (tree.simple leads ring.ll by 0.50 us, within the "
                "spread 2.00 us)"));
  assert_null(strstr(buf, "rule coll="));
}

/* A collective NCCL's tuner is never asked about gets no rules, only a comment. */
static void untuned_collective(void **state) {
  (void)state;
  static struct fx f;
  memset(&f, 0, sizeof f);
  add_arm(&f, "ring.ll", NN_ARM_FORCED, "ring", "ll");
  add_arm(&f, "ring.simple", NN_ARM_FORCED, "ring", "simple");
  add_coll(&f, "alltoall");
  add_series(&f, "ring.ll", "alltoall", 3, sizes3, (double[]){10, 11, 300},
             (double[]){0.5, 0.5, 2});
  add_series(&f, "ring.simple", "alltoall", 3, sizes3, (double[]){20, 21, 100},
             (double[]){0.5, 0.5, 2});
  char buf[1024];
  assert_int_equal(emit(&f, 0, NULL, buf, sizeof buf), 0);
  assert_string_equal(buf,
                      "# alltoall: NCCL's tuner is never asked about this collective; no rules\n");
}

/* --chunks arms: a chunk size beating chunk.none is a chunk= rule, unless the release
 * asks no tuner for chunk sizes. */
static void chunk_rules(void **state) {
  (void)state;
  static struct fx f;
  memset(&f, 0, sizeof f);
  add_arm(&f, "chunk.none", NN_ARM_NUMA, "", "");
  add_arm(&f, "chunk.512K", NN_ARM_NUMA, "", "");
  add_coll(&f, "all_reduce");
  const uint64_t sz[] = {MIB, 4 * MIB};
  add_series(&f, "chunk.none", "all_reduce", 2, sz, (double[]){100, 400}, (double[]){1, 1});
  add_series(&f, "chunk.512K", "all_reduce", 2, sz, (double[]){80, 399}, (double[]){1, 1});
  char buf[4096];
  assert_int_equal(emit(&f, 8, NULL, buf, sizeof buf), 1);
  assert_non_null(strstr(buf, "rule coll=allreduce bytes=1M-4194303 ranks=8 nodes=1 chunk=512K\n"));
  assert_non_null(
    strstr(buf, "# all_reduce 4 MiB, chunk size: no rule (no chunk size beats NCCL's own"));
  snprintf(f.rd.nccl, sizeof f.rd.nccl, "2.28.9");
  assert_int_equal(emit(&f, 8, NULL, buf, sizeof buf), 0);
  assert_non_null(strstr(buf, "NCCL 2.28.9 asks no tuner for chunk sizes"));
}

/* What nn_calibrate_run refuses before it runs anything. */
static void run_usage(void **state) {
  (void)state;
  struct nn_ab_opts o = {0};
  struct nn_cal_cli c = {0};
  static struct nn_rundir rd;
  char config[8] = "", err[512] = "";
  int gpus = 0;
  assert_int_equal(nn_calibrate_run(&o, &c, &rd, config, &gpus, err, sizeof err),
                   NN_CALIBRATE_USAGE);
  assert_non_null(strstr(err, "give --nccl-tests DIR"));
  o.tests_dir = "/nonexistent";
  c.chunks = "512K";
  assert_int_equal(nn_calibrate_run(&o, &c, &rd, config, &gpus, err, sizeof err),
                   NN_CALIBRATE_USAGE);
  assert_non_null(strstr(err, "--chunks needs --config"));
  char algos[] = "ring,bogus";
  c.chunks = NULL;
  c.algos = algos;
  assert_int_equal(nn_calibrate_run(&o, &c, &rd, config, &gpus, err, sizeof err),
                   NN_CALIBRATE_USAGE);
  assert_string_equal(err, "unknown algorithm 'bogus'");
  char algos2[] = "ring", protos[] = "ll128";
  c.algos = algos2;
  c.protos = protos;
  o.nccl_code = 22809;
  rd.n_arms = 0;
  assert_int_equal(nn_calibrate_run(&o, &c, &rd, config, &gpus, err, sizeof err),
                   NN_CALIBRATE_USAGE);
  assert_non_null(strstr(err, "NCCL 2.28.9 keeps"));
  assert_non_null(strstr(err, "off between PCIe-only GPUs"));
  for (int i = 0; i < rd.n_arms; i++) free(rd.arms[i].config);
}

/* The scope of a rank count by a mapping, and none without one. */
static void scope(void **state) {
  (void)state;
  int gpus = 0;
  assert_null(nn_calibrate_scope(NULL, 8, 1, &gpus));
  assert_null(nn_calibrate_scope("", 8, 1, &gpus));
  assert_null(nn_calibrate_scope("test/fixtures/config/missing.conf", 8, 1, &gpus));
  assert_int_equal(gpus, 0);
  const char *sc = nn_calibrate_scope("test/fixtures/config/reference.conf", 2, 1, &gpus);
  assert_non_null(sc);
  assert_string_equal(sc, "intra");
  assert_int_equal(gpus, 8);
  gpus = 4; /* a GPU count already given stays */
  assert_string_equal(nn_calibrate_scope("test/fixtures/config/reference.conf", 2, 1, &gpus),
                      "intra");
  assert_int_equal(gpus, 4);
}

/* ---- with NCCL's model, on the synthetic calibrate run of test/fixtures/rundir-synthetic ---- */

#define RUNDIR "test/fixtures/rundir-synthetic"

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
static char *emitted(const struct run *r, int ranks, const char *scope,
                     const struct nn_cost_model *m, int *n) {
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
  assert_string_equal(
    rules, "rule coll=allreduce bytes=512K-2097151 ranks=8 nodes=1 algo=ring proto=simple\n");
  assert_non_null(
    strstr(text, "# all_reduce 8 KiB: no rule (NCCL's choice ring/ll is the fastest measured"));
  free(text);
  free(rules);
  text = emitted(&r, 4, "intra", &r.m, &n);
  rules = rules_of(text);
  assert_string_equal(rules, "rule coll=allreduce bytes=512K-2097151 ranks=4 nodes=1 scope=intra "
                             "algo=ring proto=simple\n");
  free(text);
  free(rules);
  close_run(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(merged_rules),       cmocka_unit_test(noise_and_failure),
    cmocka_unit_test(untuned_collective), cmocka_unit_test(chunk_rules),
    cmocka_unit_test(run_usage),          cmocka_unit_test(scope),
    cmocka_unit_test(test_with_model)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
