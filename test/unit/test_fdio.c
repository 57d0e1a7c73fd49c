/* SPDX-License-Identifier: BSD-3-Clause */
/* test_fdio.c - whole-buffer writes (plugin/util/fdio.c): all of a large buffer through a pipe,
 * and EFBIG instead of SIGXFSZ past RLIMIT_FSIZE. */
#include "nn_test.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "fdio.h"

/* 1 MiB, 16 times the pipe's buffer, through a pipe a child drains: each byte arrives, in order. */
static void test_whole_buffer(void **state) {
  (void)state;
  enum { N = 1 << 20 };
  char *data = malloc(N);
  assert_non_null(data);
  for (int i = 0; i < N; i++) data[i] = (char)(i * 7);
  int p[2];
  assert_int_equal(pipe(p), 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    close(p[1]);
    size_t got = 0;
    ssize_t n;
    char buf[4096];
    unsigned sum = 0;
    while ((n = read(p[0], buf, sizeof buf)) > 0)
      for (ssize_t k = 0; k < n; k++, got++)
        sum += (unsigned char)buf[k] ^ (unsigned char)(char)(got * 7);
    _exit(got == N && sum == 0 ? 0 : 1);
  }
  close(p[0]);
  assert_int_equal(nn_fdio_write_all(p[1], data, N), 0);
  close(p[1]);
  int st;
  assert_int_equal(waitpid(pid, &st, 0), pid);
  assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  free(data);
}

/* Past RLIMIT_FSIZE: -1 with EFBIG, and the process is still alive (no SIGXFSZ). */
static void test_file_size_limit(void **state) {
  (void)state;
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    char path[] = "/tmp/nn-fdio-XXXXXX";
    int fd = mkstemp(path);
    unlink(path);
    struct rlimit rl = {4096, 4096};
    if (fd < 0 || setrlimit(RLIMIT_FSIZE, &rl)) _exit(2);
    char buf[8192] = {0};
    int rc = nn_fdio_write_all(fd, buf, sizeof buf);
    _exit(rc == -1 && errno == EFBIG ? 0 : 1);
  }
  int st;
  assert_int_equal(waitpid(pid, &st, 0), pid);
  assert_true(WIFEXITED(st));
  assert_int_equal(WEXITSTATUS(st), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_whole_buffer),
                                     cmocka_unit_test(test_file_size_limit)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
