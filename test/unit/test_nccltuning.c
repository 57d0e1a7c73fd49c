/* SPDX-License-Identifier: BSD-3-Clause */
/* test_nccltuning.c - NCCL's tuning table read from synthetic logs: found, missing,
 * truncated, two communicators interleaved, hostile input. */
#include "nn_test.h"
#include "nn_tuning_fixture.h"

#include "nccl_model.h"
#include "nn_config.h"

static void one_table(void **state) {
  (void)state;
  struct nn_nccltuning t;
  char err[256] = "";
  assert_int_equal(
    nn_test_tuning_file(NN_NCCLTUNING_FIX "synthetic-tuning-info.txt", &t, err, sizeof err),
    NN_NCCLTUNING_FOUND);
  assert_int_equal(t.n_tables, 1);
  assert_int_equal(t.n_truncated, 0);
  assert_int_equal(t.n_funcs, 5);
  assert_int_equal(t.n_algos, 7);  /* three blocks: 3 + 3 + 1 */
  assert_int_equal(t.n_protos, 3); /* the last block's Protocol row repeats them: no more */
  assert_int_equal(t.first_line, 12);
  assert_int_equal(nn_nccltuning_enabled(&t, "AllReduce", "Ring", "LL"), 1);
  assert_int_equal(nn_nccltuning_enabled(&t, "all_reduce", "ring", "simple"), 1);
  assert_int_equal(nn_nccltuning_enabled(&t, "AllReduce", "Ring", "LL128"), 0);
  assert_int_equal(nn_nccltuning_enabled(&t, "AllReduce", "tree", "ll"), 1);
  assert_int_equal(nn_nccltuning_enabled(&t, "AllGather", "tree", "ll"), 0);
  assert_int_equal(nn_nccltuning_enabled(&t, "AllGather", "nvls_tree", "simple"), 0);
  assert_int_equal(nn_nccltuning_enabled(&t, "AllGather", "PAT", "Simple"), 0);
  assert_int_equal(nn_nccltuning_enabled(&t, "AllToAll", "Ring", "LL"), -1);
  assert_int_equal(nn_nccltuning_enabled(&t, "AllReduce", "Warp", "LL"), -1);
  /* the same cells by the project's enums, through NCCL's names (nn_nccl_name) */
  float lat = -1, bw = -1;
  assert_int_equal(nn_nccltuning_cell(&t, NN_COLL_ALLREDUCE, NN_ALGO_RING, NN_PROTO_LL, &lat, &bw),
                   1);
  assert_true(bw > 0);
  assert_int_equal(
    nn_nccltuning_cell(&t, NN_COLL_ALLREDUCE, NN_ALGO_RING, NN_PROTO_LL128, &lat, &bw), 0);
  assert_int_equal(
    nn_nccltuning_cell(&t, NN_COLL_ALLGATHER, NN_ALGO_NVLS_TREE, NN_PROTO_SIMPLE, &lat, &bw), 0);
  assert_int_equal(nn_nccltuning_cell(&t, NN_COLL_COUNT, NN_ALGO_RING, NN_PROTO_LL, &lat, &bw), -1);
  /* the model itself: "AllReduce | 4.6/ 2.9 | ... | 9.5/ 11.2 |" (Tree LL, Ring Simple) */
  int f = -1, tree = -1, ring = -1;
  for (int i = 0; i < t.n_funcs; i++)
    if (!strcmp(t.funcs[i], "AllReduce")) f = i;
  for (int i = 0; i < t.n_algos; i++) {
    if (!strcmp(t.algos[i], "Tree")) tree = i;
    if (!strcmp(t.algos[i], "Ring")) ring = i;
  }
  assert_true(f >= 0 && tree >= 0 && ring >= 0);
  assert_true(t.lat[f][tree][0] > 4.55f && t.lat[f][tree][0] < 4.65f);
  assert_true(t.bw[f][tree][0] > 2.85f && t.bw[f][tree][0] < 2.95f);
  assert_true(t.lat[f][ring][2] > 9.45f && t.lat[f][ring][2] < 9.55f);
  assert_true(t.bw[f][ring][2] > 11.15f && t.bw[f][ring][2] < 11.25f);
}

