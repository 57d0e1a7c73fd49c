/* SPDX-License-Identifier: BSD-3-Clause */
/* test_abdir.c - a sweep's run directory (cli/sweep/abdir.c): made fresh, never over an old
 * one (numbered names step aside), the command recorded, removed again when nothing ran. */
#include "nn_test.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "cli/sweep/abdir.h"

static void test_command(void **state) {
  (void)state;
  char *argv[] = {"ab", "--config", "m.conf", "-g", "8"};
  char buf[64], small[16];
  nn_abdir_command(5, argv, buf, sizeof buf);
  assert_string_equal(buf, "nccl-numa ab --config m.conf -g 8");
  nn_abdir_command(5, argv, small, sizeof small);
  assert_int_equal(strlen(small), sizeof small - 1); /* cut to fit, terminated */
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
  assert_int_equal(st.st_mode & 07777, 0700);
  assert_int_equal(stat(a.path, &st), 0);
  assert_int_equal(st.st_mode & 07777, 0700); /* the runs' environments are the operator's only */
  assert_true(a.dir_fd > 2);
  assert_int_equal(fstat(a.dir_fd, &st), 0);
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
  nn_rundir_free(&a);
  nn_rundir_free(&c);
  assert_int_equal(rmdir(base), 0);
}

/* Every file of a run is new, never through a link, 0600; one already there is appended to or
 * rewritten only by the modes that say so. */
static void test_files_created_private(void **state) {
  (void)state;
  char base[] = "/tmp/nn-abdir-XXXXXX", path[96], err[512];
  assert_non_null(mkdtemp(base));
  snprintf(path, sizeof path, "%s/run", base);
  struct nn_rundir a;
  memset(&a, 0, sizeof a);
  mode_t old = umask(0); /* a lax umask cannot widen the files */
  assert_int_equal(nn_abdir_create(&a, path, 0, "ab", "x", err, sizeof err), 0);
  umask(old);
  int fd = nn_rundir_openat(a.dir_fd, "runs/0001-x.out", NN_RUNDIR_NEW);
  assert_true(fd >= 0);
  struct stat st;
  assert_int_equal(fstat(fd, &st), 0);
  assert_int_equal(st.st_mode & 07777, 0600);
  close(fd);
  assert_int_equal(nn_rundir_openat(a.dir_fd, "runs/0001-x.out", NN_RUNDIR_NEW), -1);
  assert_int_equal(errno, EEXIST);
  assert_int_equal(symlinkat("/etc/passwd", a.dir_fd, "runs/link.env"), 0);
  assert_int_equal(nn_rundir_openat(a.dir_fd, "runs/link.env", NN_RUNDIR_NEW), -1);
  assert_int_equal(nn_rundir_openat(a.dir_fd, "runs/link.env", NN_RUNDIR_APPEND), -1);
  assert_int_equal(errno, ELOOP);
  assert_int_equal(nn_rundir_openat(0, "x", NN_RUNDIR_NEW), -1); /* a run directory not open */
  assert_int_equal(errno, EBADF);
  unlinkat(a.dir_fd, "runs/link.env", 0);
  unlinkat(a.dir_fd, "runs/0001-x.out", 0);
  assert_int_equal(nn_abdir_discard_empty(&a), 1);
  nn_rundir_free(&a);
  assert_int_equal(rmdir(base), 0);
}

/* --out where another user could swap or redirect it: refused, and nothing left there. */
static void test_untrusted_parent_refused(void **state) {
  (void)state;
  char base[] = "/tmp/nn-abdir-XXXXXX", path[96], err[1024];
  assert_non_null(mkdtemp(base));
  assert_int_equal(chmod(base, 0777), 0); /* writable by everyone, not sticky */
  snprintf(path, sizeof path, "%s/run", base);
  struct nn_rundir a;
  memset(&a, 0, sizeof a);
  unsetenv("NCCL_NUMA_ALLOW_UNTRUSTED");
  assert_int_equal(nn_abdir_create(&a, path, 0, "ab", "x", err, sizeof err), -1);
  assert_non_null(strstr(err, "not trusted"));
  assert_non_null(strstr(err, base));
  assert_int_equal(access(path, F_OK), -1);
  assert_null(a.path);
  assert_int_equal(a.dir_fd, 0);
  assert_int_equal(chmod(base, 01777), 0); /* sticky, as /tmp: our entry is ours alone */
  assert_int_equal(nn_abdir_create(&a, path, 0, "ab", "x", err, sizeof err), 0);
  assert_int_equal(nn_abdir_discard_empty(&a), 1);
  nn_rundir_free(&a);
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
  nn_rundir_free(&a);
  assert_int_equal(rmdir(base), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_command), cmocka_unit_test(test_create_and_discard),
    cmocka_unit_test(test_kept_when_used), cmocka_unit_test(test_files_created_private),
    cmocka_unit_test(test_untrusted_parent_refused)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
