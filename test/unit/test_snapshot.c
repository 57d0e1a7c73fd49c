/* SPDX-License-Identifier: BSD-3-Clause */
/* test_snapshot.c - reading a mapping whole and knowing whether it changed since
 * (plugin/core/snapshot.c): keys, the read, its refusals, and recordings. */
#include "nn_test.h"

#include <sys/stat.h>

#include "snapshot.h"

static void test_read_and_keys(void **state) {
  (void)state;
  char *f = nn_test_write_file("gpu 0 bus=01:00.0 numa=0\n");
  char *buf = NULL, err[512] = "x";
  size_t len = 0;
  assert_int_equal(nn_snapshot_read(f, 1 << 20, &buf, &len, err, sizeof err), NN_SNAP_OK);
  assert_string_equal(buf, "gpu 0 bus=01:00.0 numa=0\n");
  assert_int_equal(len, 25);
  assert_string_equal(err, "");
  free(buf);
  struct nn_file_key a, b;
  nn_snapshot_key_of(f, &a);
  nn_snapshot_key_of(f, &b);
  assert_true(nn_snapshot_key_equal(&a, &b));
  FILE *w = fopen(f, "a");
  assert_non_null(w);
  fputs("numa 0 cpus=0-3\n", w);
  fclose(w);
  nn_snapshot_key_of(f, &b);
  assert_false(nn_snapshot_key_equal(&a, &b)); /* the size changed */
  assert_int_equal(nn_snapshot_read(f, 8, &buf, &len, err, sizeof err),
                   NN_SNAP_ERROR); /* too large */
  assert_null(buf);
  assert_non_null(strstr(err, f));
  unlink(f);
  free(f);
}

static void test_refusals(void **state) {
  (void)state;
  char *buf = (char *)1, err[512];
  size_t len;
  assert_int_equal(nn_snapshot_read("/nonexistent/m.conf", 1 << 20, &buf, &len, err, sizeof err),
                   NN_SNAP_ERROR);
  assert_null(buf);
  assert_non_null(strstr(err, "/nonexistent/m.conf"));
  assert_int_equal(nn_snapshot_read("/tmp", 1 << 20, &buf, &len, err, sizeof err),
                   NN_SNAP_ERROR); /* not a file */
  char *f = nn_test_write_file("x\n");
  chmod(f, 0666); /* writable by others: not trusted */
  assert_int_equal(nn_snapshot_read(f, 1 << 20, &buf, &len, err, sizeof err), NN_SNAP_ERROR);
  assert_non_null(strstr(err, "not trusted"));
  unlink(f);
  free(f);
}

/* A recording names the files read; it stays current until one changes. */
static void test_recording(void **state) {
  (void)state;
  char *f = nn_test_write_file("a\n");
  struct nn_snapshot_record r, again;
  char *buf, err[512];
  size_t len;
  nn_snapshot_record_begin(&r);
  assert_int_equal(nn_snapshot_read(f, 1 << 20, &buf, &len, err, sizeof err), NN_SNAP_OK);
  free(buf);
  nn_snapshot_record_end(&r);
  assert_int_equal(r.n, 1);
  assert_string_equal(r.files[0].path, f);
  assert_true(nn_snapshot_record_current(&r));
  nn_snapshot_record_begin(&again);
  assert_int_equal(nn_snapshot_read(f, 1 << 20, &buf, &len, err, sizeof err), NN_SNAP_OK);
  free(buf);
  nn_snapshot_record_end(&again);
  assert_true(nn_snapshot_record_equal(&r, &again));
  assert_true(r.hash == again.hash);
  FILE *w = fopen(f, "a");
  assert_non_null(w);
  fputs("b\n", w);
  fclose(w);
  assert_false(nn_snapshot_record_current(&r));
  nn_snapshot_record_free(&r);
  nn_snapshot_record_free(&again);
  unlink(f);
  free(f);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_read_and_keys),
                                     cmocka_unit_test(test_refusals),
                                     cmocka_unit_test(test_recording)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
