/* SPDX-License-Identifier: BSD-3-Clause */
/* test_cache.c - one parse per version of the files a config was built from; a changed
 * file is adopted by the next acquire, without waiting; a file that keeps changing is
 * never used half-read. */
#include "nn_test.h"

#include <fcntl.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <time.h>

#include "cache.h"
#include "snapshot.h"

static char dir[64];
static int warns;
static char first_warn[1024], last_warn[1024]; /* since warns was last set to 0 */

static void log_line(const struct nn_logger *self, int level, unsigned subsys, const char *msg) {
  (void)self;
  (void)subsys;
  if (level != NN_LOG_WARN) return;
  snprintf(last_warn, sizeof last_warn, "%s", msg);
  if (!warns++) memcpy(first_warn, last_warn, sizeof first_warn);
}
static const struct nn_logger the_logger = {.line = log_line};

static const char *in_dir(const char *name) {
  static char paths[4][256];
  static int next;
  char *p = paths[next++ % 4];
  snprintf(p, 256, "%s/%s", dir, name);
  return p;
}

/* Replaces `name` by rename (atomic), as a deployment should. */
static const char *replace(const char *name, const char *text) {
  char tmp[300];
  const char *path = in_dir(name);
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
  assert_int_equal(rename(tmp, path), 0);
  return path;
}

/* Points the symlink `name` at `target`, replacing it atomically. */
static const char *relink(const char *name, const char *target) {
  char tmp[300];
  const char *path = in_dir(name);
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  unlink(tmp);
  assert_int_equal(symlink(target, tmp), 0);
  assert_int_equal(rename(tmp, path), 0);
  return path;
}

static int setup(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/nn-cache-XXXXXX");
  unsetenv("NCCL_TUNER_CONFIG_FILE");
  return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  unsetenv("NCCL_NUMA_CONFIG");
  return nn_test_remove_tree(dir);
}

static void test_reuse_and_reload(void **state) {
  (void)state;
  setenv("NCCL_NUMA_CONFIG", replace("m.conf", "gpu 0 bus=01:00.0 numa=0\nrule algo=ring\n"), 1);
  struct nn_cache_version *a = nn_cache_acquire(NULL);
  struct nn_cache_version *b = nn_cache_acquire(NULL);
  assert_ptr_equal(a, b);
  assert_int_equal(nn_cache_status(a), NN_CFG_OK);
  assert_int_equal(nn_cache_config(a)->n_rules, 1);
  assert_int_equal(strlen(nn_cache_hash(a)), 8);
  const struct nn_policy *p1 = nn_cache_policy(a, 4, 1), *p2 = nn_cache_policy(b, 4, 1);
  assert_ptr_equal(p1, p2); /* shared per shape */
  assert_ptr_not_equal(p1, nn_cache_policy(a, 8, 1));

  replace("m.conf", "gpu 0 bus=01:00.0 numa=0\nrule algo=ring\nrule algo=tree\n");
  struct nn_cache_version *c = nn_cache_acquire(NULL); /* adopted at once: no settle time */
  assert_ptr_not_equal(c, a);
  assert_int_equal(nn_cache_config(c)->n_rules, 2);
  assert_string_not_equal(nn_cache_hash(c), nn_cache_hash(a));
  assert_int_equal(nn_cache_config(a)->n_rules, 1); /* the old version stays whole */

  replace("m.conf", "gpu 0 bus=nope numa=0\n");
  struct nn_cache_version *d = nn_cache_acquire(NULL);
  assert_int_equal(nn_cache_status(d), NN_CFG_INVALID);
  assert_null(nn_cache_config(d));
  assert_null(nn_cache_policy(d, 4, 1));
  warns = 0;
  nn_cache_warn_rejected(d, &the_logger, "pass-through");
  assert_int_equal(warns, 2); /* the problem, then the verdict */
  assert_non_null(strstr(first_warn, "m.conf:1:"));
  assert_non_null(strstr(last_warn, "rejected: pass-through"));
  nn_cache_warn_rejected(d, &the_logger, "pass-through");
  assert_int_equal(warns, 2); /* warn once per version */
  assert_int_equal(nn_cache_claim_warning(d), 0);
  nn_cache_release(a);
  nn_cache_release(b);
  nn_cache_release(c);
  nn_cache_release(d);
  nn_cache_release(NULL);
}

