/* SPDX-License-Identifier: BSD-3-Clause */
/* test_trust.c - who may have written a configuration file (trust.h), and that the mapping,
 * an `include-csv` file and NCCL_TUNER_CONFIG_FILE are read only when trusted.
 *
 * The attacks, as root: a mapping of mode 0666, one owned by uid 65534, one in a
 * group-writable directory, a symlink to an untrusted file, a link in a directory others can
 * write, another user's file in a sticky world-writable directory; and, checked for uid
 * 65534, root's file in that sticky directory. Cases that need chown need root. */
#include "nn_test.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "cache.h"
#include "config_source.h"
#include "log.h"
#include "nn_config.h"
#include "trust.h"

#define NOBODY 65534

static char base[64];

static const char *put(const char *name, const char *text) { return nn_test_put(base, name, text); }

static const char *sub(const char *name, char *buf, size_t size) {
  snprintf(buf, size, "%s/%s", base, name);
  return buf;
}

/* nn_trust_fd_as on a fresh descriptor of path; err receives the message. */
static int trust_as(const char *path, uid_t euid, char *err, size_t errsz) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail_msg("cannot open %s: %s", path, strerror(errno));
  int rc = nn_trust_fd_as(fd, path, euid, err, errsz);
  close(fd);
  return rc;
}

static void expect_trusted_as(const char *path, uid_t euid) {
  char err[8192];
  int rc = trust_as(path, euid, err, sizeof err);
  if (rc != NN_TRUST_OK) fail_msg("%s for uid %u: wanted trusted, got %d: %s", path, (unsigned)euid, rc, err);
  assert_string_equal(err, "");
}

static void expect_refused_as(const char *path, uid_t euid, const char *why) {
  char err[8192], want[8192];
  int rc = trust_as(path, euid, err, sizeof err);
  snprintf(want, sizeof want, "%s: not trusted: ", path);
  if (rc != NN_TRUST_REFUSED || strncmp(err, want, strlen(want)) || !strstr(err, why))
    fail_msg("%s for uid %u: wanted refused with '%s', got %d: %s", path, (unsigned)euid, why, rc, err);
}

static void expect_trusted(const char *path) { expect_trusted_as(path, geteuid()); }
static void expect_refused(const char *path, const char *why) { expect_refused_as(path, geteuid(), why); }

static void need_root(void) {
  if (geteuid() != 0) {
    print_message("skipped: needs root (chown to uid %d)\n", NOBODY);
    skip();
  }
}

static int setup(void **state) {
  (void)state;
  snprintf(base, sizeof base, "/tmp/nn-trust-XXXXXX");
  if (!mkdtemp(base) || chmod(base, 0755)) return -1;
  unsetenv(NN_TRUST_OPTOUT_ENV);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  unsetenv(NN_TRUST_OPTOUT_ENV);
  return nn_test_remove_tree(base);
}

static void test_good_file(void **state) {
  (void)state;
  const char *f = put("good.conf", "gpu 0 bus=01:00.0 numa=0\n");
  assert_int_equal(chmod(f, 0644), 0);
  expect_trusted(f);
  assert_int_equal(chmod(f, 0600), 0);
  expect_trusted(f);
  /* a relative path is judged from the working directory down */
  char cwd[4096];
  assert_non_null(getcwd(cwd, sizeof cwd));
  assert_int_equal(chdir(base), 0);
  expect_trusted("good.conf");
  assert_int_equal(chdir(cwd), 0);
}

static void test_writable_file(void **state) {
  (void)state;
  const char *f = put("w.conf", "x\n");
  assert_int_equal(chmod(f, 0666), 0);
  expect_refused(f, "writable by group and others (mode 0666)");
  assert_int_equal(chmod(f, 0620), 0);
  expect_refused(f, "writable by group (mode 0620)");
  assert_int_equal(chmod(f, 0602), 0);
  expect_refused(f, "writable by others (mode 0602)");
}

