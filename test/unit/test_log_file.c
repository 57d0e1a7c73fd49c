/* SPDX-License-Identifier: BSD-3-Clause */
/* test_log_file.c - NCCL_NUMA_LOG_FILE in a shared place: the record goes only into a
 * regular file of the effective user that nobody else can write, reached without
 * following any symbolic link, or into a file created new with mode 0600.
 *
 * The attacks (each reproduced on the code that opened the path with O_APPEND|O_CREAT
 * following every link but the last): root appended to a 0666 file another user created
 * first in sticky /tmp, and that user read the records `check --compare` later trusts; a
 * FIFO with a reader got the record; a parent directory that another user made a symbolic
 * link to root's home made root create the file there. The other user here is a child that
 * became uid 65534, so each test also shows the attack setup is possible at all. */
#include "nn_test.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "log.h"
#include "tuner.h"

#define NOBODY 65534
#define LINE "{\"commId\":\"0x1\"}"

static char base[64], sticky[96], roothome[96];

static int setup(void **state) {
  (void)state;
  snprintf(base, sizeof base, "/tmp/nn-logfile-XXXXXX");
  if (!mkdtemp(base) || chmod(base, 0755)) return -1;
  snprintf(sticky, sizeof sticky, "%s/tmp", base);
  snprintf(roothome, sizeof roothome, "%s/root", base);
  if (mkdir(sticky, 0700) || chmod(sticky, 01777) || mkdir(roothome, 0700)) return -1;
  return 0;
}

static int teardown(void **state) {
  (void)state;
  return nn_test_remove_tree(base);
}

static void need_root(void) {
  if (geteuid() != 0) {
    print_message("skipped: the attack needs root (a second user prepares the path)\n");
    skip();
  }
}

/* As uid 65534: creates `path` as a 0666 file, or (link_to) a symbolic link to link_to. */
static void as_nobody(const char *path, const char *link_to) {
  pid_t pid = fork();
  if (pid == 0) {
    if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY)) _exit(10);
    if (link_to) _exit(symlink(link_to, path) ? 11 : 0);
    umask(0);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0666);
    _exit(fd < 0 ? 12 : 0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  struct stat st;
  assert_int_equal(lstat(path, &st), 0);
  assert_int_equal(st.st_uid, NOBODY); /* the other user's, as the attack needs */
}

static void expect_refused(const char *path, const char *why) {
  char err[4400] = "";
  alarm(10); /* a write that blocks fails the test instead of hanging it */
  int rc = nn_log_append_line(path, LINE "\n", strlen(LINE "\n"), err, sizeof err);
  alarm(0);
  if (rc != NN_LOG_REFUSED) fail_msg("%s: not refused (%d, '%s')", path, rc, err);
  if (!strstr(err, path) || !strstr(err, why))
    fail_msg("'%s' does not name %s and '%s'", err, path, why);
}

static off_t size_of(const char *path) {
  struct stat st;
  assert_int_equal(stat(path, &st), 0);
  return st.st_size;
}

static void test_file_of_another_user(void **state) {
  (void)state;
  need_root();
  char path[160];
  snprintf(path, sizeof path, "%s/nccl-numa.json", sticky);
  as_nobody(path, NULL);
  expect_refused(path, "owned by uid 65534, not by uid 0: refused");
  assert_int_equal(size_of(path), 0);
}

/* A FIFO with a reader: no record reaches the reader, and nothing blocks; without one, the
 * same. The FIFO is refused before it is opened. */
static void test_fifo(void **state) {
  (void)state;
  char path[160];
  snprintf(path, sizeof path, "%s/fifo.json", sticky);
  assert_int_equal(mkfifo(path, 0666), 0);
  expect_refused(path, "a FIFO, not a regular file");
  int reader = open(path, O_RDONLY | O_NONBLOCK);
  assert_true(reader >= 0);
  int writer = open(path, O_WRONLY | O_NONBLOCK); /* a writer could get in: the reader is there */
  assert_true(writer >= 0);
  close(writer);
  expect_refused(path, "a FIFO, not a regular file");
  char got[64];
  assert_true(read(reader, got, sizeof got) <= 0); /* nothing arrived */
  close(reader);
}

/* sticky/link -> root's directory, made by the other user: root must not create the file
 * behind it; a final component that is a link is refused too. */
