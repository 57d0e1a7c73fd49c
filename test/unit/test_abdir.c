/* SPDX-License-Identifier: BSD-3-Clause */
/* test_abdir.c - a sweep's run directory (cli/sweep/abdir.c): made fresh, never over an old
 * one (numbered names step aside), the command recorded, removed again when nothing ran. */
#include "nn_test.h"

#include <sys/stat.h>

#include "cli/sweep/abdir.h"

static void test_command(void **state) {
  (void)state;
  char *argv[] = {"ab", "--config", "m.conf", "-g", "8"};
  char buf[64], small[16];
  nn_abdir_command(5, argv, buf, sizeof buf);
  assert_string_equal(buf, "nccl-numa ab --config m.conf -g 8");
  nn_abdir_command(5, argv, small, sizeof small);
  assert_int_equal(strlen(small), sizeof small - 1);   /* cut to fit, terminated */
}

static void test_create_and_discard(void **state) {
  (void)state;
  char base[] = "/tmp/nn-abdir-XXXXXX", path[96], err[512];
  assert_non_null(mkdtemp(base));
  snprintf(path, sizeof path, "%s/run", base);
  struct nn_rundir a, b, c;
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  memset(&c, 0, sizeof c);
  assert_int_equal(nn_abdir_create(&a, path, 0, "ab", "nccl-numa ab", err, sizeof err), 0);
  assert_string_equal(a.kind, "ab");
  assert_string_equal(a.command, "nccl-numa ab");
  struct stat st;
  char runs[128];
  snprintf(runs, sizeof runs, "%s/runs", a.path);
  assert_int_equal(stat(runs, &st), 0);
  assert_true(S_ISDIR(st.st_mode));
  /* a name the user chose is never reused; a default one steps aside to PATH-2 */
  assert_int_equal(nn_abdir_create(&b, path, 0, "ab", "x", err, sizeof err), -1);
  assert_non_null(strstr(err, "runs are never overwritten"));
  assert_int_equal(nn_abdir_create(&c, path, 1, "ab", "x", err, sizeof err), 0);
  assert_non_null(strstr(c.path, "/run-2"));
  /* nothing ran: both removed */
  assert_int_equal(nn_abdir_discard_empty(&a), 1);
  assert_int_equal(nn_abdir_discard_empty(&c), 1);
  assert_int_equal(access(path, F_OK), -1);
  free(a.path);
  free(c.path);
  assert_int_equal(rmdir(base), 0);
}

/* Something ran: the directory stays. */
static void test_kept_when_used(void **state) {
  (void)state;
  char base[] = "/tmp/nn-abdir-XXXXXX", path[96], err[512], out[160];
  assert_non_null(mkdtemp(base));
  snprintf(path, sizeof path, "%s/run", base);
  struct nn_rundir a;
  memset(&a, 0, sizeof a);
  assert_int_equal(nn_abdir_create(&a, path, 0, "ab", "x", err, sizeof err), 0);
  snprintf(out, sizeof out, "%s/runs/0001.out", a.path);
  FILE *f = fopen(out, "w");
  assert_non_null(f);
  fclose(f);
  assert_int_equal(nn_abdir_discard_empty(&a), 0);
  assert_int_equal(access(out, F_OK), 0);
  unlink(out);
  assert_int_equal(nn_abdir_discard_empty(&a), 1);
  free(a.path);
  assert_int_equal(rmdir(base), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_command), cmocka_unit_test(test_create_and_discard),
                                     cmocka_unit_test(test_kept_when_used)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