/* The same content gives the same hash in another file (ranks on other nodes). */
static void test_hash_names_content(void **state) {
  (void)state;
  const char *text = "gpu 0 bus=01:00.0 numa=0\nrule algo=tree\n";
  setenv("NCCL_NUMA_CONFIG", replace("one.conf", text), 1);
  struct nn_cache_version *a = nn_cache_acquire(NULL);
  setenv("NCCL_NUMA_CONFIG", replace("two.conf", text), 1);
  struct nn_cache_version *b = nn_cache_acquire(NULL);
  assert_ptr_not_equal(a, b);
  assert_string_equal(nn_cache_hash(a), nn_cache_hash(b));
  nn_cache_release(a);
  nn_cache_release(b);
}

/* An included CSV is part of the version: replacing it alone makes a new version. */
static void test_included_csv_is_part_of_the_version(void **state) {
  (void)state;
  replace("r.csv", "allreduce,0,-1,ring,ll,2,-1,-1\n");
  setenv("NCCL_NUMA_CONFIG", replace("inc.conf", "gpu 0 bus=01:00.0 numa=0\ninclude-csv r.csv\n"),
         1);
  struct nn_cache_version *a = nn_cache_acquire(NULL);
  assert_int_equal(nn_cache_config(a)->rules[0].algo, NN_ALGO_RING);
  struct nn_cache_version *same = nn_cache_acquire(NULL);
  assert_ptr_equal(same, a);
  nn_cache_release(same);
  replace("r.csv", "allreduce,0,-1,tree,simple,8,-1,-1\n");
  struct nn_cache_version *b = nn_cache_acquire(NULL);
  assert_ptr_not_equal(b, a);
  assert_int_equal(nn_cache_config(b)->rules[0].algo, NN_ALGO_TREE);
  assert_int_equal(nn_cache_config(b)->rules[0].channels, 8);
  assert_string_not_equal(nn_cache_hash(a), nn_cache_hash(b));
  nn_cache_release(a);
  nn_cache_release(b);

  /* NCCL_TUNER_CONFIG_FILE likewise. */
  replace("t.csv", "allgather,0,-1,ring,ll,2,-1,-1\n");
  setenv("NCCL_TUNER_CONFIG_FILE", in_dir("t.csv"), 1);
  setenv("NCCL_NUMA_CONFIG", replace("norules.conf", "gpu 0 bus=01:00.0 numa=0\n"), 1);
  a = nn_cache_acquire(NULL);
  assert_int_equal(nn_cache_config(a)->rules[0].proto, NN_PROTO_LL);
  replace("t.csv", "allgather,0,-1,ring,simple,2,-1,-1\n");
  b = nn_cache_acquire(NULL);
  assert_int_equal(nn_cache_config(b)->rules[0].proto, NN_PROTO_SIMPLE);
  nn_cache_release(a);
  nn_cache_release(b);
  unsetenv("NCCL_TUNER_CONFIG_FILE");
}

/* /proc files say size 0 and then return bytes: to nn_snapshot_read, a file that changes under
 * every read. */
