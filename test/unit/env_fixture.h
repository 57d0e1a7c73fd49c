/* SPDX-License-Identifier: BSD-3-Clause */
/* env_fixture.h - what the env plugin's tests share (test_env_*.c): NCCL's logger, keeping
 * the messages a test asks for, and the start of each test program: a private directory that
 * XDG_RUNTIME_DIR names, without a log file or a tuner CSV from the environment. */
#ifndef NN_TEST_ENV_FIXTURE_H
#define NN_TEST_ENV_FIXTURE_H

#include "nn_test.h"

#include "nccl_abi.h"

/* What env_logger kept: each message a newline after it, and how many. `keep` (NULL: every
 * message) says which: given NCCL's level, the format and the formatted message. */
static struct {
  int (*keep)(int level, const char *fmt, const char *msg);
  char text[16384];
  int n;
} env_log __attribute__((unused));

static inline void env_log_clear(void) {
  env_log.text[0] = 0;
  env_log.n = 0;
}

/* NCCL's logger (nn_ncclDebugLogger_t) into env_log. */
__attribute__((format(printf, 5, 6))) static inline void env_logger(int level, unsigned long flags,
                                                                    const char *file, int line,
                                                                    const char *fmt, ...) {
  (void)flags;
  (void)file;
  (void)line;
  size_t len = strlen(env_log.text);
  if (len + 2 >= sizeof env_log.text) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(env_log.text + len, sizeof env_log.text - len - 1, fmt, ap);
  va_end(ap);
  if (env_log.keep && !env_log.keep(level, fmt, env_log.text + len)) {
    env_log.text[len] = 0;
    return;
  }
  strcat(env_log.text, "\n");
  env_log.n++;
}

/* mkdtemp of `pattern` ("/tmp/nn-NAME-XXXXXX") into base, which XDG_RUNTIME_DIR then names;
 * NCCL_NUMA_LOG_FILE and NCCL_TUNER_CONFIG_FILE unset. 0, or -1 when no directory was made. */
static inline int env_fixture_dir(char *base, size_t size, const char *pattern) {
  snprintf(base, size, "%s", pattern);
  if (!mkdtemp(base)) return -1;
  setenv("XDG_RUNTIME_DIR", base, 1);
  unsetenv("NCCL_NUMA_LOG_FILE");
  unsetenv("NCCL_TUNER_CONFIG_FILE");
  return 0;
}

#endif
