/* SPDX-License-Identifier: BSD-3-Clause */
/* test_trust.c - who may have written a configuration file (trust.h), judged before it is
 * opened, and that the mapping, an `include-csv` file and NCCL_TUNER_CONFIG_FILE are read
 * only when trusted.
 *
 * The attacks, as root: a mapping of mode 0666, one owned by uid 65534, one in a
 * group-writable directory, a symlink to an untrusted file, a link in a directory others can
 * write, another user's file in a sticky world-writable directory, uid 65534's link in a
 * sticky directory choosing which of root's files is read, a second hard link there, a FIFO
 * or a device named (never opened: inotify sees no open), a path 1,500 directories deep
 * (linear, not quadratic). What must not be refused is test_trust_volumes.c's. Cases that
 * need chown or another user need root. */
#include "trust_fixture.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>

#include "cache.h"
#include "config_source.h"
#include "log.h"
#include "nn_config.h"

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
  if (lstat("/etc/passwd", &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == 0 &&
      !(st.st_mode & 022))
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

/* /tmp's case: a sticky directory others can write protects each entry for its owner, so
 * an entry of root's or the user's is safe there, another user's is not (base lies in /tmp,
 * so the first such directory on the way is /tmp itself). */
static void test_sticky_directory(void **state) {
  (void)state;
  need_root();
  char d[128];
  assert_int_equal(mkdir(sub("sticky", d, sizeof d), 01777), 0);
  assert_int_equal(chmod(d, 01777), 0);
  const char *theirs = put("sticky/theirs.conf", "x\n");
  assert_int_equal(chown(theirs, NOBODY, NOBODY), 0);
  expect_refused(theirs, "owned by uid 65534");
  /* a file in a directory others can write may have been renamed there by any of them: root's
   * own, in root's directory, is no longer taken, for root or anyone */
  char want[512];
  snprintf(want, sizeof want,
           "lies in directory %s, which others can write, so another user may have put "
           "it there",
           d);
  expect_refused_as(theirs, NOBODY, want);
  const char *mine = put("sticky/mine.conf", "x\n");
  expect_refused(mine, want);
  expect_refused_as(mine, NOBODY, want);
  /* a sticky directory of uid 65534's own: its file is read there, root's is not */
  char own[160];
  snprintf(own, sizeof own, "%s/own", d);
  assert_int_equal(mkdir(own, 01777), 0);
  assert_int_equal(chmod(own, 01777), 0);
  assert_int_equal(chown(own, NOBODY, NOBODY), 0);
  const char *own_file = put("sticky/own/m.conf", "x\n");
  snprintf(want, sizeof want,
           "owned by uid 0 and lies in directory %s, which others can write (only a file "
           "of uid 65534 is read there)",
           own);
  expect_refused_as(own_file, NOBODY, want);
  assert_int_equal(chown(own_file, NOBODY, NOBODY), 0);
  expect_trusted_as(own_file, NOBODY);
  /* a second name for root's file, made in the sticky directory: not the name root meant */
  const char *elsewhere = put("elsewhere.conf", "x\n");
  char linked[160];
  snprintf(linked, sizeof linked, "%s/linked.conf", d);
  assert_int_equal(link(elsewhere, linked), 0);
  snprintf(want, sizeof want,
           "the file has 2 hard links and lies in directory %s, which others can write", d);
  expect_refused(linked, want);
  expect_refused_as(linked, NOBODY, want);
  expect_trusted(elsewhere); /* its own directory is not open to others */
  /* a directory of uid 65534's in the sticky directory, holding a file of root's */
  char theirs_dir[160];
  snprintf(theirs_dir, sizeof theirs_dir, "%s/theirs.d", d);
  assert_int_equal(mkdir(theirs_dir, 0755), 0);
  const char *inside = put("sticky/theirs.d/m.conf", "x\n");
  assert_int_equal(chown(theirs_dir, NOBODY, NOBODY), 0);
  snprintf(want, sizeof want, "directory %s is owned by uid 65534", theirs_dir);
  expect_refused(inside, want);
}

/* The attack: uid 65534 cannot write root's mappings, but owns a link in the sticky
 * directory: it picks which of root's files root reads. The link is judged by its owner. */
static void test_link_in_sticky_directory(void **state) {
  (void)state;
  need_root();
  char d[128], evil[160], good[160], loop1[160], loop2[160];
  assert_int_equal(mkdir(sub("shared", d, sizeof d), 01777), 0);
  assert_int_equal(chmod(d, 01777), 0);
  const char *other = put("other-mapping.conf", "x\n"); /* root's, in a root directory */
  snprintf(evil, sizeof evil, "%s/m.conf", d);
  assert_int_equal(symlink(other, evil), 0);
  assert_int_equal(lchown(evil, NOBODY, NOBODY), 0);
  char want[512];
  snprintf(want, sizeof want,
           "symbolic link %s is owned by uid 65534 and lies in directory %s, which others can "
           "write (only a link of root is followed there)",
           evil, d);
  expect_refused(evil, want);
  expect_trusted_as(evil, NOBODY); /* its own link */
  /* root's own link there is root's choice */
  snprintf(good, sizeof good, "%s/root.conf", d);
  assert_int_equal(symlink(other, good), 0);
  expect_trusted(good);
  expect_trusted_as(good, NOBODY);
  /* links are followed a bounded number of times */
  snprintf(loop1, sizeof loop1, "%s/loop1", base);
  snprintf(loop2, sizeof loop2, "%s/loop2", base);
  assert_int_equal(symlink(loop2, loop1), 0);
  assert_int_equal(symlink(loop1, loop2), 0);
  char err[8192];
  assert_int_equal(trust_as(loop1, 0, err, sizeof err), NN_TRUST_ERROR);
  assert_non_null(strstr(err, "cannot open: Too many levels of symbolic links"));
}

/* The attack the sticky bit does not stop: uid 65534 renames a mapping of root's (root wrote it
 * into uid 65534's directory) to the name root's job reads in a root 1777 directory. */
static int rename_as_nobody(void *arg) {
  char **paths = arg;
  return rename(paths[0], paths[1]) == 0 ? 0 : 1;
}

static void test_file_renamed_into_sticky(void **state) {
  (void)state;
  need_root();
  char home[128], jobs[128], from[192], to[192];
  assert_int_equal(mkdir(sub("home", home, sizeof home), 0755), 0);
  assert_int_equal(chown(home, NOBODY, NOBODY), 0);
  assert_int_equal(mkdir(sub("jobs", jobs, sizeof jobs), 01777), 0);
  assert_int_equal(chmod(jobs, 01777), 0);
  snprintf(from, sizeof from, "%s/m.conf", home);
  snprintf(to, sizeof to, "%s/m.conf", jobs);
  put("home/m.conf", "x\n");
  expect_trusted_as(from, NOBODY); /* root's file in uid 65534's own directory */
  char *paths[] = {from, to};
  if (nn_test_as_uid(NOBODY, rename_as_nobody, paths) != 0)
    fail_msg("uid 65534 could not rename %s", from);
  struct stat st;
  assert_int_equal(lstat(to, &st), 0);
  assert_int_equal(st.st_uid, 0); /* root's file, under the name root's job uses */
  char want[512];
  snprintf(want, sizeof want,
           "lies in directory %s, which others can write, so another user may have put it "
           "there",
           jobs);
  expect_refused(to, want);
}

/* The attack's second half: a FIFO or device named through the path is refused
 * without being opened (inotify sees no open), and so is a file in a directory others can
 * write. A trusted file is opened: the control that inotify sees opens at all. */
static int opened(int in, const char *path, const char *target) {
  int wd = inotify_add_watch(in, target, IN_OPEN);
  if (wd < 0) fail_msg("inotify_add_watch %s: %s", target, strerror(errno));
  char err[8192];
  int fd = -1;
  int rc = nn_trust_open(NULL, path, &fd, err, sizeof err);
  if (fd >= 0) close(fd);
  char buf[4096] __attribute__((aligned(8)));
  ssize_t n = read(in, buf, sizeof buf);
  int seen = n > 0 && (((struct inotify_event *)buf)->mask & IN_OPEN);
  if (getenv("NN_TEST_DEBUG"))
    fprintf(stderr, "%s: rc %d, open seen %d: %s\n", path, rc, seen, err);
  inotify_rm_watch(in, wd);
  while (read(in, buf, sizeof buf) > 0) {} /* IN_IGNORED */
  return seen;
}

static void test_never_opened(void **state) {
  (void)state;
  char fifo[128], open_dir[128], err[8192];
  int in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  assert_true(in >= 0);
  assert_int_equal(mkfifo(sub("pipe.conf", fifo, sizeof fifo), 0600), 0);
  assert_int_equal(trust_as(fifo, geteuid(), err, sizeof err), NN_TRUST_ERROR);
  assert_non_null(strstr(err, "pipe.conf: cannot open: a FIFO, not a regular file"));
  assert_false(opened(in, fifo, fifo));
  setenv(NN_TRUST_OPTOUT_ENV, "1", 1); /* the opt-out never opens one either */
  assert_int_equal(trust_as(fifo, geteuid(), err, sizeof err), NN_TRUST_ERROR);
  assert_false(opened(in, fifo, fifo));
  unsetenv(NN_TRUST_OPTOUT_ENV);
  assert_int_equal(trust_as("/dev/zero", geteuid(), err, sizeof err), NN_TRUST_ERROR);
  assert_non_null(strstr(err, "/dev/zero: cannot open: a character device, not a regular file"));
  assert_false(opened(in, "/dev/null", "/dev/null"));
  assert_int_equal(mkdir(sub("wide", open_dir, sizeof open_dir), 0777), 0);
  assert_int_equal(chmod(open_dir, 0777), 0);
  const char *planted = put("wide/m.conf", "x\n");
  assert_false(opened(in, planted, planted));
  const char *good = put("opened.conf", "x\n");
  assert_true(opened(in, good, good));
  close(in);
}

/* The stall: the walk is linear in the depth (1,990 directories took 28.5 s with a
 * stat of every prefix for each file), and a walk budget bounds what one configuration
 * may cost. */
static void test_deep_path(void **state) {
  (void)state;
  char path[4096];
  int n = snprintf(path, sizeof path, "%s/deep", base);
  assert_int_equal(mkdir(path, 0755), 0);
  int depth = 0;
  while (n + 3 < 3900) {
    n += snprintf(path + n, sizeof path - (size_t)n, "/d");
    if (mkdir(path, 0755)) fail_msg("mkdir at depth %d: %s", depth, strerror(errno));
    depth++;
  }
  snprintf(path + n, sizeof path - (size_t)n, "/m.conf");
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fclose(f);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  expect_trusted(path);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
  print_message("trust walk of a path %d directories deep: %.2f ms\n", depth, ms);
  assert_true(depth > 1500);
  assert_true(ms < 100);
  /* the same directory again costs one step: the walk remembers it */
  struct nn_trust_walk w;
  nn_trust_walk_init(&w, geteuid(), depth + 110); /* the walk, then one step per file */
  int fd;
  char err[8192];
  assert_int_equal(nn_trust_open(&w, path, &fd, err, sizeof err), NN_TRUST_OK);
  close(fd);
  for (int i = 0; i < 100; i++) {
    assert_int_equal(nn_trust_open(&w, path, &fd, err, sizeof err), NN_TRUST_OK);
    close(fd);
  }
  nn_trust_walk_end(&w);
  /* a budget too small for the path: an error, never a long walk */
  nn_trust_walk_init(&w, geteuid(), 100);
  assert_int_equal(nn_trust_open(&w, path, &fd, err, sizeof err), NN_TRUST_ERROR);
  assert_non_null(
    strstr(err, "cannot open: too many directories and links to check for one configuration"));
  nn_trust_walk_end(&w);
}

/* Relative paths, "." and "..", a trailing slash. */
static void test_path_forms(void **state) {
  (void)state;
  char d[128], cwd[4096], err[8192];
  put("forms.conf", "x\n");
  assert_int_equal(mkdir(sub("forms", d, sizeof d), 0755), 0);
  assert_non_null(getcwd(cwd, sizeof cwd));
  assert_int_equal(chdir(d), 0);
  expect_trusted("../forms.conf");
  expect_trusted("./.././forms.conf");
  assert_int_equal(trust_as("../forms", geteuid(), err, sizeof err), NN_TRUST_ERROR);
  assert_non_null(strstr(err, "cannot open: a directory, not a regular file"));
  assert_int_equal(trust_as("../forms/", geteuid(), err, sizeof err), NN_TRUST_ERROR);
  assert_int_equal(trust_as("../nonexistent.conf", geteuid(), err, sizeof err), NN_TRUST_ERROR);
  assert_non_null(strstr(err, "../nonexistent.conf: cannot open: No such file or directory"));
  assert_int_equal(trust_as("../forms.conf/x", geteuid(), err, sizeof err), NN_TRUST_ERROR);
  assert_non_null(strstr(err, "cannot open: Not a directory"));
  assert_int_equal(chdir(cwd), 0);
}

static void test_opt_out(void **state) {
  (void)state;
  const char *f = put("dev.conf", "gpu 0 bus=01:00.0 numa=0\n");
  assert_int_equal(chmod(f, 0666), 0);
  char err[8192];
  setenv(NN_TRUST_OPTOUT_ENV, "yes", 1); /* only "1" */
  assert_int_equal(trust_as(f, geteuid(), err, sizeof err), NN_TRUST_REFUSED);
  setenv(NN_TRUST_OPTOUT_ENV, "1", 1);
  assert_int_equal(trust_as(f, geteuid(), err, sizeof err), NN_TRUST_OPTED_OUT);
  assert_non_null(
    strstr(err, "not trusted: writable by group and others (mode 0666); read anyway because "
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
  assert_non_null(
    strstr(d.msgs[0], "m.conf: not trusted: writable by group and others (mode 0666)"));
  nn_diag_clear(&d);

  const char *csv = put("r.csv", "allreduce,0,65536,ring,simple,-1,-1,-1\n");
  assert_int_equal(chmod(csv, 0666), 0);
  const char *inc = put("inc.conf", "gpu 0 bus=01:00.0 numa=0\ninclude-csv r.csv\n");
  assert_int_equal(nn_config_load(inc, NULL, &c, &d), -1);
  assert_true(d.n >= 1);
  assert_non_null(strstr(d.msgs[0], "inc.conf:2: include-csv: "));
  assert_non_null(
    strstr(d.msgs[0], "r.csv: not trusted: writable by group and others (mode 0666)"));
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
  assert_int_equal(nn_test_warns, 2); /* the file and reason, then the verdict; once */
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
    cmocka_unit_test(test_good_file),
    cmocka_unit_test(test_writable_file),
    cmocka_unit_test(test_other_owner),
    cmocka_unit_test(test_untrusted_directory),
    cmocka_unit_test(test_symlinks),
    cmocka_unit_test(test_sticky_directory),
    cmocka_unit_test(test_link_in_sticky_directory),
    cmocka_unit_test(test_file_renamed_into_sticky),
    cmocka_unit_test(test_never_opened),
    cmocka_unit_test(test_deep_path),
    cmocka_unit_test(test_path_forms),
    cmocka_unit_test(test_opt_out),
    cmocka_unit_test(test_config_files_checked),
    cmocka_unit_test(test_cache_adopts_the_fixed_file),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