static void no_table(void **state) {
  (void)state;
  struct nn_nccltuning t;
  char err[256] = "";
  assert_int_equal(
    nn_test_tuning_file(NN_NCCLTUNING_FIX "synthetic-allreduce-info.txt", &t, err, sizeof err),
    NN_NCCLTUNING_NONE);
  assert_non_null(strstr(err, "no NCCL tuning table"));
  assert_int_equal(t.n_tables, 0);
  assert_int_equal(nn_nccltuning_parse("", 0, &t, err, sizeof err), NN_NCCLTUNING_NONE);
  /* the Func/Proto/Algo matrix NCCL prints when NCCL_ALGO/NCCL_PROTO are set is no table */
  const char *matrix = "h:1:1 [0] NCCL INFO Enabled NCCL Func/Proto/Algo Matrix:\n"
                       "     Function |       LL     LL128    Simple   |          Tree  \n"
                       "    AllReduce |        1         2         1   |             1  \n";
  assert_int_equal(nn_nccltuning_parse(matrix, strlen(matrix), &t, err, sizeof err),
                   NN_NCCLTUNING_NONE);
}

static void truncated(void **state) {
  (void)state;
  struct nn_nccltuning t;
  char err[256] = "";
  assert_int_equal(
    nn_test_tuning_file(NN_NCCLTUNING_FIX "synthetic-tuning-truncated.txt", &t, err, sizeof err),
    NN_NCCLTUNING_TRUNCATED);
  assert_non_null(strstr(err, "line 25:")); /* the cut AllGather row of block 2 */
  assert_non_null(strstr(err, "breaks off"));
  assert_int_equal(t.n_tables, 0);
  assert_int_equal(t.n_truncated, 1);

  /* cut at the end of a row: the first block lacks AllReduce */
  size_t len;
  char *b = nn_test_slurp(NN_NCCLTUNING_FIX "synthetic-tuning-info.txt", &len);
  char *cut = strstr(b, "ReduceScatter |");
  assert_non_null(cut);
  cut = strchr(cut, '\n');
  assert_int_equal(nn_nccltuning_parse(b, (size_t)(cut + 1 - b), &t, err, sizeof err),
                   NN_NCCLTUNING_TRUNCATED);
  /* a complete table followed by a broken one: the complete one counts */
  size_t n2 = len + (size_t)(cut + 1 - b);
  char *two = malloc(n2);
  assert_non_null(two);
  memcpy(two, b, len);
  memcpy(two + len, b, (size_t)(cut + 1 - b));
  assert_int_equal(nn_nccltuning_parse(two, n2, &t, err, sizeof err), NN_NCCLTUNING_FOUND);
  assert_int_equal(t.n_tables, 1);
  assert_int_equal(t.n_truncated, 1);
  free(two);
  free(b);
}

static void two_communicators(void **state) {
  (void)state;
  struct nn_nccltuning t;
  char err[256] = "";
  assert_int_equal(
    nn_test_tuning_file(NN_NCCLTUNING_FIX "synthetic-tuning-two-comms.txt", &t, err, sizeof err),
    NN_NCCLTUNING_FOUND);
  assert_int_equal(t.n_tables, 2);
  assert_int_equal(t.n_truncated, 0);
  assert_int_equal(t.n_algos, 7); /* the union: the 2.22-layout table has no PAT */
  /* only the second communicator enables ring/LL128 for AllReduce: the union has it */
  assert_int_equal(nn_nccltuning_enabled(&t, "AllReduce", "Ring", "LL128"), 1);
  assert_int_equal(nn_nccltuning_enabled(&t, "AllGather", "Ring", "LL128"), 0);
  assert_int_equal(nn_nccltuning_enabled(&t, "AllReduce", "Tree", "Simple"), 1);
}

/* The same thread printing two tables one after the other: two communicators. */
static void same_thread_twice(void **state) {
  (void)state;
  size_t len;
  char *b = nn_test_slurp(NN_NCCLTUNING_FIX "synthetic-tuning-info.txt", &len);
  char *two = malloc(2 * len);
  assert_non_null(two);
  memcpy(two, b, len);
  memcpy(two + len, b, len);
  struct nn_nccltuning t;
  char err[256];
  assert_int_equal(nn_nccltuning_parse(two, 2 * len, &t, err, sizeof err), NN_NCCLTUNING_FOUND);
  assert_int_equal(t.n_tables, 2);
  free(two);
  free(b);
}

/* Bare rows without NCCL's prefix (a log written elsewhere), with CRLF. */
static void bare_rows(void **state) {
  (void)state;
  const char *s = "  Algorithm   |      x      Ring      x |\r\n"
                  "  Protocol    |   LL |  Simple |\r\n"
                  "    AllReduce |  5.0/  1.0 | 9.0/ 0.0 |\r\n";
  struct nn_nccltuning t;
  char err[256];
  /* "x" cells: one algorithm name per cell is required */
  assert_int_equal(nn_nccltuning_parse(s, strlen(s), &t, err, sizeof err), NN_NCCLTUNING_TRUNCATED);
  const char *ok = "  Algorithm   |           Ring        |\r\n"
                   "  Protocol    |   LL |  Simple |\r\n"
                   "    AllReduce |  5.0/  1.0 | 9.0/ 0.0 |\r\n";
  assert_int_equal(nn_nccltuning_parse(ok, strlen(ok), &t, err, sizeof err), NN_NCCLTUNING_FOUND);
  assert_int_equal(nn_nccltuning_enabled(&t, "AllReduce", "Ring", "LL"), 1);
  assert_int_equal(nn_nccltuning_enabled(&t, "AllReduce", "Ring", "Simple"), 0);
}

