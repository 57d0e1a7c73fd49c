/* SPDX-License-Identifier: BSD-3-Clause */
/* test_trust_volumes.c - what the trust rules must not refuse: a Kubernetes configMap or
 * projected volume as the kubelet lays it out, read by root and by a pod running as uid 65534
 * (the env plugin serves it the topology), and root's file in a sticky directory. The
 * attacks are test_trust.c's. Every case needs root (chown to uid 65534). */
#include "trust_fixture.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>

#include "env.h"

/* What must not be refused: a Kubernetes volume as the kubelet lays it out: a root-owned
 * timestamped directory (0755) holding the file (0644), `..data` linking to it and
 * `mapping.conf -> ..data/mapping.conf`, all root's, in the volume's directory: for a
 * configMap an emptyDir of mode 0777 mounted read-only (pkg/volume/emptydir, configmap), for a
 * projected volume a tmpfs of mode 1777. Root and a pod running as uid 65534 read it. */
static char configmap[192];

static void make_volume(const char *name, mode_t mode) {
  char dir[160], ts[192], file[256], data[192], link[192];
  snprintf(dir, sizeof dir, "%s/%s", base, name);
  assert_int_equal(mkdir(dir, mode), 0);
  assert_int_equal(chmod(dir, mode), 0);
  snprintf(ts, sizeof ts, "%s/..2026_12_03_10_00_00.123456789", dir);
  assert_int_equal(mkdir(ts, 0755), 0);
  snprintf(file, sizeof file, "%s/mapping.conf", ts);
  FILE *f = fopen(file, "w");
  assert_non_null(f);
  fputs("cpu vendor=AuthenticAMD family=25 model=17\nnuma 0 cpus=0-15\nnuma 1 cpus=16-31\n"
        "gpu 0 bus=01:00.0 numa=1\ngpu 1 bus=02:00.0 numa=1\ngpu 2 bus=03:00.0 numa=0\n"
        "gpu 3 bus=04:00.0 numa=0\ntopology mode=numa\n",
        f);
  assert_int_equal(fclose(f), 0);
  assert_int_equal(chmod(file, 0644), 0);
  snprintf(data, sizeof data, "%s/..data", dir);
  assert_int_equal(symlink("..2026_12_03_10_00_00.123456789", data), 0);
  snprintf(link, sizeof link, "%s/mapping.conf", dir);
  assert_int_equal(symlink("..data/mapping.conf", link), 0);
  snprintf(configmap, sizeof configmap, "%s", link);
}

/* In the child that became uid 65534: the env plugin reads the ConfigMap and serves the
 * topology. Exit 0 when it did. */
static int serve_as_nobody(void *arg) {
  const char *runtime = arg;
  setenv("NCCL_NUMA_CONFIG", configmap, 1);
  setenv("XDG_RUNTIME_DIR", runtime, 1);
  unsetenv("NCCL_TOPO_FILE");
  unsetenv("NCCL_TUNER_CONFIG_FILE");
  if (nn_env_init(2, 28, 9, "", NULL, 2) != 0) return 1;
  const char *topo = nn_env_get("NCCL_TOPO_FILE");
  if (!topo) return 2;
  char xml[4096] = "";
  FILE *f = fopen(topo, "r");
  if (!f) return 3;
  size_t n = fread(xml, 1, sizeof xml - 1, f);
  fclose(f);
  xml[n] = 0;
  nn_env_finalize();
  return strstr(xml, "<system") && strstr(xml, "busid=\"0000:01:00.0\"") ? 0 : 4;
}

static void serve_nobody(const char *what) {
  char runtime[160];
  snprintf(runtime, sizeof runtime, "%s/run-nobody", base);
  if (mkdir(runtime, 0700) && errno != EEXIST) fail_msg("mkdir %s: %s", runtime, strerror(errno));
  assert_int_equal(chown(runtime, NOBODY, NOBODY), 0);
  int rc = nn_test_as_uid(NOBODY, serve_as_nobody, runtime);
  if (rc) fail_msg("uid 65534 was not served the %s's topology (child said %d)", what, rc);
}