static void test_snap_read_notices_a_moving_file(void **state) {
  (void)state;
  char *buf, err[512];
  size_t len;
  assert_int_equal(
    nn_snapshot_read("/proc/self/status", NN_MAX_FILE_BYTES, &buf, &len, err, sizeof err),
    NN_SNAP_MOVING);
  assert_null(buf);
  assert_non_null(strstr(err, "/proc/self/status: changed while being read"));
  const char *still = replace("still.conf", "abc");
  assert_int_equal(nn_snapshot_read(still, NN_MAX_FILE_BYTES, &buf, &len, err, sizeof err),
                   NN_SNAP_OK);
  assert_int_equal(len, 3);
  assert_string_equal(buf, "abc");
  free(buf);
  assert_int_equal(nn_snapshot_read(dir, NN_MAX_FILE_BYTES, &buf, &len, err, sizeof err),
                   NN_SNAP_ERROR);
  assert_non_null(strstr(err, "cannot open: a directory, not a regular file"));
}

/* A mapping that keeps changing: the previous version of the path is kept whole, one WARN
 * says so; with no previous version the communicator is a pass-through. */
static void test_moving_file_keeps_the_previous_version(void **state) {
  (void)state;
  const char *good = replace("good.conf", "gpu 0 bus=01:00.0 numa=0\nrule algo=tree\n");
  setenv("NCCL_NUMA_CONFIG", relink("link.conf", good), 1);
  struct nn_cache_version *a = nn_cache_acquire(&the_logger);
  assert_int_equal(nn_cache_status(a), NN_CFG_OK);
  relink("link.conf", "/proc/self/status");
  warns = 0;
  struct nn_cache_version *b = nn_cache_acquire(&the_logger);
  struct nn_cache_version *c = nn_cache_acquire(&the_logger);
  assert_ptr_equal(b, a); /* kept whole */
  assert_ptr_equal(c, a);
  assert_int_equal(warns, 1); /* said once */
  assert_non_null(strstr(last_warn, "changed while being read"));
  assert_non_null(strstr(last_warn, nn_cache_hash(a)));
  relink("link.conf", good);
  struct nn_cache_version *d = nn_cache_acquire(&the_logger);
  assert_ptr_equal(d, a); /* the same files again: the same version */
  nn_cache_release(b);
  nn_cache_release(c);
  nn_cache_release(d);

  /* An include that keeps changing counts the same way. */
  setenv("NCCL_NUMA_CONFIG",
         replace("inc2.conf", "gpu 0 bus=01:00.0 numa=0\ninclude-csv /proc/self/status\n"), 1);
  b = nn_cache_acquire(&the_logger);
  assert_int_equal(nn_cache_status(b), NN_CFG_MOVING); /* a new path: nothing older to keep */
  assert_null(nn_cache_config(b));
  assert_non_null(strstr(last_warn, "pass-through"));
  nn_cache_release(b);
  nn_cache_release(a);
}

static void test_missing_default_is_quiet(void **state) {
  (void)state;
  unsetenv("NCCL_NUMA_CONFIG");
  struct stat st;
  if (stat(NN_DEFAULT_CONFIG_PATH, &st) == 0) skip();
  struct nn_cache_version *v = nn_cache_acquire(NULL);
  assert_int_equal(nn_cache_status(v), NN_CFG_ABSENT);
  nn_cache_release(v);
  setenv("NCCL_NUMA_CONFIG", "/nonexistent/x.conf", 1);
  v = nn_cache_acquire(NULL);
  assert_int_equal(nn_cache_status(v), NN_CFG_INVALID); /* an explicit path that is missing warns */
  warns = 0;
  nn_cache_warn_rejected(v, &the_logger, "pass-through");
  assert_non_null(strstr(first_warn, "/nonexistent/x.conf: cannot open"));
  nn_cache_release(v);
  unsetenv("NCCL_NUMA_CONFIG");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_reuse_and_reload),
    cmocka_unit_test(test_hash_names_content),
    cmocka_unit_test(test_included_csv_is_part_of_the_version),
    cmocka_unit_test(test_snap_read_notices_a_moving_file),
    cmocka_unit_test(test_moving_file_keeps_the_previous_version),
    cmocka_unit_test(test_missing_default_is_quiet),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
