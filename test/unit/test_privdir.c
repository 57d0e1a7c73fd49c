/* SPDX-License-Identifier: BSD-3-Clause */
/* test_privdir.c - the private directory and atomic content-addressed files. */
#include "nn_test.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "privdir.h"

/* A fresh parent directory per test; the private dir is <base>/priv. */
struct tdir {
  char base[64];
  char priv[96];
};

static int setup(void **state) {
  struct tdir *t = calloc(1, sizeof *t);
  if (!t) return -1;
  strcpy(t->base, "/tmp/nn-privdir-XXXXXX");
  if (!mkdtemp(t->base)) {
    free(t);
    return -1;
  }
  snprintf(t->priv, sizeof t->priv, "%s/priv", t->base);
  *state = t;
  return 0;
}

static int teardown(void **state) {
  struct tdir *t = *state;
  int rc = nn_test_remove_tree(t->base);
  free(t);
  return rc;
}

static void expect_open_refused(const char *dir, const char *needle) {
  char err[512] = "";
  int fd = nn_privdir_open(dir, err, sizeof err);
  if (fd >= 0) {
    close(fd);
    fail_msg("%s accepted, expected '%s'", dir, needle);
  }
  if (!strstr(err, needle)) fail_msg("error '%s' lacks '%s'", err, needle);
  if (!strstr(err, dir)) fail_msg("error '%s' does not name %s", err, dir);
}

static char *read_all(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  char *buf = malloc(1 << 20);
  *len = fread(buf, 1, 1 << 20, f);
  fclose(f);
  return buf;
}

static void test_hash_vectors(void **state) {
  (void)state;
  /* Published FNV-1a 64-bit test vectors. */
  assert_true(nn_privdir_hash("", 0) == 0xcbf29ce484222325ull);
  assert_true(nn_privdir_hash("a", 1) == 0xaf63dc4c8601ec8cull);
  assert_true(nn_privdir_hash("foobar", 6) == 0x85944171f73967e8ull);
}

static void test_path_from_env(void **state) {
  (void)state;
  char buf[256], err[128], want[128];
  setenv("XDG_RUNTIME_DIR", "/run/user/42/", 1);
  assert_int_equal(nn_privdir_path(buf, sizeof buf, err, sizeof err), 0);
  assert_string_equal(buf, "/run/user/42/nccl-numa");
  /* Relative or empty XDG_RUNTIME_DIR: ignored. */
  setenv("XDG_RUNTIME_DIR", "run/user/42", 1);
  setenv("TMPDIR", "/var/tmp", 1);
  assert_int_equal(nn_privdir_path(buf, sizeof buf, err, sizeof err), 0);
  snprintf(want, sizeof want, "/var/tmp/nccl-numa-%u", (unsigned)geteuid());
  assert_string_equal(buf, want);
  setenv("XDG_RUNTIME_DIR", "", 1);
  setenv("TMPDIR", "relative", 1);
  assert_int_equal(nn_privdir_path(buf, sizeof buf, err, sizeof err), 0);
  snprintf(want, sizeof want, "/tmp/nccl-numa-%u", (unsigned)geteuid());
  assert_string_equal(buf, want);
  unsetenv("XDG_RUNTIME_DIR");
  unsetenv("TMPDIR");
  assert_int_equal(nn_privdir_path(buf, sizeof buf, err, sizeof err), 0);
  assert_string_equal(buf, want);
  assert_int_equal(nn_privdir_path(buf, 8, err, sizeof err), -1);
  assert_non_null(strstr(err, "too long"));
}

static void test_created_private(void **state) {
  struct tdir *t = *state;
  mode_t old = umask(0); /* even a permissive umask gives 0700 */
  char err[256];
  int fd = nn_privdir_open(t->priv, err, sizeof err);
  umask(old);
  if (fd < 0) fail_msg("%s", err);
  struct stat st;
  assert_int_equal(lstat(t->priv, &st), 0);
  assert_true(S_ISDIR(st.st_mode));
  assert_int_equal(st.st_mode & 07777, 0700);
  assert_int_equal(st.st_uid, geteuid());
  close(fd);
  /* Existing and fine: opened again. */
  fd = nn_privdir_open(t->priv, err, sizeof err);
  assert_true(fd >= 0);
  close(fd);
}

/* mkdir's mode goes through the umask: 0277 used to leave 0500, and every later run
 * failed to write into it. Now created exactly 0700, and an existing 0500 repaired. */