static void test_symlinked_parent(void **state) {
  (void)state;
  need_root();
  char link[160], path[200], behind[200];
  snprintf(link, sizeof link, "%s/link", sticky);
  as_nobody(link, roothome);
  snprintf(path, sizeof path, "%s/new.json", link);
  snprintf(behind, sizeof behind, "%s/new.json", roothome);
  expect_refused(path, "/tmp/link is a symbolic link: refused");
  assert_int_equal(access(behind, F_OK), -1);
  snprintf(link, sizeof link, "%s/final.json", sticky);
  as_nobody(link, behind);
  expect_refused(link, "a symbolic link, not a regular file");
  assert_int_equal(access(behind, F_OK), -1);
}

/* A fresh file is created 0600 whatever the umask and gets the whole record; the next one
 * is appended. */
static void test_fresh_file(void **state) {
  (void)state;
  const mode_t masks[2] = {0, 0277};
  for (int i = 0; i < 2; i++) {
    char path[160], err[4400] = "";
    snprintf(path, sizeof path, "%s/fresh-%d.json", base, i);
    mode_t old = umask(masks[i]);
    int rc = nn_log_append_line(path, LINE "\n", strlen(LINE "\n"), err, sizeof err);
    umask(old);
    if (rc) fail_msg("%s: %s", path, err);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0600);
    assert_int_equal(st.st_uid, geteuid());
    assert_int_equal(nn_log_append_line(path, LINE "\n", strlen(LINE "\n"), err, sizeof err), 0);
    size_t len = 0;
    char *text = nn_test_slurp(path, &len);
    assert_string_equal(text, LINE "\n" LINE "\n");
    free(text);
  }
}

/* Our own file: 0644 is fine; group write or a second hard link is not. */
static void test_own_file_modes(void **state) {
  (void)state;
  char path[160], other[160], err[4400] = "";
  snprintf(path, sizeof path, "%s/own.json", base);
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
  assert_true(fd >= 0);
  close(fd);
  assert_int_equal(chmod(path, 0644), 0);
  assert_int_equal(nn_log_append_line(path, LINE "\n", strlen(LINE "\n"), err, sizeof err), 0);
  assert_int_equal(chmod(path, 0620), 0);
  expect_refused(path, "mode 0620 lets others write it");
  assert_int_equal(chmod(path, 0600), 0);
  snprintf(other, sizeof other, "%s/linked.json", base);
  assert_int_equal(link(path, other), 0);
  expect_refused(path, "2 hard links");
  assert_int_equal(size_of(path), (off_t)strlen(LINE "\n"));
}

static int warns;
static char last_warn[4096];

__attribute__((format(printf, 5, 6))) static void logger(int level, unsigned long flags,
                                                         const char *file, int line,
                                                         const char *fmt, ...) {
  (void)flags;
  (void)file;
  (void)line;
  if (level != NN_NCCL_LOG_WARN) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(last_warn, sizeof last_warn, fmt, ap);
  va_end(ap);
  warns++;
}

/* Through the tuner: a refused log file is one WARN for the process, not one per
 * communicator, and no record. */
static void test_tuner_warns_once(void **state) {
  (void)state;
  char conf[160], path[160];
  snprintf(conf, sizeof conf, "%s/m.conf", base);
  FILE *f = fopen(conf, "w");
  assert_non_null(f);
  fputs("rule coll=allreduce bytes=0-64K algo=ring proto=ll\n", f);
  assert_int_equal(fclose(f), 0);
  snprintf(path, sizeof path, "%s/open.json", base);
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
  assert_true(fd >= 0);
  close(fd);
  assert_int_equal(chmod(path, 0666), 0);
  setenv("NCCL_NUMA_CONFIG", conf, 1);
  setenv("NCCL_NUMA_LOG_FILE", path, 1);
  warns = 0;
  for (int i = 0; i < 3; i++) {
    struct nn_tuner_init_args a = {
      .abi_version = 5, .comm_id = (uint64_t)i + 1, .n_ranks = 2, .n_nodes = 1, .logger = logger};
    void *ctx = NULL;
    assert_int_equal(nn_tuner_init(&a, &ctx), 0);
    assert_int_equal(nn_tuner_finalize(ctx), 0);
  }
  unsetenv("NCCL_NUMA_LOG_FILE");
  unsetenv("NCCL_NUMA_CONFIG");
  assert_int_equal(warns, 1);
  if (!strstr(last_warn, path) || !strstr(last_warn, "mode 0666 lets others write it: refused"))
    fail_msg("WARN: %s", last_warn);
  assert_int_equal(size_of(path), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_file_of_another_user), cmocka_unit_test(test_fifo),
    cmocka_unit_test(test_symlinked_parent),     cmocka_unit_test(test_fresh_file),
    cmocka_unit_test(test_own_file_modes),       cmocka_unit_test(test_tuner_warns_once),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
