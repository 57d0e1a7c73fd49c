/* SPDX-License-Identifier: BSD-3-Clause */
/* test_log.c - the plugin's log lines and record helpers (plugin/core/log.c): a logger gets
 * one finished line with its level and subsystems, text from outside escaped; JSON strings
 * and appends that never overflow. (Appending to NCCL_NUMA_LOG_FILE: test_log_file.c.) */
#include "nn_test.h"

#include "log.h"

struct seen {
  struct nn_logger base;
  int level;
  unsigned subsys;
  char msg[256];
};

static void capture(const struct nn_logger *self, int level, unsigned subsys, const char *msg) {
  struct seen *s = (struct seen *)self;
  s->level = level;
  s->subsys = subsys;
  snprintf(s->msg, sizeof s->msg, "%s", msg);
}

static void test_lines(void **state) {
  (void)state;
  struct seen s = {.base = {.line = capture}};
  nn_log_info(&s.base, NN_LOG_INIT | NN_LOG_ENV, "nccl-numa: %s %d", "served", 3);
  assert_int_equal(s.level, NN_LOG_INFO);
  assert_int_equal(s.subsys, NN_LOG_INIT | NN_LOG_ENV);
  assert_string_equal(s.msg, "nccl-numa: served 3");
  nn_log_warn(&s.base, "nccl-numa: %s", "bad\nline\x1b[2J");
  assert_int_equal(s.level, NN_LOG_WARN);
  assert_null(strchr(s.msg, '\n')); /* one line, whatever the text held */
  assert_null(strchr(s.msg, '\x1b'));
}

static void test_json_and_append(void **state) {
  (void)state;
  char buf[64];
  size_t len = 0;
  nn_log_appendf(buf, sizeof buf, &len, "{\"host\":");
  nn_log_json_string(buf, sizeof buf, &len, "a\"b\n\x7f");
  nn_log_appendf(buf, sizeof buf, &len, "}");
  assert_string_equal(buf, "{\"host\":\"a\\\"b\\n\\u007f\"}");
  char tiny[8];
  len = 0;
  nn_log_appendf(tiny, sizeof tiny, &len, "%s", "0123456789");
  nn_log_json_string(tiny, sizeof tiny, &len, "more");
  assert_true(strlen(tiny) < sizeof tiny); /* truncated, terminated, no overflow */
}

/* Without NCCL's logger (env plugin v1) a WARN goes to stderr on one line, named once:
 * "nccl-numa WARN: text", not "nccl-numa WARN: nccl-numa: text". */
static void test_stderr_line(void **state) {
  (void)state;
  fflush(stderr);
  int saved = dup(2);
  char path[] = "/tmp/nn-log-stderr-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0 && saved >= 0);
  dup2(fd, 2);
  setenv("NCCL_DEBUG", "WARN", 1);
  nn_log_warn(NULL, "nccl-numa: %s", "no topology served");
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  unsetenv("NCCL_DEBUG");
  char got[256] = "";
  ssize_t n = pread(fd, got, sizeof got - 1, 0);
  close(fd);
  unlink(path);
  assert_true(n > 0);
  assert_string_equal(got, "nccl-numa WARN: no topology served\n");
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_lines),
                                     cmocka_unit_test(test_json_and_append),
                                     cmocka_unit_test(test_stderr_line)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