static void test_umask_and_repair(void **state) {
  struct tdir *t = *state;
  mode_t old = umask(0277);
  char err[256], out[256];
  int fd = nn_privdir_open(t->priv, err, sizeof err);
  umask(old);
  if (fd < 0) fail_msg("%s", err);
  close(fd);
  struct stat st;
  assert_int_equal(lstat(t->priv, &st), 0);
  assert_int_equal(st.st_mode & 07777, 0700);
  assert_int_equal(chmod(t->priv, 0500), 0);
  old = umask(0277);
  int rc =
    nn_privdir_store(t->priv, "topo-", ".xml", "x", 1, out, sizeof out, NULL, err, sizeof err);
  umask(old);
  if (rc) fail_msg("%s", err);
  assert_int_equal(lstat(t->priv, &st), 0);
  assert_int_equal(st.st_mode & 07777, 0700);
  assert_int_equal(lstat(out, &st), 0);
  assert_int_equal(st.st_mode & 07777, 0600);
}

/* The descriptor handed out holds the stored content whatever happens to the path. */
static void test_store_descriptor(void **state) {
  struct tdir *t = *state;
  char out[256], err[256], buf[64] = "";
  int fd = -2;
  if (nn_privdir_store(t->priv, "topo-", ".xml", "<ours/>", 7, out, sizeof out, &fd, err,
                       sizeof err))
    fail_msg("%s", err);
  assert_true(fd >= 0);
  assert_int_equal(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
  char moved[300];
  snprintf(moved, sizeof moved, "%s.moved", out);
  assert_int_equal(rename(out, moved), 0);
  FILE *f = fopen(out, "w"); /* someone else's file under the name */
  assert_non_null(f);
  fputs("<theirs/>", f);
  fclose(f);
  char proc[64];
  snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
  f = fopen(proc, "r"); /* how NCCL opens NCCL_TOPO_FILE */
  assert_non_null(f);
  assert_int_equal(fread(buf, 1, sizeof buf - 1, f), 7);
  fclose(f);
  assert_string_equal(buf, "<ours/>");
  close(fd);
  /* A failed store hands out no descriptor. */
  fd = -2;
  assert_int_equal(
    nn_privdir_store(t->priv, "a/b", ".xml", "x", 1, out, sizeof out, &fd, err, sizeof err), -1);
  assert_int_equal(fd, -1);
}

static void test_symlink_refused(void **state) {
  struct tdir *t = *state;
  char real[128];
  snprintf(real, sizeof real, "%s/real", t->base);
  assert_int_equal(mkdir(real, 0700), 0);
  assert_int_equal(symlink(real, t->priv), 0);
  expect_open_refused(t->priv, "symbolic link");
  /* A dangling link is no better. */
  assert_int_equal(unlink(t->priv), 0);
  assert_int_equal(symlink("/nonexistent/nn", t->priv), 0);
  expect_open_refused(t->priv, "symbolic link");
  char out[256], err[256];
  assert_int_equal(
    nn_privdir_store(t->priv, "topo-", ".xml", "x", 1, out, sizeof out, NULL, err, sizeof err), -1);
  assert_string_equal(out, "");
  assert_non_null(strstr(err, "symbolic link"));
}

static void test_bad_modes_refused(void **state) {
  struct tdir *t = *state;
  assert_int_equal(mkdir(t->priv, 0700), 0);
  assert_int_equal(chmod(t->priv, 0770), 0);
  expect_open_refused(t->priv, "mode 0770");
  assert_int_equal(chmod(t->priv, 0701), 0);
  expect_open_refused(t->priv, "group/other access");
  assert_int_equal(chmod(t->priv, 0700), 0);
  char err[256];
  int fd = nn_privdir_open(t->priv, err, sizeof err);
  assert_true(fd >= 0);
  close(fd);
  assert_int_equal(rmdir(t->priv), 0);
  FILE *f = fopen(t->priv, "w");
  assert_non_null(f);
  fclose(f);
  expect_open_refused(t->priv, "not a directory");
  expect_open_refused("relative/dir", "not an absolute path");
}

static void test_other_owner_refused(void **state) {
  struct tdir *t = *state;
  if (geteuid() != 0) {
    print_message("skipped: other-owner check needs root to chown\n");
    skip();
  }
  assert_int_equal(mkdir(t->priv, 0700), 0);
  assert_int_equal(chown(t->priv, 65534, 65534), 0);
  expect_open_refused(t->priv, "owned by uid 65534");
}

static void test_store_and_reuse(void **state) {
  struct tdir *t = *state;
  const char *text = "<system version=\"1\">\n</system>\n";
  char out[256], err[256], want[256];
  assert_int_equal(nn_privdir_store(t->priv, "topo-", ".xml", text, strlen(text), out, sizeof out,
                                    NULL, err, sizeof err),
                   0);
  snprintf(want, sizeof want, "%s/topo-%016llx.xml", t->priv,
           (unsigned long long)nn_privdir_hash(text, strlen(text)));
  assert_string_equal(out, want);
  struct stat st, st2;
  assert_int_equal(lstat(out, &st), 0);
  assert_true(S_ISREG(st.st_mode));
  assert_int_equal(st.st_mode & 07777, 0600);
  size_t len;
  char *back = read_all(out, &len);
  assert_int_equal(len, strlen(text));
  assert_memory_equal(back, text, len);
  free(back);
  /* Same content again: the very same file is reused. */
  char out2[256];
  assert_int_equal(nn_privdir_store(t->priv, "topo-", ".xml", text, strlen(text), out2, sizeof out2,
                                    NULL, err, sizeof err),
                   0);
  assert_string_equal(out2, out);
  assert_int_equal(lstat(out, &st2), 0);
  assert_true(st.st_ino == st2.st_ino);
  /* A damaged file under that name (truncated) is replaced. */
  assert_int_equal(truncate(out, 5), 0);
  assert_int_equal(nn_privdir_store(t->priv, "topo-", ".xml", text, strlen(text), out2, sizeof out2,
                                    NULL, err, sizeof err),
                   0);
  back = read_all(out, &len);
  assert_int_equal(len, strlen(text));
  assert_memory_equal(back, text, len);
  free(back);
  /* Different content, different name. */
  assert_int_equal(nn_privdir_store(t->priv, "topo-", ".xml", "other", 5, out2, sizeof out2, NULL,
                                    err, sizeof err),
                   0);
  assert_string_not_equal(out2, out);
}

/* Nothing but final files may remain: temporaries are renamed or removed. */
static int count_entries(const char *dir, int *temps) {
  DIR *d = opendir(dir);
  assert_non_null(d);
  int n = 0;
  *temps = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    n++;
    if (e->d_name[0] == '.' || strstr(e->d_name, ".tmp")) (*temps)++;
  }
  closedir(d);
  return n;
}

