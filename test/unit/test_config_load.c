/* SPDX-License-Identifier: BSD-3-Clause */
/* test_config_load.c - the mapping parser, config_load.c: reading a mapping from a file, and the
 * files it refuses. */
#include "config_fixture.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "env_names.h"
#include "nn_config.h"

static void expect_load_err(const char *path, const char *want) {
  struct nn_diag d = {0};
  struct nn_config *c = (struct nn_config *)1;
  int r = nn_config_load(path, NULL, &c, &d);
  if (r != -1 || d.n != 1 || !strstr(d.msgs[0], want))
    print_error("wanted '%s'; got r=%d, %s\n", want, r, d.n ? d.msgs[0] : "no message");
  assert_int_equal(r, -1);
  assert_null(c);
  assert_int_equal(d.n, 1);
  assert_non_null(strstr(d.msgs[0], want));
  nn_diag_clear(&d);
}

static void test_load_good(void **state) {
  (void)state;
  char *path = nn_test_write_file(reference);
  assert_non_null(path);
  struct nn_diag d = {0};
  struct nn_config *c = NULL;
  assert_int_equal(nn_config_load(path, NULL, &c, &d), 0);
  assert_int_equal(d.n, 0);
  assert_int_equal(c->n_gpus, 8);
  assert_string_equal(c->path, path);
  assert_string_equal(c->rules[0].file, path);
  nn_config_free(c);
  nn_test_remove_file(path);
  /* an error names the path */
  path = nn_test_write_file("rule algo=ring\nrule algo=wrong\n");
  assert_non_null(path);
  char want[300];
  snprintf(want, sizeof want, "%s:2: rule: unknown algo 'wrong'", path ? path : "");
  expect_load_err(path, want);
  nn_test_remove_file(path);
}

static void test_load_refusals(void **state) {
  (void)state;
  char dir[] = "/tmp/nn-test-load-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char p[128], want[256];
  /* missing */
  snprintf(p, sizeof p, "%s/missing.conf", dir);
  snprintf(want, sizeof want, "%s: cannot open: %s", p, strerror(ENOENT));
  expect_load_err(p, want);
  /* a directory */
  snprintf(want, sizeof want, "%s: cannot open: a directory, not a regular file", dir);
  expect_load_err(dir, want);
  /* a FIFO with no writer: must not block */
  snprintf(p, sizeof p, "%s/fifo", dir);
  assert_int_equal(mkfifo(p, 0600), 0);
  expect_load_err(p, "cannot open: a FIFO, not a regular file");
  unlink(p);
  /* a symlink loop */
  char q[128];
  snprintf(p, sizeof p, "%s/loop1", dir);
  snprintf(q, sizeof q, "%s/loop2", dir);
  assert_int_equal(symlink(q, p), 0);
  assert_int_equal(symlink(p, q), 0);
  snprintf(want, sizeof want, "%s: cannot open: %s", p, strerror(ELOOP));
  expect_load_err(p, want);
  unlink(p);
  unlink(q);
  /* a character device */
  expect_load_err("/dev/null", "/dev/null: cannot open: a character device, not a regular file");
  /* over 16 MiB: refused from its size alone (sparse, so nothing is written) */
  snprintf(p, sizeof p, "%s/big", dir);
  int fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, 0600);
  assert_true(fd >= 0);
  assert_int_equal(ftruncate(fd, (off_t)NN_MAX_FILE_BYTES + 1), 0);
  close(fd);
  expect_load_err(p, "file is 16777217 bytes, over the 16 MiB limit");
  /* exactly 16 MiB of blank lines is read and accepted */
  fd = open(p, O_WRONLY | O_TRUNC);
  char *blank = malloc(NN_MAX_FILE_BYTES);
  memset(blank, '\n', NN_MAX_FILE_BYTES);
  assert_int_equal(write(fd, blank, NN_MAX_FILE_BYTES), (ssize_t)NN_MAX_FILE_BYTES);
  close(fd);
  free(blank);
  struct nn_config *c = NULL;
  assert_int_equal(nn_config_load(p, NULL, &c, NULL), 0);
  nn_config_free(c);
  unlink(p);
  /* unreadable (only meaningful when not root) */
  snprintf(p, sizeof p, "%s/secret", dir);
  fd = open(p, O_CREAT | O_WRONLY, 0000);
  close(fd);
  if (geteuid() != 0) {
    snprintf(want, sizeof want, "%s: cannot open: %s", p, strerror(EACCES));
    expect_load_err(p, want);
  }
  unlink(p);
  expect_load_err("", "cannot open");
  rmdir(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_load_good),
    cmocka_unit_test(test_load_refusals),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
