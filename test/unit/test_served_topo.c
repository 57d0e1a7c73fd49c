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
 * and does the renames itself, so the test also shows the attack is possible at all.
 *
 * Also what the plugin spends doing so: a predictable private directory that someone else
 * made first (squatted: the plugin served nothing while it stayed) is replaced by a fresh
 * mkdtemp one, said once; and descriptors are one per distinct content, a few in all
 * (one per config version reached 1,023 under `ulimit -n 1024` and the plugin served
 * nothing). */
#include "nn_test.h"

#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <stdarg.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "env.h"
#include "tuner.h"

#define NOBODY 65534
#define BROKEN "<system version=\"2\">broken"

static const char *MAPPING = "cpu vendor=AuthenticAMD family=25 model=17\n"
                             "numa 0 cpus=0-15\nnuma 1 cpus=16-31\n"
                             "gpu 0 bus=01:00.0 numa=1\ngpu 1 bus=02:00.0 numa=1\n"
                             "gpu 2 bus=03:00.0 numa=0\ngpu 3 bus=04:00.0 numa=0\n"
                             "topology mode=numa\n";

/* The same machine with the GPUs on the other sockets: another XML. */
static const char *MAPPING_SWAPPED = "cpu vendor=AuthenticAMD family=25 model=17\n"
                                     "numa 0 cpus=0-15\nnuma 1 cpus=16-31\n"
                                     "gpu 0 bus=01:00.0 numa=0\ngpu 1 bus=02:00.0 numa=0\n"
                                     "gpu 2 bus=03:00.0 numa=1\ngpu 3 bus=04:00.0 numa=1\n"
                                     "topology mode=numa\n";

static char base[64];

/* WARN lines through NCCL's logger: how many, and the last one. */
static int warns, model_warns;
static char last_warn[2048];

__attribute__((format(printf, 5, 6))) static void logger(int level, unsigned long flags,
                                                         const char *file, int line,
                                                         const char *fmt, ...) {
  (void)flags;
  (void)file;
  (void)line;
  if (level != NN_NCCL_LOG_WARN) return;
  va_list ap;
  va_start(ap, fmt);
  char msg[sizeof last_warn];
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  /* These mappings force mode=numa on two sockets, which NCCL's model rates slower: that
   * WARN (test_topology, test_env_verdict) is counted apart from the ones tested here. */
  if (strstr(msg, "NCCL's model rates worse")) {
    model_warns++;
    return;
  }
  snprintf(last_warn, sizeof last_warn, "%s", msg);
  warns++;
}

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
  assert_int_equal(stat(their_file, &theirs), 0); /* the attacker's file is there, and not it */
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
  /* A new config version with the same XML keeps the descriptor: nothing is stored. */
  char conf[128], tmp[140], text[1024], c2[65536];
  snprintf(conf, sizeof conf, "%s/m.conf", base);
  snprintf(tmp, sizeof tmp, "%s.new", conf);
  snprintf(text, sizeof text, "# version 2\n%s", MAPPING);
  write_text(tmp, text);
  assert_int_equal(rename(tmp, conf), 0);
  expect_unswapped(c1, &st1, their);
  /* Another XML meets the attacker's directory: refused, so it is served from a fresh
   * directory of its own, never from theirs. */
  write_text(tmp, MAPPING_SWAPPED);
  assert_int_equal(rename(tmp, conf), 0);
  const char *p3 = nn_env_get("NCCL_TOPO_FILE");
  if (!p3) fail_msg("nothing served once the private directory was taken");
  struct stat st3;
  read_served(p3, c2, sizeof c2, &st3);
  assert_null(strstr(c2, "broken"));
  assert_int_equal(strncmp(c2, "<system version=\"1\">", 20), 0);
  assert_string_not_equal(c2, c1);
  assert_int_equal(st3.st_uid, 0);
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
  assert_int_equal(nn_test_remove_tree(priv), 0); /* the cleaner */
  assert_int_equal(attack(priv, NULL, name), 0);
  snprintf(their, sizeof their, "%s/%s", priv, name);
  expect_unswapped(c1, &st1, their);
  assert_int_equal(nn_env_finalize(), 0);
  unsetenv("TMPDIR");
}

/* As uid 65534: make `path` first, a directory of its own or (link_to) a symbolic link. */
static int squat(const char *path, const char *link_to) {
  pid_t pid = fork();
  if (pid == 0) {
    if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY)) _exit(10);
    _exit(link_to ? (symlink(link_to, path) ? 11 : 0) : (mkdir(path, 0755) ? 12 : 0));
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 99;
}

