/* SPDX-License-Identifier: BSD-3-Clause */
/* test_nccltests_shared.c - CI-only: the parser on the real nccl-tests outputs kept in
 * ../shared/fixtures/nccl-tests (next to the repository); skipped when absent. */
#include "nn_test.h"

#include <dirent.h>
#include <math.h>

#include "cli/sweep/nccltests.h"

static const char *shared_dir(void) {
  const char *d = getenv("NN_SHARED_DIR");
  return d ? d : "../shared/fixtures/nccl-tests";
}

static int parse_named(const char *name, struct nn_nccltests_result *r, char *err, size_t errsz) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", shared_dir(), name);
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(err, errsz, "cannot open %.200s", path);
    return -2;
  }
  char *buf = malloc(1 << 20);
  if (!buf) {
    fclose(f);
    snprintf(err, errsz, "out of memory");
    return -2;
  }
  size_t n = fread(buf, 1, (1 << 20) - 1, f);
  fclose(f);
  int rc = nn_nccltests_parse(buf, n, r, err, errsz);
  free(buf);
  return rc;
}

/* Parses a file that must parse; fails the test with the parser's message otherwise. */
static void parse_known(const char *name, struct nn_nccltests_result *r) {
  char err[256];
  if (parse_named(name, r, err, sizeof err)) fail_msg("%s: %s", name, err);
}

static void every_file_parses(void **state) {
  (void)state;
  DIR *d = opendir(shared_dir());
  assert_non_null(d);
  int files = 0;
  for (struct dirent *e; (e = readdir(d));) {
    size_t n = strlen(e->d_name);
    if (n < 5 || strcmp(e->d_name + n - 4, ".txt")) continue;
    struct nn_nccltests_result r;
    char err[256];
    int rc = parse_named(e->d_name, &r, err, sizeof err);
    if (rc) fail_msg("%s: %s", e->d_name, err);
    assert_true(r.n_rows > 0);
    for (int i = 0; i < r.n_rows; i++) {
      assert_true(r.rows[i].oop.present);
      assert_true(r.rows[i].oop.time_us > 0);
      assert_false(nn_nccltests_row_failed(&r.rows[i])); /* every published run passed */
    }
    nn_nccltests_free(&r);
    files++;
  }
  closedir(d);
  assert_true(files >= 10);
}

static void known_values(void **state) {
  (void)state;
  struct nn_nccltests_result r;
  /* in-place columns widened and misaligned */
  parse_known("Anthony-Hoo.github.io_file_2080ti-1gpu_reduce-widecols.txt", &r);
  assert_int_equal(r.n_rows, 28);
  assert_true(fabs(r.rows[27].oop.time_us - 4016.0) < 1e-9);
  assert_true(fabs(r.rows[27].inplace.time_us - 0.19) < 1e-9);
  nn_nccltests_free(&r);
  /* N/A in #wrong */
  parse_known("Anthony-Hoo.github.io_file_2080tix2-noP2P_alltoall-NA.txt", &r);
  assert_int_equal(r.rows[5].inplace.wrong_known, 0);
  assert_int_equal(r.n_ranks, 2);
  nn_nccltests_free(&r);
  /* every line indented */
  parse_known("cscs-docs_file_gh200x8-2node_allreduce-v2.17-indented.txt", &r);
  assert_int_equal(r.n_rows, 25);
  assert_int_equal(r.n_ranks, 8);
  assert_int_equal(r.n_hosts, 2);
  assert_string_equal(r.test_name, "all_reduce_perf");
  nn_nccltests_free(&r);
  /* newest header: nccl-library code */
  parse_known("aikitoria-open-gpu-kernel-modules_file_rtx5090x8-P2P_allreduce-v2.18.txt", &r);
  assert_string_equal(r.nccl_version, "2.29.7");
  assert_string_equal(r.tests_version, "2.18.2");
  assert_int_equal(r.n_ranks, 8);
  nn_nccltests_free(&r);
  /* bare "NCCL version" line inside the header, "Reducing maxBytes" line */
  parse_known(
    "schmaustech-nvidia-tools-image_file_l40s-2node-2gpu-RING_allreduce-reducing-maxbytes.txt", &r);
  assert_string_equal(r.nccl_version, "2.27.3");
  assert_int_equal(r.rows[r.n_rows - 1].size, 8589934592ull);
  nn_nccltests_free(&r);
}

int main(void) {
  DIR *d = opendir(shared_dir());
  if (!d) {
    printf("skipped: %s absent (CI-only test of real nccl-tests outputs)\n", shared_dir());
    return 77;
  }
  closedir(d);
  const struct CMUnitTest tests[] = {cmocka_unit_test(every_file_parses),
                                     cmocka_unit_test(known_values)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
