/* SPDX-License-Identifier: BSD-3-Clause */
/* test_compare.c - check --compare (cli/check/compare.c) on the plugin's INIT and TUNING
 * lines: one mapping everywhere, a host with another, missing ranks, bad input. */
#include "nn_test.h"

#include "cli/check/compare.h"

/* What the plugin logs for one rank (INIT line, two TUNING lines) and NCCL's Init COMPLETE. */
static void rank_lines(FILE *f, const char *host, int pid, int dev, int rank, const char *hash,
                       const char *rule) {
  fprintf(f,
          "%s:%d:%d [%d] NCCL INFO nccl-numa 0.1.0: tuner v5, config /etc/nccl-numa.conf hash %s "
          "(2 sockets), "
          "comm 0x0000000000000abc nRanks 4 nNodes 2 scope cross, 1 of 1 rules apply, constants "
          "unchanged\n",
          host, pid, pid, dev, hash);
  fprintf(f, "%s:%d:%d [%d] NCCL INFO nccl-numa:   allreduce     %s from /etc/nccl-numa.conf:3\n",
          host, pid, pid, dev, rule);
  fprintf(f, "%s:%d:%d [%d] NCCL INFO nccl-numa:   allreduce     65537-max -> NCCL default\n", host,
          pid, pid, dev);
  fprintf(f,
          "%s:%d:%d [%d] NCCL INFO ncclCommInitRank comm 0x5566 rank %d nranks 4 cudaDev %d "
          "nvmlDev %d busId 1000 "
          "commId 0xabc - Init COMPLETE\n",
          host, pid, pid, dev, rank, dev, dev);
}

/* A log of two ranks of one host; its malloc'd path. */
static char *host_log(const char *host, int first_rank, const char *hash, const char *rule) {
  char *path = nn_test_write_file("");
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  rank_lines(f, host, 100 + first_rank, 0, first_rank, hash, rule);
  rank_lines(f, host, 101 + first_rank, 1, first_rank + 1, hash, rule);
  fclose(f);
  return path;
}

/* Runs the comparison; the report and the problems as strings (malloc'd). */
static int compare(int n, char **files, char **report, char **problems) {
  size_t rl, pl;
  FILE *out = open_memstream(report, &rl), *err = open_memstream(problems, &pl);
  int rc = nn_compare_files(n, files, out, err);
  fclose(out);
  fclose(err);
  return rc;
}

static void drop(char **files, int n) {
  for (int i = 0; i < n; i++) {
    unlink(files[i]);
    *strrchr(files[i], '/') = 0; /* and the private directory nn_test_write_file made */
    assert_int_equal(rmdir(files[i]), 0);
    free(files[i]);
  }
}

static void test_same_mapping(void **state) {
  (void)state;
  char *files[] = {host_log("node-a", 0, "1234abcd", "0-64K -> ring/ll"),
                   host_log("node-b", 2, "1234abcd", "0-64K -> ring/ll")};
  char *report, *problems;
  assert_int_equal(compare(2, files, &report, &problems), 0);
  assert_non_null(
    strstr(report, "comm 0x0000000000000abc: 4 record(s) from 2 host(s), nRanks 4\n"));
  assert_non_null(
    strstr(report, "  ok: every rank used config hash 1234abcd and the same decision table"));
  free(report);
  free(problems);
  drop(files, 2);
}

static void test_other_mapping(void **state) {
  (void)state;
  char *files[] = {host_log("node-a", 0, "1234abcd", "0-64K -> ring/ll"),
                   host_log("node-b", 2, "99990000", "0-256K -> tree/ll")};
  char *report, *problems;
  assert_int_equal(compare(2, files, &report, &problems), 1);
  assert_non_null(strstr(report, "  MISMATCH: 2 different config contents (hash):\n"));
  assert_non_null(strstr(report, "    hash 99990000: node-b rank 2 ("));
  assert_non_null(strstr(report, "  MISMATCH: 2 different decision tables:\n"));
  assert_non_null(strstr(report, "      allreduce 0-256K -> tree/ll\n"));
  assert_non_null(strstr(report, "1 communicator(s), 1 with problems"));
  free(report);
  free(problems);
  drop(files, 2);
}

static void test_missing_ranks_and_files(void **state) {
  (void)state;
  char *files[] = {host_log("node-a", 0, "1234abcd", "0-64K -> ring/ll")};
  char *report, *problems;
  assert_int_equal(compare(1, files, &report, &problems), 1);
  assert_non_null(strstr(report, "  INCOMPLETE: records of 2 of 4 ranks"));
  free(report);
  free(problems);
  drop(files, 1);
  char *none[] = {"/nonexistent/nn-compare.json"};
  assert_int_equal(compare(1, none, &report, &problems), 1);
  assert_non_null(strstr(problems, "/nonexistent/nn-compare.json"));
  free(report);
  free(problems);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_same_mapping),
                                     cmocka_unit_test(test_other_mapping),
                                     cmocka_unit_test(test_missing_ranks_and_files)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
