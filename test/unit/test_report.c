/* SPDX-License-Identifier: BSD-3-Clause */
/* test_report.c - run directories read back, failure marking, verdicts and the
 * markdown report, on a synthetic run directory built here (text and JSON outputs,
 * a failed exit, a truncated output). */
#include "nn_test.h"

#include <math.h>
#include <sys/stat.h>

#include "cli/sweep/report.h"
#include "cli/sweep/verdict.h"
#include "cli/sweep/rundir.h"
#include "sizetext.h"

static char dir[64];

static void put_file(const char *name, const char *text) { nn_test_put_file(dir, name, text); }

/* A text output (synthetic) with times t8, t64 for sizes 8 and 64; wrong64 in #wrong. */
static void text_out(const char *name, double t8, double t64, int wrong64) {
  char buf[2048];
  snprintf(buf, sizeof buf,
           "# SYNTHETIC output written by test_report.c\n"
           "# nccl-tests version 2.17.6 nccl-headers=22809 nccl-library=22809\n"
           "#  Rank  0 Group  0 Pid 1 on h device  0 [0000:01:00] SYNTH GPU\n"
           "#  Rank  1 Group  0 Pid 1 on h device  1 [0000:02:00] SYNTH GPU\n"
           "#       size         count      type   redop    root     time   algbw   busbw  #wrong  "
           "   time   algbw   busbw  #wrong\n"
           "           8             2     float     sum      -1  %7.2f    0.00    0.00       0  "
           "%7.2f    0.00    0.00       0\n"
           "          64            16     float     sum      -1  %7.2f    0.00    0.00  %6d  "
           "%7.2f    0.00    0.00       0\n",
           t8, t8, t64, wrong64, t64);
  put_file(name, buf);
}

static void json_out(const char *name, double t8, double t64) {
  char buf[2048];
  snprintf(
    buf, sizeof buf,
    "{\"_synthetic\":\"written by test_report.c\",\"nccl_version\":22809,"
    "\"config\":{\"nthreads\":1,\"ngpus\":2,\"devices\":[{\"hostname\":\"h\",\"device_info\":"
    "\"SYNTH GPU\"},{\"hostname\":\"h\"}]},"
    "\"results\":[{\"size\":8,\"count\":2,\"type\":\"float\",\"redop\":\"sum\",\"root\":\"-1\","
    "\"out_of_place\":{\"time\":%.2f,\"alg_bw\":0,\"bus_bw\":0,\"nwrong\":0},\"in_place\":null},"
    "{\"size\":64,\"count\":16,\"type\":\"float\",\"redop\":\"sum\",\"root\":\"-1\","
    "\"out_of_place\":{\"time\":%.2f,\"alg_bw\":0,\"bus_bw\":0,\"nwrong\":0},\"in_place\":null}]}",
    t8, t64);
  put_file(name, buf);
}

static int setup(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/nn-report-XXXXXX");
  assert_non_null(mkdtemp(dir));
  char runs[96];
  snprintf(runs, sizeof runs, "%s/runs", dir);
  mkdir(runs, 0755);
  put_file("meta", "format 1\nkind ab\nhost h\nnccl 2.28.9\ngpus 2\nsizes -b 8 -e 64 -f 8\n"
                   "iters 20\nwarmup 5\nrepeats 3\narm stock kind=stock\n"
                   "arm numa kind=numa sha256=abc config=/etc/x y.conf\n");
  /* repeat r: stock, numa for all_reduce; then stock, numa for all_gather */
  put_file("runs.tsv", "1\t1\tstock\tall_reduce\t0\t1\truns/1.out\truns/1.env\n"
                       "2\t1\tnuma\tall_reduce\t0\t1\truns/2.out\truns/2.env\n"
                       "3\t1\tstock\tall_gather\t0\t1\truns/3.out\truns/3.env\n"
                       "4\t1\tnuma\tall_gather\t0\t1\truns/4.out\truns/4.env\n"
                       "5\t2\tstock\tall_reduce\t0\t1\truns/5.out\truns/5.env\n"
                       "6\t2\tnuma\tall_reduce\t0\t1\truns/6.out\truns/6.env\n"
                       "7\t2\tstock\tall_gather\t0\t1\truns/7.out\truns/7.env\n"
                       "8\t2\tnuma\tall_gather\t1\t1\truns/8.out\truns/8.env\n"
                       "9\t3\tstock\tall_reduce\t0\t1\truns/9.out\truns/9.env\n"
                       "10\t3\tnuma\tall_reduce\t0\t1\truns/10.out\truns/10.env\n");
  text_out("runs/1.out", 20.0, 30.0, 0);
  json_out("runs/2.out", 15.0, 30.1);
  text_out("runs/3.out", 20.0, 40.0, 0);
  text_out("runs/4.out", 21.0, 40.0, 0);
  text_out("runs/5.out", 20.2, 30.2, 0);
  text_out("runs/6.out", 15.1, 30.0, 0);
  text_out("runs/7.out", 20.1, 40.1, 0);
  text_out("runs/8.out", 21.0, 40.0, 0); /* numbers fine, but the run exited 1 */
  text_out("runs/9.out", 20.1, 30.1, 0);
  put_file("runs/10.out", "# SYNTHETIC\n#       size         count      type   redop    root     "
                          "time   algbw   busbw  #wrong     time   algbw   busbw  #wrong\n"
                          "           8             2     float     sum      -1    15.05    0.00   "
                          " 0.00       0    15.0    0.00    0.00       0\n"
                          "          64            16     float     sum      -1    30.05    0.00   "
                          " 0.00       4    30.0    0.00    0.00       0\n");
  return 0;
}