/* The entries of dir other than . and .. */
static int entries(const char *dir) {
  DIR *d = opendir(dir);
  assert_non_null(d);
  int n = 0;
  for (struct dirent *e; (e = readdir(d));) n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
  closedir(d);
  return n;
}

/* Rewrites the mapping (by rename) with `text`. */
static void new_mapping(const char *text) {
  char conf[128], tmp[140];
  snprintf(conf, sizeof conf, "%s/m.conf", base);
  snprintf(tmp, sizeof tmp, "%s.new", conf);
  write_text(tmp, text);
  assert_int_equal(rename(tmp, conf), 0);
}

/* Runs first: the fallback is announced once per process. Another user made
 * $TMPDIR/nccl-numa-0 before root's job started (it used to serve no topology for as long
 * as that stayed): root's plugin serves from a fresh directory, says so in one WARN, and
 * leaves nothing behind in TMPDIR. */
static void test_squatted_private_dir(void **state) {
  (void)state;
  need_root();
  char tmpdir[128], priv[160], c1[65536], c2[65536];
  snprintf(tmpdir, sizeof tmpdir, "%s/sq", base);
  assert_int_equal(mkdir(tmpdir, 0700), 0);
  assert_int_equal(chmod(tmpdir, 01777), 0);
  snprintf(priv, sizeof priv, "%s/nccl-numa-0", tmpdir);
  assert_int_equal(squat(priv, NULL), 0);
  struct stat st;
  assert_int_equal(lstat(priv, &st), 0);
  assert_int_equal(st.st_uid, NOBODY); /* the squat took place */
  unsetenv("XDG_RUNTIME_DIR");
  setenv("TMPDIR", tmpdir, 1);
  warns = 0;
  assert_int_equal(nn_env_init(2, 28, 9, "", logger, 2), 0);
  const char *p1 = nn_env_get("NCCL_TOPO_FILE");
  if (!p1) fail_msg("nothing served while %s is another user's (warn: %s)", priv, last_warn);
  read_served(p1, c1, sizeof c1, &st);
  assert_int_equal(strncmp(c1, "<system version=\"1\">", 20), 0);
  assert_int_equal(st.st_uid, 0);
  assert_int_equal(warns, 1);
  if (!strstr(last_warn, priv) || !strstr(last_warn, "owned by uid 65534") ||
      !strstr(last_warn, "fresh"))
    fail_msg("the WARN does not say what was refused and what is done instead: %s", last_warn);
  char target[512] = "";
  assert_true(readlink(p1, target, sizeof target - 1) > 0);
  if (strncmp(target, priv, strlen(priv)) || target[strlen(priv)] != '.' ||
      !strstr(target, "(deleted)"))
    fail_msg("served from %s, not from a removed fresh directory next to %s", target, priv);
  /* A second content: served the same way, no second WARN, nothing left in TMPDIR. */
  new_mapping(MAPPING_SWAPPED);
  const char *p2 = nn_env_get("NCCL_TOPO_FILE");
  if (!p2) fail_msg("second content not served");
  read_served(p2, c2, sizeof c2, &st);
  assert_string_not_equal(c1, c2);
  assert_int_equal(warns, 1);
  assert_int_equal(entries(tmpdir), 1);
  assert_int_equal(nn_env_finalize(), 0);
  /* A symbolic link squatting the name: refused the same way, still served. */
  assert_int_equal(rmdir(priv), 0);
  assert_int_equal(squat(priv, "/root"), 0);
  new_mapping(MAPPING);
  assert_int_equal(nn_env_init(2, 28, 9, "", logger, 2), 0);
  const char *p3 = nn_env_get("NCCL_TOPO_FILE");
  if (!p3) fail_msg("nothing served while %s is a link", priv);
  read_served(p3, c2, sizeof c2, &st);
  assert_string_equal(c2, c1);
  assert_int_equal(warns, 1);
  assert_int_equal(entries(tmpdir), 1);
  assert_int_equal(nn_env_finalize(), 0);
  unsetenv("TMPDIR");
}

/* Open descriptors of this process. */
static int open_fds(void) { return entries("/proc/self/fd") - 1; /* less opendir's own */ }

/* One communicator as NCCL makes it: the topology looked up and opened by name, then the
 * tuner's init and finalize. Returns the served XML's first 64 bytes in head. */
static void communicator(int i, char *head, size_t size) {
  const char *p = nn_env_get("NCCL_TOPO_FILE");
  if (!p) fail_msg("communicator %d: no topology served (warn: %s)", i, last_warn);
  FILE *f = fopen(p, "r");
  if (!f) fail_msg("communicator %d: cannot open the served %s", i, p);
  size_t n = fread(head, 1, size - 1, f);
  head[n] = 0;
  fclose(f);
  struct nn_tuner_init_args a = {
    .abi_version = 5, .comm_id = (uint64_t)i, .n_ranks = 4, .n_nodes = 1, .logger = logger};
  void *ctx = NULL;
  assert_int_equal(nn_tuner_init(&a, &ctx), 0);
  assert_int_equal(nn_tuner_finalize(ctx), 0);
}

