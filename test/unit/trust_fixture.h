/* SPDX-License-Identifier: BSD-3-Clause */
/* trust_fixture.h - what the trust tests share (test_trust*.c): a fresh directory per test,
 * files put in it, and nn_trust_open_as expected to trust or refuse a path for a user. */
#ifndef NN_TEST_TRUST_FIXTURE_H
#define NN_TEST_TRUST_FIXTURE_H

#include "nn_test.h"

#include <sys/stat.h>

#include "trust.h"

#define NOBODY 65534

static char base[64]; /* each test's directory, made by setup */

static inline const char *put(const char *name, const char *text) {
  return nn_test_put(base, name, text);
}

static inline const char *sub(const char *name, char *buf, size_t size) {
  snprintf(buf, size, "%s/%s", base, name);
  return buf;
}

/* nn_trust_open_as of path, the descriptor closed; err receives the message. */
static inline int trust_as(const char *path, uid_t euid, char *err, size_t errsz) {
  int fd;
  int rc = nn_trust_open_as(path, euid, &fd, err, errsz);
  if ((rc == NN_TRUST_OK || rc == NN_TRUST_OPTED_OUT) != (fd >= 0))
    fail_msg("%s: result %d with fd %d", path, rc, fd);
  if (fd >= 0) close(fd);
  return rc;
}

static inline void expect_trusted_as(const char *path, uid_t euid) {
  char err[8192];
  int rc = trust_as(path, euid, err, sizeof err);
  if (rc != NN_TRUST_OK)
    fail_msg("%s for uid %u: wanted trusted, got %d: %s", path, (unsigned)euid, rc, err);
  assert_string_equal(err, "");
}

static inline void expect_refused_as(const char *path, uid_t euid, const char *why) {
  char err[8192], want[8192];
  int rc = trust_as(path, euid, err, sizeof err);
  snprintf(want, sizeof want, "%s: not trusted: ", path);
  if (rc != NN_TRUST_REFUSED || strncmp(err, want, strlen(want)) || !strstr(err, why))
    fail_msg("%s for uid %u: wanted refused with '%s', got %d: %s", path, (unsigned)euid, why, rc,
             err);
}

static inline void expect_trusted(const char *path) { expect_trusted_as(path, geteuid()); }
static inline void expect_refused(const char *path, const char *why) {
  expect_refused_as(path, geteuid(), why);
}

static inline void need_root(void) {
  if (geteuid() != 0) {
    print_message("skipped: needs root (chown to uid %d)\n", NOBODY);
    skip();
  }
}

static inline int setup(void **state) {
  (void)state;
  snprintf(base, sizeof base, "/tmp/nn-trust-XXXXXX");
  if (!mkdtemp(base) || chmod(base, 0755)) return -1;
  unsetenv(NN_TRUST_OPTOUT_ENV);
  return 0;
}

static inline int teardown(void **state) {
  (void)state;
  unsetenv(NN_TRUST_OPTOUT_ENV);
  return nn_test_remove_tree(base);
}

#endif