static int teardown(void **state) {
  (void)state;
  return nn_test_remove_tree(dir);
}

static void read_back(void **state) {
  (void)state;
  struct nn_rundir rd;
  char err[256];
  assert_int_equal(nn_rundir_read(dir, &rd, err, sizeof err), 0);
  assert_int_equal(rd.n_arms, 2);
  assert_int_equal(rd.arms[1].kind, NN_ARM_NUMA);
  assert_string_equal(rd.arms[1].config, "/etc/x y.conf");
  assert_string_equal(rd.arms[1].sha256, "abc");
  assert_int_equal(rd.n_runs, 10);
  assert_int_equal(rd.runs[7].rc, 1);
  assert_int_equal(rd.repeats, 3);
  struct nn_series *s;
  int ns;
  assert_int_equal(nn_rundir_series(&rd, NULL, &s, &ns, err, sizeof err), 0);
  assert_int_equal(ns, 4);
  const struct nn_series *st = nn_rundir_series_find(s, ns, "stock", "all_reduce");
  const struct nn_series *nu = nn_rundir_series_find(s, ns, "numa", "all_reduce");
  assert_non_null(st);
  assert_non_null(nu);
  assert_int_equal(st->n_runs, 3);
  assert_int_equal(st->ranks, 2);
  assert_string_equal(st->device, "SYNTH GPU");
  const struct nn_point *s8 = nn_rundir_series_point(st, 8), *n8 = nn_rundir_series_point(nu, 8);
  assert_true(fabs(s8->median - 20.1) < 1e-9);
  assert_true(fabs(s8->max - s8->min - 0.2) < 1e-9);
  assert_true(fabs(n8->median - 15.05) < 1e-9); /* JSON, text, text */
  assert_int_equal(nn_verdict_compare(s8, n8), NN_VERDICT_FASTER);
  assert_int_equal(nn_verdict_compare(n8, s8), NN_VERDICT_SLOWER);
  /* 64 B: numa's third run had #wrong 4: failed, never a speed result */
  const struct nn_point *n64 = nn_rundir_series_point(nu, 64);
  assert_true(n64->failed);
  assert_int_equal(nn_verdict_compare(nn_rundir_series_point(st, 64), n64), NN_VERDICT_FAILED);
  /* all_gather numa: one run exited 1: every size failed, fewer repeats */
  const struct nn_series *ga = nn_rundir_series_find(s, ns, "numa", "all_gather");
  assert_int_equal(ga->n_failed_runs, 1);
  assert_true(nn_rundir_series_point(ga, 8)->failed);
  assert_true(nn_rundir_series_point(ga, 64)->failed);
  /* stock all_gather 64 B vs itself: within noise */
  const struct nn_point *g64 =
    nn_rundir_series_point(nn_rundir_series_find(s, ns, "stock", "all_gather"), 64);
  assert_int_equal(nn_verdict_compare(g64, g64), NN_VERDICT_NOISE);
  nn_rundir_series_free(s, ns);
  nn_rundir_free(&rd);
}

