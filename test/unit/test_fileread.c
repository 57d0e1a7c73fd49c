/* SPDX-License-Identifier: BSD-3-Clause */
/* test_fileread.c - the one bounded file reader: regular files whole, and every way a
 * file named by someone else could hang or flood a reader refused with a message. */
#include "nn_test.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "fileread.h"

static char dir[64];

static void path_of(char *out, size_t size, const char *name) {
  snprintf(out, size, "%s/%s", dir, name);
}

static int setup(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/nn-fileread-XXXXXX");
  if (!mkdtemp(dir)) return -1;
  nn_test_put(dir, "a.txt", "hello\n");
  char p[128], q[128];
  path_of(p, sizeof p, "sub");
  mkdir(p, 0755);
  nn_test_put(dir, "sub/b.txt", "beneath\n");
  path_of(p, sizeof p, "link.txt");
  if (symlink("a.txt", p)) return -1;
  path_of(p, sizeof p, "linkdir");
  if (symlink("sub", p)) return -1;
  path_of(p, sizeof p, "fifo");
  if (mkfifo(p, 0600)) return -1;
  path_of(q, sizeof q, "big");
  int fd = open(q, O_WRONLY | O_CREAT, 0600);
  if (fd < 0 || ftruncate(fd, 3 << 20)) return -1; /* sparse: no disk used */
  close(fd);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  return nn_test_remove_tree(dir);
}

/* Reads path with flags and cap; expects rc, and for failures a message containing want. */
static void expect(const char *path, int flags, size_t cap, int rc, const char *want) {
  char *buf = (char *)1, err[512] = "";
  size_t len = 99;
  int got = nn_file_read(AT_FDCWD, path, flags, cap, &buf, &len, err, sizeof err);
  if (got != rc) fail_msg("%s: rc %d, wanted %d (%s)", path, got, rc, err);
  if (rc) {
    assert_null(buf);
    assert_int_equal(len, 0);
    if (want && !strstr(err, want)) fail_msg("%s: message '%s' lacks '%s'", path, err, want);
  } else {
    assert_non_null(buf);
    if (want) assert_string_equal(buf, want);
    assert_int_equal(len, strlen(want ? want : buf));
    free(buf);
  }
}

static void test_regular(void **state) {
  (void)state;
  char p[128];
  path_of(p, sizeof p, "a.txt");
  expect(p, 0, 1 << 20, 0, "hello\n");
  expect(p, 0, 6, 0, "hello\n"); /* exactly the cap */
  expect(p, 0, 5, -1, "file is 6 bytes, over the 5 bytes limit: refused");
  path_of(p, sizeof p, "link.txt");
  expect(p, 0, 1 << 20, 0, "hello\n"); /* links are followed unless told */
}

static void test_special_files_refused(void **state) {
  (void)state;
  char p[128];
  path_of(p, sizeof p, "fifo");
  expect(p, 0, 1 << 20, -1, "cannot open: a FIFO, not a regular file: refused"); /* no hang */
  expect("/dev/zero", 0, 1 << 20, -1,
         "/dev/zero: cannot open: a character device, not a regular file");
  expect(dir, 0, 1 << 20, -1, "cannot open: a directory, not a regular file");
  path_of(p, sizeof p, "big");
  expect(p, 0, 1 << 20, -1, "file is 3145728 bytes, over the 1 MiB limit: refused");
  path_of(p, sizeof p, "none");
  expect(p, 0, 1 << 20, -1, "cannot open: No such file or directory");
  expect(p, NN_FILE_MISSING_OK, 1 << 20, 1, NULL);
  expect("", 0, 1 << 20, -1, "no file name");
}

/* /proc files say size 0: read to the end, still never past the cap. */
static void test_proc_files(void **state) {
  (void)state;
  char *buf = NULL, err[256];
  size_t len = 0;
  assert_int_equal(
    nn_file_read(AT_FDCWD, "/proc/self/status", 0, 1 << 20, &buf, &len, err, sizeof err), 0);
  assert_non_null(strstr(buf, "Pid:"));
  assert_int_equal(strlen(buf), len);
  free(buf);
  expect("/proc/self/status", 0, 16, -1, "/proc/self/status: more than 16 bytes: refused");
}