struct writer_arg {
  const char *dir;
  const char *data;
  size_t len;
  char path[256];
  int failures;
};

static void *writer(void *p) {
  struct writer_arg *a = p;
  char err[256], out[256];
  for (int i = 0; i < 40; i++) {
    if (nn_privdir_store(a->dir, "topo-", ".xml", a->data, a->len, out, sizeof out, NULL, err,
                         sizeof err)) {
      a->failures++;
      continue;
    }
    if (!a->path[0]) strcpy(a->path, out);
    else if (strcmp(a->path, out)) a->failures++;
  }
  return NULL;
}

static char *big_content(size_t *len) {
  /* Large enough that a torn write would be visible. */
  *len = 200000;
  char *s = malloc(*len);
  for (size_t i = 0; i < *len; i++) s[i] = (char)('a' + i % 26);
  return s;
}

static void test_concurrent_threads_converge(void **state) {
  struct tdir *t = *state;
  size_t len;
  char *data = big_content(&len);
  enum { N = 16 };
  pthread_t th[N];
  struct writer_arg args[N];
  for (int i = 0; i < N; i++) {
    args[i] = (struct writer_arg){.dir = t->priv, .data = data, .len = len};
    assert_int_equal(pthread_create(&th[i], NULL, writer, &args[i]), 0);
  }
  for (int i = 0; i < N; i++) pthread_join(th[i], NULL);
  for (int i = 0; i < N; i++) {
    assert_int_equal(args[i].failures, 0);
    assert_string_equal(args[i].path, args[0].path);
  }
  size_t got;
  char *back = read_all(args[0].path, &got);
  assert_int_equal(got, len);
  assert_memory_equal(back, data, len);
  free(back);
  int temps;
  assert_int_equal(count_entries(t->priv, &temps), 1);
  assert_int_equal(temps, 0);
  free(data);
}

static void test_concurrent_processes_converge(void **state) {
  struct tdir *t = *state;
  size_t len;
  char *data = big_content(&len);
  enum { N = 6 };
  pid_t kids[N];
  for (int i = 0; i < N; i++) {
    kids[i] = fork();
    assert_true(kids[i] >= 0);
    if (kids[i] == 0) {
      struct writer_arg a = {.dir = t->priv, .data = data, .len = len};
      writer(&a);
      _exit(a.failures ? 1 : 0);
    }
  }
  for (int i = 0; i < N; i++) {
    int st;
    assert_int_equal(waitpid(kids[i], &st, 0), kids[i]);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  }
  int temps;
  assert_int_equal(count_entries(t->priv, &temps), 1);
  assert_int_equal(temps, 0);
  char out[256], err[256];
  assert_int_equal(
    nn_privdir_store(t->priv, "topo-", ".xml", data, len, out, sizeof out, NULL, err, sizeof err),
    0);
  size_t got;
  char *back = read_all(out, &got);
  assert_int_equal(got, len);
  assert_memory_equal(back, data, len);
  free(back);
  free(data);
}