static void verdict_rules(void **state) {
  (void)state;
  double a[] = {10, 10.5}, b[] = {9, 9.2}, one[] = {5};
  struct nn_point pa = {.size = 8, .times = a, .n_ok = 2, .median = 10.25, .min = 10, .max = 10.5};
  struct nn_point pb = {.size = 8, .times = b, .n_ok = 2, .median = 9.1, .min = 9, .max = 9.2};
  assert_int_equal(nn_verdict_compare(&pa, &pb), NN_VERDICT_FASTER);
  pb.median = 9.8; /* gain 0.45 < spread 0.5 */
  assert_int_equal(nn_verdict_compare(&pa, &pb), NN_VERDICT_NOISE);
  struct nn_point p1 = {.size = 8, .times = one, .n_ok = 1, .median = 5, .min = 5, .max = 5};
  assert_int_equal(nn_verdict_compare(&pa, &p1), NN_VERDICT_UNKNOWN);
  assert_int_equal(nn_verdict_compare(&pa, NULL), NN_VERDICT_UNKNOWN);
  p1.failed = 1;
  assert_int_equal(nn_verdict_compare(&pa, &p1), NN_VERDICT_FAILED);
  assert_true(isnan(nn_rundir_median(NULL, 0)));
  double m[] = {3, 1, 2, 10};
  assert_true(nn_rundir_median(m, 4) == 2.5);
  char buf[32];
  nn_sizetext(256u << 20, buf, sizeof buf);
  assert_string_equal(buf, "256 MiB");
  nn_sizetext(1000, buf, sizeof buf);
  assert_string_equal(buf, "1000 B");
  uint64_t v;
  assert_int_equal(nn_rundir_size_parse("256M", &v), 0);
  assert_true(v == 256u << 20);
  assert_int_equal(nn_rundir_size_parse("99999999999999999999T", &v), -1);
  assert_int_equal(nn_rundir_size_parse("8X", &v), -1);
  assert_int_equal(nn_rundir_size_parse("64kB", &v), 0); /* a B after the unit is allowed */
  assert_true(v == 64u << 10);
  assert_int_equal(nn_rundir_size_parse("8", &v), 0);
  assert_true(v == 8);
  assert_int_equal(nn_rundir_size_parse("16777216T", &v), -1); /* 2^64 */
  v = 7;
  const char *bad[] = {"", "8B", "B", "K", " 8", "8 ", "-8", "8KBB", "0x10"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    assert_int_equal(nn_rundir_size_parse(bad[i], &v), -1);
  assert_int_equal(nn_rundir_size_parse(NULL, &v), -1);
  assert_true(v == 7);
}

static void markdown(void **state) {
  (void)state;
  char err[256], path[128];
  assert_int_equal(nn_report_write(dir, 0, NULL, NULL, err, sizeof err), 0);
  snprintf(path, sizeof path, "%s/report.md", dir);
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  char text[16384];
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = 0;
  assert_non_null(strstr(text, "NCCL version: 2.28.9"));
  assert_non_null(strstr(text, "sha256 `abc`"));
  assert_non_null(strstr(text, "## all_reduce"));
  /* one column per arm (median ± spread) and one against the baseline (ratio and verdict) */
  assert_non_null(strstr(text, "\n| size | stock | numa | vs stock |\n|---:|---:|---:|:---|\n"));
  assert_non_null(strstr(text, "\n| 8 B | 20.10 ±0.20 | 15.05 ±0.10 | 1.336x faster |\n"));
  assert_non_null(strstr(text, "\n| 64 B | 30.10 ±0.20 | FAILED (2/3 good) | FAILED |\n"));
  assert_non_null(strstr(text, "## all_gather"));
  assert_non_null(strstr(text, "\n| 8 B | 20.05 ±0.10 | FAILED (1/2 good) | FAILED |\n"));
  assert_non_null(strstr(text, "1 run(s) failed"));
  assert_int_equal(nn_report_write("/nonexistent/run", 0, NULL, NULL, err, sizeof err), -1);
  assert_non_null(strstr(err, "/nonexistent/run: cannot open the run directory"));
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(read_back), cmocka_unit_test(verdict_rules),
                                     cmocka_unit_test(markdown)};
  return cmocka_run_group_tests(tests, setup, teardown);
}