static void test_links_and_beneath(void **state) {
  (void)state;
  char p[128];
  path_of(p, sizeof p, "link.txt");
  expect(p, NN_FILE_NOFOLLOW, 1 << 20, -1, "symbolic link");
  int dfd = open(dir, O_RDONLY | O_DIRECTORY);
  assert_true(dfd >= 0);
  char *buf = NULL, err[256] = "";
  size_t len = 0;
  assert_int_equal(
    nn_file_read(dfd, "sub/b.txt", NN_FILE_BENEATH, 1 << 20, &buf, &len, err, sizeof err), 0);
  assert_string_equal(buf, "beneath\n");
  free(buf);
  static const struct {
    const char *path, *want;
  } bad[] = {
    {"link.txt", "symbolic link"},
    {"linkdir/b.txt", "symbolic link or not a directory"},
    {"a.txt/x", "symbolic link or not a directory"},
    {"../x", "leaves its directory"},
    {"sub/../a.txt", "leaves its directory"},
    {"/etc/passwd", "leaves its directory"},
    {"sub//b.txt", "leaves its directory"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    err[0] = 0;
    assert_int_equal(
      nn_file_read(dfd, bad[i].path, NN_FILE_BENEATH, 1 << 20, &buf, &len, err, sizeof err), -1);
    if (!strstr(err, bad[i].want)) fail_msg("%s: '%s' lacks '%s'", bad[i].path, err, bad[i].want);
  }
  close(dfd);
}

static void test_bare_and_kind(void **state) {
  (void)state;
  char p[128], *buf = NULL, err[256];
  size_t len = 0;
  path_of(p, sizeof p, "fifo");
  assert_int_equal(nn_file_read(AT_FDCWD, p, NN_FILE_BARE, 10, &buf, &len, err, sizeof err), -1);
  assert_string_equal(err, "cannot open: a FIFO, not a regular file: refused");
  assert_string_equal(nn_file_kind(S_IFSOCK), "a socket");
  assert_string_equal(nn_file_kind(S_IFBLK), "a block device");
  /* nn_file_open hands out a close-on-exec descriptor of the checked file */
  path_of(p, sizeof p, "a.txt");
  int fd = nn_file_open(AT_FDCWD, p, 0, 100, err, sizeof err);
  assert_true(fd >= 0);
  assert_int_equal(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
  assert_int_equal(nn_file_read_fd(fd, p, 100, &buf, &len, err, sizeof err), 0);
  assert_string_equal(buf, "hello\n");
  free(buf);
  close(fd);
}

/* nn_file_fopen: a stream over a file checked by the same rules, errno kept on refusal. */
static void test_fopen(void **state) {
  (void)state;
  char p[128], line[32];
  path_of(p, sizeof p, "a.txt");
  FILE *f = nn_file_fopen(p, 0, 100);
  assert_non_null(f);
  assert_non_null(fgets(line, sizeof line, f));
  assert_string_equal(line, "hello\n");
  assert_int_equal(fcntl(fileno(f), F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
  fclose(f);
  path_of(p, sizeof p, "fifo");
  errno = 0;
  assert_null(nn_file_fopen(p, 0, 100));
  assert_int_equal(errno, EINVAL);
  path_of(p, sizeof p, "big");
  assert_null(nn_file_fopen(p, 0, 1 << 20));
  assert_int_equal(errno, EFBIG);
  assert_non_null(f = nn_file_fopen(p, 0, NN_FILE_ANY_SIZE));
  fclose(f);
  path_of(p, sizeof p, "link.txt");
  assert_null(nn_file_fopen(p, NN_FILE_NOFOLLOW, 100));
  assert_int_equal(errno, ELOOP);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_regular),       cmocka_unit_test(test_special_files_refused),
    cmocka_unit_test(test_proc_files),    cmocka_unit_test(test_links_and_beneath),
    cmocka_unit_test(test_bare_and_kind), cmocka_unit_test(test_fopen),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