static void test_store_topo_default_dir(void **state) {
  struct tdir *t = *state;
  setenv("XDG_RUNTIME_DIR", t->base, 1);
  char out[256], err[256], want[256];
  assert_int_equal(
    nn_privdir_store_topo("<x/>\n", 5, out, sizeof out, NULL, NULL, 0, err, sizeof err), 0);
  snprintf(want, sizeof want, "%s/nccl-numa/topo-", t->base);
  assert_memory_equal(out, want, strlen(want));
  assert_int_equal(strlen(out), strlen(want) + 16 + 4);
  unsetenv("XDG_RUNTIME_DIR");
  /* Bad name parts are refused before anything is touched. */
  assert_int_equal(
    nn_privdir_store(t->priv, "a/b", ".xml", "x", 1, out, sizeof out, NULL, err, sizeof err), -1);
}

/* The predictable directory refused (here our own 0755 one, then a symbolic link; another
 * user's is test_served_topo's): the file is stored in a fresh mkdtemp directory next to
 * it, the descriptor holds it, file and directory are gone again, and the note is given
 * once per process. */
static void test_store_topo_fallback(void **state) {
  struct tdir *t = *state;
  char pred[128], out[256], err[256], note[1024], target[512] = "", proc[64];
  setenv("XDG_RUNTIME_DIR", t->base, 1);
  snprintf(pred, sizeof pred, "%s/nccl-numa", t->base);
  assert_int_equal(mkdir(pred, 0700), 0);
  assert_int_equal(chmod(pred, 0755), 0);
  int fd = -1;
  if (nn_privdir_store_topo("<a/>\n", 5, out, sizeof out, &fd, note, sizeof note, err, sizeof err))
    fail_msg("not stored: %s", err);
  if (!strstr(note, pred) || !strstr(note, "mode 0755") || !strstr(note, ".XXXXXX"))
    fail_msg("note '%s' does not say what was refused and where the file goes", note);
  snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
  assert_true(readlink(proc, target, sizeof target - 1) > 0);
  assert_memory_equal(target, pred, strlen(pred));
  assert_int_equal(target[strlen(pred)], '.');
  assert_non_null(strstr(target, "(deleted)"));
  char got[16] = "";
  assert_int_equal(pread(fd, got, sizeof got, 0), 5);
  assert_string_equal(got, "<a/>\n");
  close(fd);
  DIR *d = opendir(t->base);
  assert_non_null(d);
  int n = 0;
  for (struct dirent *e; (e = readdir(d));) n += e->d_name[0] != '.';
  closedir(d);
  assert_int_equal(n, 1); /* only the refused directory is there */
  assert_int_equal(rmdir(pred), 0);
  assert_int_equal(symlink("/tmp", pred), 0);
  assert_int_equal(
    nn_privdir_store_topo("<b/>\n", 5, out, sizeof out, NULL, note, sizeof note, err, sizeof err),
    0);
  assert_string_equal(note, ""); /* said once per process */
  unsetenv("XDG_RUNTIME_DIR");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_hash_vectors),
    cmocka_unit_test(test_path_from_env),
    cmocka_unit_test_setup_teardown(test_created_private, setup, teardown),
    cmocka_unit_test_setup_teardown(test_umask_and_repair, setup, teardown),
    cmocka_unit_test_setup_teardown(test_store_descriptor, setup, teardown),
    cmocka_unit_test_setup_teardown(test_symlink_refused, setup, teardown),
    cmocka_unit_test_setup_teardown(test_bad_modes_refused, setup, teardown),
    cmocka_unit_test_setup_teardown(test_other_owner_refused, setup, teardown),
    cmocka_unit_test_setup_teardown(test_store_and_reuse, setup, teardown),
    cmocka_unit_test_setup_teardown(test_concurrent_threads_converge, setup, teardown),
    cmocka_unit_test_setup_teardown(test_concurrent_processes_converge, setup, teardown),
    cmocka_unit_test_setup_teardown(test_store_topo_default_dir, setup, teardown),
    cmocka_unit_test_setup_teardown(test_store_topo_fallback, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
