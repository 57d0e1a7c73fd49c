/* SPDX-License-Identifier: BSD-3-Clause */
/* test_served_topo.c - the topology the env plugin serves cannot be swapped by the user
 * who owns the private directory's parent.
 *
 * The attack (reproduced on the code that handed out the path by name): a root process
 * whose XDG_RUNTIME_DIR belongs to another user (what `sudo -E` leaves) is served a
 * root-owned file for communicator 1; that user renames `nccl-numa` away and puts in its
 * place a directory with a file of the same (content-hash) name holding broken XML:
 * communicator 2 read the user's file. The same in a sticky world-writable TMPDIR once a
 * cleaner removed the idle directory. The attacker here is a child that became uid 65534
 * and does the renames itself, so the test also shows the attack is possible at all. */
#include "nn_test.h"

#include <dirent.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "env.h"

#define NOBODY 65534
#define BROKEN "<system version=\"2\">broken"

static const char *MAPPING =
    "cpu vendor=AuthenticAMD family=25 model=17\n"
    "numa 0 cpus=0-15\nnuma 1 cpus=16-31\n"
    "gpu 0 bus=01:00.0 numa=1\ngpu 1 bus=02:00.0 numa=1\n"
    "gpu 2 bus=03:00.0 numa=0\ngpu 3 bus=04:00.0 numa=0\n"
    "topology mode=numa\n";

static char base[64];

static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  assert_int_equal(fclose(f), 0);
}

/* The whole of a file as NCCL opens it (fopen by name). */
static void read_served(const char *path, char *buf, size_t size, struct stat *st) {
  FILE *f = fopen(path, "r");
  if (!f) fail_msg("cannot open the served %s", path);
  size_t n = fread(buf, 1, size - 1, f);
  buf[n] = 0;
  assert_int_equal(fstat(fileno(f), st), 0);
  fclose(f);
}

/* The name of the one topo-*.xml in dir. */
static void stored_name(const char *dir, char *name, size_t size) {
  DIR *d = opendir(dir);
  assert_non_null(d);
  name[0] = 0;
  for (struct dirent *e; (e = readdir(d));)
    if (!strncmp(e->d_name, "topo-", 5)) snprintf(name, size, "%s", e->d_name);
  closedir(d);
  assert_true(name[0] != 0);
}

/* As uid 65534: optionally rename `dir` away, then make `dir` again (its own) holding
 * `name` with broken XML. Returns 0 when the attacker managed all of it. */
static int attack(const char *dir, const char *moved, const char *name) {
  pid_t pid = fork();
  if (pid == 0) {
    if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY)) _exit(10);
    if (moved && rename(dir, moved)) _exit(11);
    if (mkdir(dir, 0755)) _exit(12);
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f || fputs(BROKEN, f) < 0 || fclose(f)) _exit(13);
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 99;
}

static int setup(void **state) {
  (void)state;
  if (geteuid() != 0) return 0;
  snprintf(base, sizeof base, "/tmp/nn-served-XXXXXX");
  if (!mkdtemp(base) || chmod(base, 0755)) return -1;
  char conf[128];
  snprintf(conf, sizeof conf, "%s/m.conf", base);
  write_text(conf, MAPPING);
  setenv("NCCL_NUMA_CONFIG", conf, 1);
  unsetenv("NCCL_TOPO_FILE");
  unsetenv("NCCL_NUMA_LOG_FILE");
  return 0;
}

static int teardown(void **state) {
  (void)state;
  if (!base[0]) return 0;
  return nn_test_remove_tree(base);
}

static void need_root(void) {
  if (geteuid() != 0) {
    print_message("skipped: the swap needs root (a second user does the renames)\n");
    skip();
  }
}