static void test_projected_volume(void **state) {
  (void)state;
  need_root();
  make_volume("projected", 01777);
  expect_trusted_as(configmap, NOBODY);
  expect_trusted(configmap);
  serve_nobody("projected volume");
  /* the same layout with uid 65534's `..data` link: refused to root, which it would redirect */
  char data[192];
  snprintf(data, sizeof data, "%s/projected/..data", base);
  assert_int_equal(lchown(data, NOBODY, NOBODY), 0);
  expect_refused(configmap, "symbolic link");
  expect_refused(configmap, "..data is owned by uid 65534");
}

/* In a child in a private mount namespace: the volume's directory bind-mounted read-only onto
 * itself, as the kubelet mounts a configMap into the container. */
static int read_only_bind(const char *dir) {
  if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) return -1;
  if (mount(dir, dir, NULL, MS_BIND, NULL)) return -1;
  return mount(NULL, dir, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY, NULL);
}

/* The checks inside the namespace; 0 when all held, else which one failed. */
static int configmap_checks(const char *dir) {
  char err[8192], probe[256];
  int fd;
  snprintf(probe, sizeof probe, "%s/planted.conf", dir);
  if (open(probe, O_WRONLY | O_CREAT | O_EXCL, 0644) >= 0 || errno != EROFS)
    return 10; /* really read-only */
  if (nn_trust_open_as(configmap, 0, &fd, err, sizeof err) != NN_TRUST_OK)
    return fprintf(stderr, "%s\n", err), 11;
  close(fd);
  if (nn_trust_open_as(configmap, NOBODY, &fd, err, sizeof err) != NN_TRUST_OK)
    return fprintf(stderr, "%s\n", err), 12;
  close(fd);
  char runtime[160];
  snprintf(runtime, sizeof runtime, "%s/run-nobody", base);
  if ((mkdir(runtime, 0700) && errno != EEXIST) || chown(runtime, NOBODY, NOBODY)) return 13;
  int rc = nn_test_as_uid(NOBODY, serve_as_nobody, runtime);
  return rc ? fprintf(stderr, "uid 65534's env plugin said %d\n", rc), 14 : 0;
}

static void test_configmap_read_only(void **state) {
  (void)state;
  need_root();
  make_volume("configmap", 0777);
  char dir[160];
  snprintf(dir, sizeof dir, "%s/configmap", base);
  /* on a writable mount a 0777 directory is anybody's to change: refused */
  char want[256];
  snprintf(want, sizeof want, "directory %s is writable by group and others (mode 0777)", dir);
  expect_refused(configmap, want);
  expect_refused_as(configmap, NOBODY, want);
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    if (read_only_bind(dir)) _exit(100);
    _exit(configmap_checks(dir));
  }
  int status;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status));
  if (WEXITSTATUS(status) == 100) {
    print_message(
      "skipped: no private mount namespace here (unshare/mount: needs CAP_SYS_ADMIN)\n");
    skip();
  }
  if (WEXITSTATUS(status))
    fail_msg("the read-only configMap was not served (check %d)", WEXITSTATUS(status));
  expect_refused(configmap, want); /* the namespace is gone: writable again, refused again */
}

/* What must not be refused, the other case: root wrote /tmp/x/m.conf (x root's, mode 0755). */
static void test_root_dir_in_sticky_as_nobody(void **state) {
  (void)state;
  need_root();
  char d[128], x[160];
  assert_int_equal(mkdir(sub("tmp", d, sizeof d), 01777), 0);
  assert_int_equal(chmod(d, 01777), 0);
  snprintf(x, sizeof x, "%s/x", d);
  assert_int_equal(mkdir(x, 0755), 0);
  const char *m = put("tmp/x/m.conf", "x\n");
  assert_int_equal(chmod(m, 0644), 0);
  expect_trusted_as(m, NOBODY);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_projected_volume),
    cmocka_unit_test(test_configmap_read_only),
    cmocka_unit_test(test_root_dir_in_sticky_as_nobody),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
