/* SPDX-License-Identifier: BSD-3-Clause */
/* nn_test.h - helpers shared by the cmocka unit tests. */
#ifndef NCCL_NUMA_TEST_H
#define NCCL_NUMA_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <grp.h>
#include <sys/wait.h>

#include <cmocka.h>

/* cmocka's _fail (behind fail() and fail_msg()) never returns: it jumps out of the
 * running test, or exits. Its header does not say so, and without this the compiler and
 * clang's analyzer follow paths past a failed test into values the test never made. */
void _fail(const char *const file, const int line) __attribute__((noreturn));

/* The private directories nn_test_write_file made, removed with what is left in them when the
 * test program exits, however the test ends (a test that frees the path or unlinks only the
 * file left an empty /tmp/nn-test-* behind). */
#define NN_TEST_MAX_DIRS 256
static char nn_test_dirs[NN_TEST_MAX_DIRS][32];
static int nn_test_n_dirs;

static inline void nn_test_remove_dirs(void) {
  for (int i = 0; i < nn_test_n_dirs; i++) {
    char path[64];
    snprintf(path, sizeof path, "%.31s/file", nn_test_dirs[i]);
    unlink(path);
    rmdir(nn_test_dirs[i]);
  }
  nn_test_n_dirs = 0;
}

/* Writes `text` to a fresh file under a private temp dir; returns its malloc'd path. */
static inline char *nn_test_write_file(const char *text) {
  char dir[] = "/tmp/nn-test-XXXXXX";
  if (!mkdtemp(dir)) return NULL;
  if (nn_test_n_dirs == 0) atexit(nn_test_remove_dirs);
  if (nn_test_n_dirs < NN_TEST_MAX_DIRS)
    snprintf(nn_test_dirs[nn_test_n_dirs++], sizeof nn_test_dirs[0], "%s", dir);
  char *path = malloc(strlen(dir) + 16);
  sprintf(path, "%s/file", dir);
  FILE *f = fopen(path, "w");
  if (!f) {
    free(path);
    return NULL;
  }
  fputs(text, f);
  fclose(f);
  return path;
}

/* Writes `text` to DIR/NAME (DIR exists), failing the test when it cannot. */
static inline void nn_test_put_file(const char *dir, const char *name, const char *text) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

/* Reads a whole fixture file (NUL-terminated, malloc'd); fails the test when unreadable. */
static inline char *nn_test_slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  rewind(f);
  char *b = malloc((size_t)n + 1);
  assert_non_null(b);
  assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
  fclose(f);
  b[n] = 0;
  *len = (size_t)n;
  return b;
}

/* Writes `text` to DIR/NAME (DIR made by the test); returns the path, valid until eight
 * more calls. */
static inline const char *nn_test_put(const char *dir, const char *name, const char *text) {
  static char path[8][512];
  static int next;
  char *p = path[next++ % 8];
  snprintf(p, sizeof path[0], "%s/%s", dir, name);
  FILE *f = fopen(p, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
  return p;
}

/* A core logger (log.h) that keeps the last WARN line and counts them. */
static char nn_test_last_warn[2048] __attribute__((unused));
static int nn_test_warns __attribute__((unused));
struct nn_logger;
__attribute__((unused)) static void nn_test_line(const struct nn_logger *self, int level,
                                                 unsigned subsys, const char *msg) {
  (void)self;
  (void)subsys;
  if (level != 1) return; /* NN_LOG_WARN */
  snprintf(nn_test_last_warn, sizeof nn_test_last_warn, "%s", msg);
  nn_test_warns++;
}

/* Runs fn(arg) in a child that became `uid` (group `uid`, no supplementary groups): a test of
 * what another user can do, or sees. Returns fn's return value (its exit status), or -1 when
 * the child could not become `uid` or died. Needs root. */
static inline int nn_test_as_uid(uid_t uid, int (*fn)(void *), void *arg) {
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    if (setgroups(0, NULL) || setgid(uid) || setuid(uid)) _exit(255);
    _exit(fn(arg) & 0xff);
  }
  int status;
  if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
      WEXITSTATUS(status) == 255)
    return -1;
  return WEXITSTATUS(status);
}

/* Removes a directory tree a test made (rm -rf, which needs no walk of our own); 0 or -1. */
static inline int nn_test_remove_tree(const char *dir) {
  char cmd[1100];
  if (snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir) >= (int)sizeof cmd) return -1;
  return system(cmd) == 0 ? 0 : -1;
}

/* Removes a file made by nn_test_write_file and its directory. */
static inline void nn_test_remove_file(char *path) {
  if (!path) return;
  unlink(path);
  char *slash = strrchr(path, '/');
  if (slash) {
    *slash = 0;
    rmdir(path);
  }
  free(path);
}

#ifdef NCCL_NUMA_CONFIG_H
/* Parses a mapping text that the test knows to be valid (prints problems and fails otherwise). */
static inline struct nn_config *nn_test_parse(const char *text) {
  struct nn_config *cfg = NULL;
  struct nn_diag d = {0};
  int rc = nn_config_parse("t.conf", text, strlen(text), NULL, &cfg, &d);
  for (int i = 0; i < d.n; i++) fprintf(stderr, "%s\n", d.msgs[i]);
  nn_diag_clear(&d);
  assert_int_equal(rc, 0);
  return cfg;
}
#endif

#endif