/* Communicator 1 is served; returns the served path's content and identity. */
static const char *first_communicator(char *text, size_t size, struct stat *st) {
  assert_int_equal(nn_env_init(2, 28, 9, "", NULL, 2), 0);
  const char *p1 = nn_env_get("NCCL_TOPO_FILE");
  if (!p1) fail_msg("no topology served for communicator 1");
  assert_int_equal(strncmp(p1, "/proc/self/fd/", 14), 0);
  read_served(p1, text, size, st);
  assert_int_equal(strncmp(text, "<system version=\"1\">", 20), 0);
  assert_int_equal(st->st_uid, 0);
  return p1;
}

static void expect_unswapped(const char *c1, const struct stat *st1, const char *their_file) {
  const char *p2 = nn_env_get("NCCL_TOPO_FILE");
  if (!p2) fail_msg("no topology served for communicator 2");
  char c2[65536];
  struct stat st2, theirs;
  read_served(p2, c2, sizeof c2, &st2);
  assert_null(strstr(c2, "broken"));
  assert_string_equal(c2, c1);
  assert_int_equal(st2.st_ino, st1->st_ino);
  assert_int_equal(st2.st_uid, 0);
  assert_int_equal(stat(their_file, &theirs), 0);   /* the attacker's file is there, and not it */
  assert_int_equal(theirs.st_uid, NOBODY);
  assert_true(theirs.st_ino != st2.st_ino);
}

static void test_xdg_of_another_user(void **state) {
  (void)state;
  need_root();
  char xdg[128], priv[160], moved[160], name[256], their[420], c1[65536];
  snprintf(xdg, sizeof xdg, "%s/xdg", base);
  assert_int_equal(mkdir(xdg, 0700), 0);
  assert_int_equal(chown(xdg, NOBODY, NOBODY), 0);
  setenv("XDG_RUNTIME_DIR", xdg, 1);
  struct stat st1;
  first_communicator(c1, sizeof c1, &st1);
  snprintf(priv, sizeof priv, "%s/nccl-numa", xdg);
  snprintf(moved, sizeof moved, "%s/old", xdg);
  stored_name(priv, name, sizeof name);
  assert_int_equal(attack(priv, moved, name), 0);
  snprintf(their, sizeof their, "%s/%s", priv, name);
  expect_unswapped(c1, &st1, their);
  /* A new config version meets the attacker's directory: refused, nothing served. */
  char conf[128], tmp[140], text[1024];
  snprintf(conf, sizeof conf, "%s/m.conf", base);
  snprintf(tmp, sizeof tmp, "%s.new", conf);
  snprintf(text, sizeof text, "# version 2\n%s", MAPPING);
  write_text(tmp, text);
  assert_int_equal(rename(tmp, conf), 0);
  assert_null(nn_env_get("NCCL_TOPO_FILE"));
  assert_int_equal(nn_env_finalize(), 0);
  write_text(conf, MAPPING);
}

static void test_sticky_tmpdir_after_a_cleaner(void **state) {
  (void)state;
  need_root();
  char tmpdir[128], priv[160], name[256], their[420], c1[65536];
  snprintf(tmpdir, sizeof tmpdir, "%s/tmp", base);
  assert_int_equal(mkdir(tmpdir, 0700), 0);
  assert_int_equal(chmod(tmpdir, 01777), 0);
  unsetenv("XDG_RUNTIME_DIR");
  setenv("TMPDIR", tmpdir, 1);
  struct stat st1;
  first_communicator(c1, sizeof c1, &st1);
  snprintf(priv, sizeof priv, "%s/nccl-numa-0", tmpdir);
  stored_name(priv, name, sizeof name);
  assert_int_equal(nn_test_remove_tree(priv), 0);   /* the cleaner */
  assert_int_equal(attack(priv, NULL, name), 0);
  snprintf(their, sizeof their, "%s/%s", priv, name);
  expect_unswapped(c1, &st1, their);
  assert_int_equal(nn_env_finalize(), 0);
  unsetenv("TMPDIR");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_xdg_of_another_user),
    cmocka_unit_test(test_sticky_tmpdir_after_a_cleaner),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