static void test_other_owner(void **state) {
  (void)state;
  need_root();
  const char *f = put("nobody.conf", "x\n");
  assert_int_equal(chown(f, NOBODY, NOBODY), 0);
  expect_refused(f, "owned by uid 65534 (only root may own it)");
  /* the same file is that user's own */
  expect_trusted_as(f, NOBODY);
  /* root's file in root's directories is trusted by everybody */
  struct stat st;
  if (lstat("/etc/passwd", &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == 0 && !(st.st_mode & 022))
    expect_trusted_as("/etc/passwd", NOBODY);
}

static void test_untrusted_directory(void **state) {
  (void)state;
  char d[128], f[160];
  assert_int_equal(mkdir(sub("group", d, sizeof d), 0775), 0);
  assert_int_equal(chmod(d, 0775), 0);
  snprintf(f, sizeof f, "%s/m.conf", d);
  put("group/m.conf", "x\n");
  char want[256];
  snprintf(want, sizeof want, "directory %s is writable by group (mode 0775)", d);
  expect_refused(f, want);
  /* a relative path through it */
  char cwd[4096];
  assert_non_null(getcwd(cwd, sizeof cwd));
  assert_int_equal(chdir(d), 0);
  expect_refused("m.conf", want);
  assert_int_equal(chdir(cwd), 0);
  if (geteuid() != 0) return;
  assert_int_equal(chmod(d, 0755), 0);
  assert_int_equal(chown(d, NOBODY, NOBODY), 0);
  snprintf(want, sizeof want, "directory %s is owned by uid 65534", d);
  expect_refused(f, want);
}

static void test_symlinks(void **state) {
  (void)state;
  need_root();
  char link[128], d[128], lnk2[160];
  /* a root-owned link in a trusted directory, to another user's file */
  const char *theirs = put("theirs.conf", "x\n");
  assert_int_equal(chown(theirs, NOBODY, NOBODY), 0);
  assert_int_equal(symlink(theirs, sub("link.conf", link, sizeof link)), 0);
  expect_refused(link, "owned by uid 65534");
  /* a link to a trusted file, held in a directory others can write: they choose the target */
  const char *good = put("good2.conf", "x\n");
  assert_int_equal(mkdir(sub("open", d, sizeof d), 0777), 0);
  assert_int_equal(chmod(d, 0777), 0);
  snprintf(lnk2, sizeof lnk2, "%s/l.conf", d);
  assert_int_equal(symlink(good, lnk2), 0);
  expect_refused(lnk2, "is writable by group and others (mode 0777)");
  /* a trusted link to a trusted file in a directory others can write */
  char far[160], lnk3[128];
  snprintf(far, sizeof far, "%s/far.conf", d);
  put("open/far.conf", "x\n");
  assert_int_equal(symlink(far, sub("l3.conf", lnk3, sizeof lnk3)), 0);
  expect_refused(lnk3, "is writable by group and others (mode 0777)");
  /* a trusted link to a trusted file: fine */
  char lnk4[128];
  assert_int_equal(symlink(good, sub("l4.conf", lnk4, sizeof lnk4)), 0);
  expect_trusted(lnk4);
}

/* /tmp's case: a sticky directory others can write protects only the user's own files
 * (base lies in /tmp, so the first such directory on the way is /tmp itself). */
static void test_sticky_directory(void **state) {
  (void)state;
  need_root();
  char d[128];
  assert_int_equal(mkdir(sub("sticky", d, sizeof d), 01777), 0);
  assert_int_equal(chmod(d, 01777), 0);
  const char *theirs = put("sticky/theirs.conf", "x\n");
  assert_int_equal(chown(theirs, NOBODY, NOBODY), 0);
  expect_refused(theirs, "owned by uid 65534");
  expect_trusted_as(theirs, NOBODY);
  const char *mine = put("sticky/mine.conf", "x\n");
  expect_trusted(mine);
  expect_refused_as(mine, NOBODY, "is writable by group and others (mode 1777; sticky, which protects "
                    "only a file of uid 65534 there)");
  /* a second name for root's file, made in the sticky directory: not the name root meant */
  const char *elsewhere = put("elsewhere.conf", "x\n");
  char linked[160];
  snprintf(linked, sizeof linked, "%s/linked.conf", d);
  assert_int_equal(link(elsewhere, linked), 0);
  char want[256];
  snprintf(want, sizeof want, "the file has 2 hard links and lies in directory %s, which others can write", d);
  expect_refused(linked, want);
  expect_trusted(elsewhere);   /* its own directory is not open to others */
}

/* The descriptor is what counts: a file renamed over the path after the open is noticed. */
static void test_swapped_after_open(void **state) {
  (void)state;
  const char *f = put("swap.conf", "x\n");
  char path[128];
  snprintf(path, sizeof path, "%s", f);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  assert_true(fd >= 0);
  const char *other = put("other.conf", "y\n");
  assert_int_equal(rename(other, path), 0);
  char err[8192];
  assert_int_equal(nn_trust_fd(fd, path, err, sizeof err), NN_TRUST_REPLACED);
  assert_non_null(strstr(err, "no longer names the file opened"));
  setenv(NN_TRUST_OPTOUT_ENV, "1", 1);   /* not a matter of trust: the opt-out does not waive it */
  assert_int_equal(nn_trust_fd(fd, path, err, sizeof err), NN_TRUST_REPLACED);
  unsetenv(NN_TRUST_OPTOUT_ENV);
  close(fd);
}

static void test_opt_out(void **state) {
  (void)state;
  const char *f = put("dev.conf", "gpu 0 bus=01:00.0 numa=0\n");
  assert_int_equal(chmod(f, 0666), 0);
  char err[8192];
  setenv(NN_TRUST_OPTOUT_ENV, "yes", 1);   /* only "1" */
  assert_int_equal(trust_as(f, geteuid(), err, sizeof err), NN_TRUST_REFUSED);
  setenv(NN_TRUST_OPTOUT_ENV, "1", 1);
  assert_int_equal(trust_as(f, geteuid(), err, sizeof err), NN_TRUST_OPTED_OUT);
  assert_non_null(strstr(err, "not trusted: writable by group and others (mode 0666); read anyway because "
                         "NCCL_NUMA_ALLOW_UNTRUSTED=1 is set"));
  /* the mapping is read, and says so in its notes */
  struct nn_config *c = NULL;
  struct nn_diag d = {0};
  assert_int_equal(nn_config_load(f, NULL, &c, &d), 0);
  assert_int_equal(c->notes.n, 1);
  assert_non_null(strstr(c->notes.msgs[0], "read anyway because NCCL_NUMA_ALLOW_UNTRUSTED=1"));
  nn_config_free(c);
  unsetenv(NN_TRUST_OPTOUT_ENV);
}

/* Every file the configuration comes from is checked: the mapping, include-csv, the CSV of
 * NCCL_TUNER_CONFIG_FILE. */
static void test_config_files_checked(void **state) {
  (void)state;
  struct nn_config *c = (struct nn_config *)1;
  struct nn_diag d = {0};
  const char *m = put("m.conf", "gpu 0 bus=01:00.0 numa=0\n");
  assert_int_equal(chmod(m, 0666), 0);
  assert_int_equal(nn_config_load(m, NULL, &c, &d), -1);
  assert_null(c);
  assert_int_equal(d.n, 1);
  assert_non_null(strstr(d.msgs[0], "m.conf: not trusted: writable by group and others (mode 0666)"));
  nn_diag_clear(&d);

  const char *csv = put("r.csv", "allreduce,0,65536,ring,simple,-1,-1,-1\n");
  assert_int_equal(chmod(csv, 0666), 0);
  const char *inc = put("inc.conf", "gpu 0 bus=01:00.0 numa=0\ninclude-csv r.csv\n");
  assert_int_equal(nn_config_load(inc, NULL, &c, &d), -1);
  assert_true(d.n >= 1);
  assert_non_null(strstr(d.msgs[0], "inc.conf:2: include-csv: "));
  assert_non_null(strstr(d.msgs[0], "r.csv: not trusted: writable by group and others (mode 0666)"));
  nn_diag_clear(&d);

  const char *plain = put("plain.conf", "gpu 0 bus=01:00.0 numa=0\n");
  struct nn_config_source src = {plain, "NCCL_NUMA_CONFIG", 1, csv};
  const char *culprit = NULL;
  assert_int_equal(nn_config_resolve(&src, NULL, &c, &d, &culprit), NN_CFG_INVALID);
  assert_ptr_equal(culprit, csv);
  assert_non_null(strstr(d.msgs[0], "r.csv: not trusted"));
  nn_diag_clear(&d);
  /* trusted again: all three read */
  assert_int_equal(chmod(csv, 0644), 0);
  assert_int_equal(nn_config_load(inc, NULL, &c, &d), 0);
  assert_int_equal(c->n_rules, 1);
  assert_int_equal(c->notes.n, 0);
  nn_config_free(c);
}

/* The plugin's cache: an untrusted mapping is a rejected version, one WARN names the file and
 * the reason; its chmod makes a new version, which is used. */
static void test_cache_adopts_the_fixed_file(void **state) {
  (void)state;
  const char *m = put("cached.conf", "gpu 0 bus=01:00.0 numa=0\n");
  assert_int_equal(chmod(m, 0666), 0);
  setenv("NCCL_NUMA_CONFIG", m, 1);
  unsetenv("NCCL_TUNER_CONFIG_FILE");
  struct nn_logger logger = {.line = nn_test_line};
  struct nn_cache_version *v = nn_cache_acquire(&logger);
  assert_int_equal(nn_cache_status(v), NN_CFG_INVALID);
  nn_test_warns = 0;
  nn_cache_warn_rejected(v, &logger, "pass-through");
  nn_cache_warn_rejected(v, &logger, "pass-through");
  assert_int_equal(nn_test_warns, 2);   /* the file and reason, then the verdict; once */
  assert_non_null(strstr(nn_test_last_warn, "rejected: pass-through"));
  nn_cache_release(v);
  assert_int_equal(chmod(m, 0644), 0);
  v = nn_cache_acquire(&logger);
  assert_int_equal(nn_cache_status(v), NN_CFG_OK);
  assert_int_equal(nn_cache_config(v)->n_gpus, 1);
  nn_cache_release(v);
  unsetenv("NCCL_NUMA_CONFIG");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_good_file),          cmocka_unit_test(test_writable_file),
      cmocka_unit_test(test_other_owner),        cmocka_unit_test(test_untrusted_directory),
      cmocka_unit_test(test_symlinks),           cmocka_unit_test(test_sticky_directory),
      cmocka_unit_test(test_swapped_after_open), cmocka_unit_test(test_opt_out),
      cmocka_unit_test(test_config_files_checked), cmocka_unit_test(test_cache_adopts_the_fixed_file),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
