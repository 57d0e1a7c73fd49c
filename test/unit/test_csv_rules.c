/* SPDX-License-Identifier: BSD-3-Clause */
/* test_csv_rules.c - NCCL example-tuner CSV files read into rules. */
#include "nn_test.h"

#include "csv_rules.h"

#define FIX "test/fixtures/csv-rules/"

static void good_file(void **state) {
  (void)state;
  struct nn_rule *r = NULL;
  int n = -1;
  struct nn_diag d = {0};
  int rc = nn_csv_rules_load(FIX "good.csv", &r, &n, &d);
  for (int i = 0; i < d.n; i++) fprintf(stderr, "%s\n", d.msgs[i]);
  assert_int_equal(rc, 0);
  assert_int_equal(d.n, 0);
  assert_int_equal(n, 7);
  /* allreduce,0,65536,tree,simple,2,1,-1,-1,1 */
  assert_int_equal(r[0].coll, NN_COLL_ALLREDUCE);
  assert_int_equal(r[0].bytes_lo, 0);
  assert_int_equal(r[0].bytes_hi, 65536);
  assert_int_equal(r[0].algo, NN_ALGO_TREE);
  assert_int_equal(r[0].proto, NN_PROTO_SIMPLE);
  assert_int_equal(r[0].channels, 2);
  assert_int_equal(r[0].nodes_lo, 1);
  assert_int_equal(r[0].nodes_hi, 1);
  assert_int_equal(r[0].ranks_lo, 0);
  assert_true(r[0].ranks_hi == NN_UNBOUNDED);
  assert_int_equal(r[0].pipeops, NN_ANY);
  assert_int_equal(r[0].regbuff, 1);
  assert_int_equal(r[0].scope, NN_SCOPE_ANY);
  assert_int_equal(r[0].line, 3);
  assert_string_equal(r[0].file, FIX "good.csv");
  /* allreduce,65537,1048576,ring,simple,4,4,32,1,0 */
  assert_int_equal(r[1].line, 6);
  assert_int_equal(r[1].ranks_lo, 32);
  assert_int_equal(r[1].ranks_hi, 32);
  assert_int_equal(r[1].pipeops, 1);
  assert_int_equal(r[1].regbuff, 0);
  /* spaces around fields, upper case, -1 channels */
  assert_int_equal(r[2].bytes_lo, 1048577);
  assert_int_equal(r[2].bytes_hi, 4294967295ull);
  assert_int_equal(r[2].proto, NN_PROTO_LL128);
  assert_int_equal(r[2].channels, 0);
  assert_int_equal(r[2].pipeops, 4);
  /* 8 fields: pipeops and regbuff any */
  assert_int_equal(r[3].coll, NN_COLL_BROADCAST);
  assert_int_equal(r[3].pipeops, NN_ANY);
  assert_int_equal(r[3].regbuff, NN_ANY);
  /* quoted field, -1 max bytes = no bound */
  assert_int_equal(r[4].coll, NN_COLL_ALLGATHER);
  assert_int_equal(r[4].algo, NN_ALGO_RING);
  assert_true(r[4].bytes_hi == NN_UNBOUNDED);
  /* 9 fields */
  assert_int_equal(r[5].pipeops, 2);
  assert_int_equal(r[5].regbuff, NN_ANY);
  /* algorithm -1: protocol only */
  assert_int_equal(r[6].algo, NN_ANY);
  assert_int_equal(r[6].proto, NN_PROTO_LL);
  assert_int_equal(r[6].ranks_lo, 8);
  free(r);
}

static void bad_file(void **state) {
  (void)state;
  struct nn_rule *r = (struct nn_rule *)1;
  int n = -1;
  struct nn_diag d = {0};
  assert_int_equal(nn_csv_rules_load(FIX "bad.csv", &r, &n, &d), -1);
  assert_null(r);
  assert_int_equal(n, 0);
  static const char *const want[] = {
    FIX "bad.csv:3: 7 fields; expected 8 to 10",
    FIX "bad.csv:4: unknown collective 'alltoall'",
    FIX "bad.csv:5: unknown algorithm 'treee'",
    FIX "bad.csv:6: unknown protocol 'll64'",
    FIX "bad.csv:7: min_bytes 100 is above max_bytes 10",
    FIX "bad.csv:8: max_bytes '1e6' is not a byte count",
    FIX "bad.csv:9: channels '65' must be -1 or 1..64",
    FIX "bad.csv:10: regBuff '2' must be -1 or 0..1",
    FIX "bad.csv:11: the line chooses nothing",
    FIX "bad.csv:12: more than 10 fields",
    FIX "bad.csv:13: nNodes '0' must be -1 or 1..",
  };
  for (int i = 0; i < d.n; i++) fprintf(stderr, "%s\n", d.msgs[i]);
  assert_int_equal(d.n, (int)(sizeof want / sizeof want[0]));
  for (int i = 0; i < d.n; i++)
    if (strncmp(d.msgs[i], want[i], strlen(want[i])))
      fail_msg("got '%s', want '%s'", d.msgs[i], want[i]);
  nn_diag_clear(&d);
}

static void edge_cases(void **state) {
  (void)state;
  struct nn_rule *r;
  int n;
  struct nn_diag d = {0};
  assert_int_equal(nn_csv_rules_parse("empty.csv", "", 0, &r, &n, &d), 0);
  assert_int_equal(n, 0);
  assert_null(r);
  assert_int_equal(nn_csv_rules_load("/nonexistent/rules.csv", &r, &n, &d), -1);
  assert_int_equal(d.n, 1);
  assert_non_null(strstr(d.msgs[0], "/nonexistent/rules.csv: cannot open:"));
  nn_diag_clear(&d);
  assert_int_equal(nn_csv_rules_load("/tmp", &r, &n, &d), -1);
  assert_non_null(strstr(d.msgs[0], "not a regular file"));
  nn_diag_clear(&d);
  const char nul[] = "allreduce,0,1,ring,ll,-1,-1,-1\nall\0reduce,0,1,ring,ll,-1,-1,-1\n";
  assert_int_equal(nn_csv_rules_parse("n.csv", nul, sizeof nul - 1, &r, &n, &d), -1);
  assert_non_null(strstr(d.msgs[0], "n.csv:2: NUL byte"));
  nn_diag_clear(&d);
  char *longl = malloc(NN_MAX_LINE_BYTES + 10);
  memset(longl, ',', NN_MAX_LINE_BYTES + 9);
  longl[NN_MAX_LINE_BYTES + 9] = 0;
  assert_int_equal(nn_csv_rules_parse("l.csv", longl, strlen(longl), &r, &n, &d), -1);
  assert_non_null(strstr(d.msgs[0], "l.csv:1: line longer than"));
  nn_diag_clear(&d);
  free(longl);
  const char *big = "allreduce,0,99999999999999999999999,ring,ll,-1,-1,-1\n";
  assert_int_equal(nn_csv_rules_parse("b.csv", big, strlen(big), &r, &n, &d), -1);
  assert_non_null(strstr(d.msgs[0], "not a byte count"));
  nn_diag_clear(&d);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(good_file), cmocka_unit_test(bad_file),
                                     cmocka_unit_test(edge_cases)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