/* NCCL 2.31 (src/tuning/tuning.cc): -1.0/-1.0 for the models it hard-disables, and no
 * " Max NThreads" row (built but never logged). Shape from nccl-oracle on the dev branch. */
static void release_231(void **state) {
  (void)state;
  struct nn_nccltuning t;
  nn_test_tuning_231(&t);
  assert_int_equal(nn_nccltuning_enabled(&t, "Broadcast", "Tree", "LL"), 0);
  assert_int_equal(nn_nccltuning_enabled(&t, "Broadcast", "Ring", "LL"), 1);
  assert_int_equal(nn_nccltuning_enabled(&t, "AllReduce", "Tree", "Simple"), 1);
  /* LL128 logged with numbers; whether it runs over PCIe is the release's (nccl_model.h) */
  assert_int_equal(nn_nccltuning_enabled(&t, "AllReduce", "Ring", "LL128"), 1);
  assert_int_equal(nn_nccltuning_proto_runs_pcie(NN_NCCL_VERSION(2, 31, 2), NN_PROTO_LL128), 0);
  assert_int_equal(nn_nccltuning_proto_runs_pcie(NN_NCCL_VERSION(2, 31, 0), NN_PROTO_LL128), 1);
  assert_int_equal(nn_nccltuning_proto_runs_pcie(NN_NCCL_VERSION(2, 28, 9), NN_PROTO_LL128),
                   1); /* its table's word */
  assert_int_equal(nn_nccltuning_proto_runs_pcie(0, NN_PROTO_LL128), 1);
  for (int p = 0; p < NN_PROTO_COUNT; p++)
    if (p != NN_PROTO_LL128)
      assert_int_equal(nn_nccltuning_proto_runs_pcie(NN_NCCL_VERSION(2, 31, 2), p), 1);
}

static void hostile(void **state) {
  (void)state;
  struct nn_nccltuning t;
  char err[64];
  const char *cases[] = {
    "|",
    "||||",
    "  Algorithm   |",
    "  Algorithm   ||||\n  Protocol |||\n",
    "  Protocol    | LL |\n    AllReduce | 1/1 |\n",
    "  Algorithm   | Ring |\n  Protocol    | LL |\n    AllReduce | 1/-2 |\n",
    "  Algorithm   | Ring |\n  Protocol    | LL |\n    AllReduce | nan/1 |\n",
    "  Algorithm   | Ring |\n  Protocol    | LL |\n    AllReduce | 1/1 | 2/2 |\n",
    "  Algorithm   | Ring |\n  Protocol    | LL |\n    AllReduce | 1/1 |\n    AllReduce | 1/1 |\n",
    "  Algorithm   | Ring | Ring |\n  Protocol    | LL | LL |\n    AllReduce | 1/1 | 1/1 |\n",
    "  Algorithm   | R1 | R2 | R3 | R4 | R5 | R6 | R7 | R8 | R9 | R10 | R11 | R12 | R13 |\n",
    "  Algorithm   | Ring |\n  Protocol    | A | B | C | D | E | F | G |\n",
    "  Algorithm   | AVeryLongAlgorithmNameThatDoesNotFit |\n",
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    assert_int_not_equal(nn_nccltuning_parse(cases[i], strlen(cases[i]), &t, err, sizeof err),
                         NN_NCCLTUNING_FOUND);
  /* many threads, a long line, NUL bytes, no final newline */
  size_t big = 300000;
  char *b = malloc(big);
  assert_non_null(b);
  for (size_t i = 0; i < big; i++) b[i] = "ab|/ 1.\n\0x[]"[i * 7 % 13];
  memset(b + 1000, '|', 9000);
  (void)nn_nccltuning_parse(b, big, &t, err, sizeof err);
  size_t off = 0;
  for (int k = 0; k < 40 && off + 200 < big; k++)
    off += (size_t)snprintf(b + off, 200, "h:1:%d [0] NCCL INFO   Algorithm   | Ring |\n", k);
  (void)nn_nccltuning_parse(b, off, &t, err, sizeof err);
  free(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(one_table),         cmocka_unit_test(no_table),
    cmocka_unit_test(truncated),         cmocka_unit_test(two_communicators),
    cmocka_unit_test(same_thread_twice), cmocka_unit_test(bare_rows),
    cmocka_unit_test(hostile),           cmocka_unit_test(release_231),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