/* 1,100 `touch`es of the mapping, a communicator after each, under `ulimit -n 64`: every
 * touch is a new config version with the same XML, served the same descriptor. */
static void test_touches_share_one_descriptor(void **state) {
  (void)state;
  char xdg[128], conf[128], head[256];
  snprintf(xdg, sizeof xdg, "%s/xdg-touch", base);
  assert_int_equal(mkdir(xdg, 0700), 0);
  setenv("XDG_RUNTIME_DIR", xdg, 1);
  snprintf(conf, sizeof conf, "%s/m.conf", base);
  write_text(conf, MAPPING);
  struct rlimit old, low = {64, 64};
  assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
  if (old.rlim_cur < 64) low = old;
  low.rlim_max = old.rlim_max;
  assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
  int before = open_fds(), most = 0;
  assert_int_equal(nn_env_init(2, 28, 9, "", logger, 2), 0);
  warns = model_warns = 0;
  for (int i = 0; i < 1100; i++) {
    struct timespec t[2] = {{1700000000 + i, 0}, {1700000000 + i, 0}}; /* a new mtime each time */
    assert_int_equal(utimensat(AT_FDCWD, conf, t, 0), 0);
    communicator(i, head, sizeof head);
    assert_int_equal(strncmp(head, "<system version=\"1\">", 20), 0);
    int now = open_fds() - before;
    if (now > most) most = now;
  }
  assert_int_equal(warns, 0);
  assert_int_equal(model_warns, 1); /* said with the one content served, not per version */
  assert_int_equal(nn_env_finalize(), 0);
  assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
  print_message("1,100 touches: at most %d descriptor(s) open beyond the %d before\n", most,
                before);
  assert_true(most >= 1);               /* the served one is there ... */
  assert_true(most <= 1);               /* ... and only it */
  assert_int_equal(open_fds(), before); /* finalize closed it */
  unsetenv("XDG_RUNTIME_DIR");
}

/* Contents that keep changing (6 placements of the GPUs in turn, 10 times over: more
 * than the slots): never more than NN_TOPO_SLOTS (4) descriptors, the oldest closed for a
 * new one, and each communicator reads its own content, also one whose slot was closed. */
static void test_changing_contents_bounded(void **state) {
  (void)state;
  enum { N = 6 };
  char xdg[128], head[256], want[N][256], maps[N][1024];
  snprintf(xdg, sizeof xdg, "%s/xdg-change", base);
  assert_int_equal(mkdir(xdg, 0700), 0);
  setenv("XDG_RUNTIME_DIR", xdg, 1);
  for (int m = 0; m < N; m++) { /* gpu k on node bit k of m + 1: both nodes used */
    int len = snprintf(maps[m], sizeof maps[m],
                       "cpu vendor=AuthenticAMD family=25 model=17\n"
                       "numa 0 cpus=0-15\nnuma 1 cpus=16-31\ntopology mode=numa\n");
    for (int k = 0; k < 4; k++)
      len += snprintf(maps[m] + len, sizeof maps[m] - (size_t)len, "gpu %d bus=0%d:00.0 numa=%d\n",
                      k, k + 1, (m + 1) >> k & 1);
  }
  int before = open_fds(), most = 0;
  assert_int_equal(nn_env_init(2, 28, 9, "", logger, 2), 0);
  warns = 0;
  for (int i = 0; i < 10 * N; i++) {
    new_mapping(maps[i % N]);
    communicator(i, head, sizeof head);
    if (i < N) snprintf(want[i], sizeof want[i], "%s", head);
    else assert_string_equal(head, want[i % N]);
    int now = open_fds() - before;
    if (now > most) most = now;
  }
  for (int m = 1; m < N; m++) assert_string_not_equal(want[m - 1], want[m]);
  assert_int_equal(warns, 0);
  assert_int_equal(nn_env_finalize(), 0);
  print_message("%d contents in turn: at most %d descriptor(s) open\n", N, most);
  assert_int_equal(most, 4);
  assert_int_equal(open_fds(), before);
  unsetenv("XDG_RUNTIME_DIR");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_squatted_private_dir),
    cmocka_unit_test(test_xdg_of_another_user),
    cmocka_unit_test(test_sticky_tmpdir_after_a_cleaner),
    cmocka_unit_test(test_touches_share_one_descriptor),
    cmocka_unit_test(test_changing_contents_bounded),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
