/* SPDX-License-Identifier: BSD-3-Clause */
/* test_nccl_log.c - the core's logger onto NCCL's (plugin/abi/nccl_log.c): levels and
 * subsystems translated, the message passed as a "%s" argument, and the file and line NCCL
 * prints on WARN and TRACE lines those of the plugin's line that spoke, not the adapter's. */
#include "nn_test.h"

#include <stdarg.h>

#include "nccl_log.h"

static struct {
  int level, line, calls;
  unsigned long flags;
  char file[256], msg[256];
} got;

__attribute__((format(printf, 5, 6))) static void fake_nccl(int level, unsigned long flags,
                                                            const char *file, int line,
                                                            const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  got.level = level;
  got.flags = flags;
  got.line = line;
  got.calls++;
  snprintf(got.file, sizeof got.file, "%s", file);
  vsnprintf(got.msg, sizeof got.msg, fmt, ap);
  va_end(ap);
}

static void test_caller_position(void **state) {
  (void)state;
  struct nn_nccl_logger nl;
  const struct nn_logger *log = nn_nccl_logger(&nl, fake_nccl);
  assert_non_null(log);
  int warn_line = __LINE__ + 1;
  nn_log_warn(log, "nccl-numa: %s at %d%%", "refused", 100);
  assert_int_equal(got.calls, 1);
  assert_int_equal(got.level, NN_NCCL_LOG_WARN);
  assert_string_equal(got.file, __FILE__);
  assert_int_equal(got.line, warn_line);
  assert_string_equal(got.msg, "nccl-numa: refused at 100%"); /* formatted once, passed as "%s" */
  int info_line = __LINE__ + 1;
  nn_log_info(log, NN_LOG_TUNING | NN_LOG_ENV, "nccl-numa: table");
  assert_int_equal(got.level, NN_NCCL_LOG_INFO);
  assert_int_equal(got.flags, NN_NCCL_TUNING | NN_NCCL_ENV);
  assert_int_equal(got.line, info_line);
  assert_string_equal(got.file, __FILE__); /* not plugin/abi/nccl_log.c */
  assert_null(nn_nccl_logger(&nl, NULL));  /* no NCCL logger: the core's stderr fallback */
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_caller_position)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
