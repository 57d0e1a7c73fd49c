/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_hostile.c - the hostile-input catalogue, driven through the real library.
 *
 * Each case writes one malformed mapping (binary junk, NUL bytes, a 1 MB line, 100,000
 * rules, overflowing numbers, negative sizes, duplicate GPUs, an unreadable file, a
 * directory, a FIFO, a symlink loop, a device, a file over the size cap, `include-csv`
 * of a FIFO, a directory, a symlink loop and junk, and files others than root could have
 * written: mode 0666, owned by uid 65534, behind a link, in a group-writable or sticky
 * directory, an included CSV of mode 0666) and then, in a
 * forked child with an alarm as hang guard, dlopens the built libnccl-tuner-numa.so as
 * NCCL does and runs env v2 init/getEnv/finalize and tuner v5 init/getCollInfo/finalize.
 * It passes when NCCL's logger received a WARN naming the file (and line) and the problem,
 * every call returned ncclSuccess, the cost table and nChannels came back untouched, and
 * the env plugin served nothing from the file (no NCCL_TOPO_FILE, no `env` default).
 *
 * The library is the one next to this binary's directory (BUILD/test/.. = BUILD), so the
 * ASan build tests the ASan library.
 */
#include "nn_test.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "nccl_abi.h"

#define HANG_SECONDS 20
#define NOBODY 65534

static char g_lib[4096];
static char g_dir[64];

/* ---- what the child records ---- */

static char g_warns[65536];
static size_t g_warns_len;

__attribute__((format(printf, 5, 6))) static void record_logger(int level, unsigned long flags,
                                                                const char *file, int line,
                                                                const char *fmt, ...) {
  (void)flags;
  (void)file;
  (void)line;
  if (level != NN_NCCL_LOG_WARN || g_warns_len >= sizeof g_warns - 2) return;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(g_warns + g_warns_len, sizeof g_warns - g_warns_len - 1, fmt, ap);
  va_end(ap);
  if (n > 0)
    g_warns_len +=
      (size_t)n < sizeof g_warns - g_warns_len - 2 ? (size_t)n : sizeof g_warns - g_warns_len - 2;
  g_warns[g_warns_len++] = '\n';
  g_warns[g_warns_len] = 0;
}

/* ---- the cases ---- */

struct hostile_case {
  const char *name;
  int (*make)(const char *path); /* creates the hostile thing at path; 0 ok */
  const char *line;              /* ":N:" expected after the path, or NULL (no line) */
  const char *what;              /* words the message must contain */
  int unprivileged;              /* run the child as nobody when root */
};

static const char gpus[] = "gpu 0 bus=0000:01:00.0 numa=0\ngpu 1 bus=0000:02:00.0 numa=1\n"
                           "env NCCL_SOCKET_IFNAME=lo\n";

static int write_all(const char *path, const char *buf, size_t len) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return -1;
  size_t done = 0;
  while (done < len) {
    ssize_t w = write(fd, buf + done, len - done);
    if (w <= 0) {
      close(fd);
      return -1;
    }
    done += (size_t)w;
  }
  return close(fd);
}

/* A valid head (2 GPUs, an env default, line 3), then `tail`. */
static int write_with_head(const char *path, const char *tail, size_t tail_len) {
  size_t head = strlen(gpus);
  char *buf = malloc(head + tail_len);
  if (!buf) return -1;
  memcpy(buf, gpus, head);
  memcpy(buf + head, tail, tail_len);
  int rc = write_all(path, buf, head + tail_len);
  free(buf);
  return rc;
}

static int make_junk(const char *path) {
  char buf[4096];
  uint32_t x = 0x12345678u;
  for (size_t i = 0; i < sizeof buf; i++) {
    x = x * 1103515245u + 12345u;
    buf[i] = (char)(x >> 23);
    if (buf[i] == '\n' || buf[i] == '#' || buf[i] == 0) buf[i] = 'x'; /* one junk line, no NUL */
  }
  return write_all(path, buf, sizeof buf);
}

static int make_nul(const char *path) {
  static const char tail[] = "rule coll=allreduce algo=ring\0 proto=ll\n";
  return write_with_head(path, tail, sizeof tail - 1);
}

static int make_long_line(const char *path) {
  size_t n = 1 << 20;
  char *tail = malloc(n + 16);
  if (!tail) return -1;
  memcpy(tail, "rule algo=ring ", 15);
  memset(tail + 15, 'x', n);
  tail[15 + n] = '\n';
  int rc = write_with_head(path, tail, n + 16);
  free(tail);
  return rc;
}

static int make_many_rules(const char *path) {
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  fputs(gpus, f);
  for (int i = 0; i < 100000; i++) fprintf(f, "rule coll=allreduce bytes=%d-%d algo=ring\n", i, i);
  return fclose(f);
}

static int make_overflow(const char *path) {
  static const char tail[] = "rule bytes=0-99999999999999999999999 algo=ring\n";
  return write_with_head(path, tail, sizeof tail - 1);
}

static int make_negative(const char *path) {
  static const char tail[] = "rule bytes=-5-10 algo=ring\n";
  return write_with_head(path, tail, sizeof tail - 1);
}

static int make_dup_gpu(const char *path) {
  static const char text[] = "gpu 0 bus=0000:01:00.0 numa=0\ngpu 0 bus=0000:02:00.0 numa=1\n"
                             "env NCCL_SOCKET_IFNAME=lo\n";
  return write_all(path, text, sizeof text - 1);
}

static int make_unreadable(const char *path) {
  if (write_with_head(path, "", 0) != 0) return -1;
  return chmod(path, 0);
}

static int make_directory(const char *path) { return mkdir(path, 0755); }
static int make_fifo(const char *path) { return mkfifo(path, 0644); }

static int make_symlink_loop(const char *path) {
  char other[512];
  snprintf(other, sizeof other, "%s.other", path);
  if (symlink(path, other) != 0) return -1;
  return symlink(other, path);
}

static int make_device(const char *path) { return symlink("/dev/zero", path); }

static int make_oversized(const char *path) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return -1;
  int rc = write(fd, gpus, strlen(gpus)) < 0 || ftruncate(fd, (off_t)17 << 20) != 0;
  return close(fd) || rc ? -1 : 0;
}

/* A valid head, then `include-csv` of a hostile thing made by `make` next to the mapping. */
static int include_hostile(const char *path, int (*make)(const char *)) {
  char target[512], line[600];
  snprintf(target, sizeof target, "%s.csv", path);
  if (make(target) != 0) return -1;
  int n = snprintf(line, sizeof line, "include-csv %s\n", target);
  return write_with_head(path, line, (size_t)n);
}

static int make_include_fifo(const char *path) { return include_hostile(path, make_fifo); }
static int make_include_directory(const char *path) {
  return include_hostile(path, make_directory);
}
static int make_include_loop(const char *path) { return include_hostile(path, make_symlink_loop); }
static int make_include_junk(const char *path) { return include_hostile(path, make_junk); }

/* Files others than root could have written: mode 0666, another user's, and links
 * to such files or into such directories. Chown needs root: NEEDS_ROOT skips the case. */
#define NEEDS_ROOT 77

static int make_world_writable(const char *path) {
  return write_with_head(path, "", 0) || chmod(path, 0666) ? -1 : 0;
}

static int make_nobodys(const char *path) {
  if (geteuid() != 0) return NEEDS_ROOT;
  return write_with_head(path, "", 0) || chown(path, NOBODY, NOBODY) ? -1 : 0;
}

/* path -> PATH.d/m.conf, a good mapping in a directory of mode `mode` owned by `owner`. */
static int link_into_dir(const char *path, mode_t mode, uid_t owner) {
  char dir[512], file[600];
  snprintf(dir, sizeof dir, "%s.d", path);
  snprintf(file, sizeof file, "%s/m.conf", dir);
  if (mkdir(dir, 0755) || write_with_head(file, "", 0) || chmod(dir, mode) ||
      chown(dir, owner, owner))
    return -1;
  return symlink(file, path);
}

static int make_link_to_nobodys(const char *path) {
  char target[512];
  snprintf(target, sizeof target, "%s.target", path);
  int rc = make_nobodys(target);
  return rc ? rc : symlink(target, path);
}

static int make_group_writable_dir(const char *path) { return link_into_dir(path, 0775, 0); }

/* Another user's file in a sticky world-writable directory (as in /tmp), used by root. */
static int make_sticky_nobodys(const char *path) {
  if (geteuid() != 0) return NEEDS_ROOT;
  char dir[512], file[600];
  snprintf(dir, sizeof dir, "%s.d", path);
  snprintf(file, sizeof file, "%s/m.conf", dir);
  if (mkdir(dir, 0755) || chmod(dir, 01777) || write_with_head(file, "", 0) ||
      chown(file, NOBODY, NOBODY))
    return -1;
  return symlink(file, path);
}

static int make_include_world_writable(const char *path) {
  return include_hostile(path, make_world_writable);
}

static const struct hostile_case cases[] = {
  {"binary junk", make_junk, ":1:", "not a text file", 0},
  {"NUL byte", make_nul, ":4:", "NUL", 0},
  {"1 MB line", make_long_line, ":4:", "4096", 0},
  {"100,000 rules", make_many_rules, ":4100:", "too many rules", 0},
  {"overflowing number", make_overflow, ":4:", "overflow", 0},
  {"negative size", make_negative, ":4:", "negative", 0},
  {"duplicate GPU", make_dup_gpu, ":2:", "duplicate", 0},
  {"unreadable file", make_unreadable, NULL, "Permission denied", 1},
  {"directory", make_directory, NULL, "directory", 0},
  {"FIFO", make_fifo, NULL, "FIFO", 0},
  {"symlink loop", make_symlink_loop, NULL, "symbolic links", 0},
  {"character device", make_device, NULL, "not a regular file", 0},
  {"file over 16 MiB", make_oversized, NULL, "limit", 0},
  {"include-csv of a FIFO", make_include_fifo, ":4:", "regular file", 0},
  {"include-csv of a directory", make_include_directory, ":4:", "regular file", 0},
  {"include-csv of a symlink loop", make_include_loop, ":4:", "symbolic links", 0},
  {"include-csv of binary junk", make_include_junk, ":4:", "include-csv", 0},
  {"mapping of mode 0666", make_world_writable, NULL,
   "not trusted: writable by group and others (mode 0666)", 0},
  {"mapping owned by uid 65534", make_nobodys, NULL,
   "not trusted: owned by uid 65534 (only root may own it)", 0},
  {"symlink to uid 65534's mapping", make_link_to_nobodys, NULL, "not trusted: owned by uid 65534",
   0},
  {"mapping in a group-writable directory", make_group_writable_dir, NULL,
   "not trusted: directory /tmp/nn-hostile-", 0},
  {"uid 65534's mapping in a sticky directory", make_sticky_nobodys, NULL,
   "not trusted: owned by uid 65534", 0},
  {"include-csv of a file of mode 0666", make_include_world_writable,
   ":4:", "csv: not trusted: writable by group and others (mode 0666)", 0},
};

/* ---- the child: NCCL's side ---- */

static int child_fail(const char *what) {
  fprintf(stderr, "  %s\n  WARNs received:\n%s", what, g_warns);
  return 1;
}

static int drop_privileges(void) {
  if (geteuid() != 0) return 0;
  /* Root reads any file whatever its mode: become nobody to meet a real EACCES. */
  if (setgroups(0, NULL) != 0 || setgid(NOBODY) != 0 || setuid(NOBODY) != 0) return -1;
  return 0;
}

static int drive_env(void *lib) {
  const nn_ncclEnv_v2_t *env = dlsym(lib, "ncclEnvPlugin_v2");
  if (!env) return child_fail("no ncclEnvPlugin_v2");
  if (env->init(2, 28, 9, "", record_logger) != nn_ncclSuccess)
    return child_fail("env init failed");
  if (env->getEnv("NCCL_TOPO_FILE"))
    return child_fail("NCCL_TOPO_FILE served from a rejected file");
  if (env->getEnv("NCCL_SOCKET_IFNAME"))
    return child_fail("env default served from a rejected file");
  if (env->finalize() != nn_ncclSuccess) return child_fail("env finalize failed");
  return 0;
}

static int drive_tuner(void *lib) {
  const nn_ncclTuner_v5_t *t = dlsym(lib, "ncclTunerPlugin_v5");
  if (!t) return child_fail("no ncclTunerPlugin_v5");
  static nn_ncclTunerConstants_v5_t constants, before;
  nn_ncclNvlDomainInfo_v5_t nvl = {1, 2, 2};
  memset(&constants, 0, sizeof constants);
  constants.hwLatencies[NN_NCCL_HW_PCI][NN_NCCL_ALGO_RING][NN_NCCL_PROTO_LL] = 1.0;
  before = constants;
  void *ctx = NULL;
  if (t->init(&ctx, 42, 2, 1, record_logger, &nvl, &constants) != nn_ncclSuccess)
    return child_fail("tuner init failed");
  float table[NN_NCCL_NUM_ALGORITHMS][NN_NCCL_NUM_PROTOCOLS],
    orig[NN_NCCL_NUM_ALGORITHMS][NN_NCCL_NUM_PROTOCOLS];
  for (int a = 0; a < NN_NCCL_NUM_ALGORITHMS; a++)
    for (int p = 0; p < NN_NCCL_NUM_PROTOCOLS; p++)
      table[a][p] = a < 2 && p != 1 ? 10.0f + (float)(a * 3 + p) : -1.0f;
  memcpy(orig, table, sizeof table);
  for (int coll = 0; coll < 5; coll++)
    for (size_t bytes = 1; bytes < ((size_t)1 << 33); bytes <<= 3) {
      int channels = 0;
      if (t->getCollInfo(ctx, (nn_ncclFunc_t)coll, bytes, 1, (float **)(void *)table,
                         NN_NCCL_NUM_ALGORITHMS, NN_NCCL_NUM_PROTOCOLS, 0,
                         &channels) != nn_ncclSuccess)
        return child_fail("getCollInfo failed");
      if (memcmp(table, orig, sizeof table) || channels)
        return child_fail("a rejected config changed a decision");
    }
  if (memcmp(&constants, &before, sizeof constants))
    return child_fail("a rejected config changed the constants");
  if (t->finalize(ctx) != nn_ncclSuccess) return child_fail("tuner finalize failed");
  return 0;
}

static int check_warning(const char *path, const struct hostile_case *c) {
  char want[512];
  snprintf(want, sizeof want, "%s%s", path, c->line ? c->line : ":");
  if (!strstr(g_warns, want)) return child_fail("no WARN naming the file (and line) as expected");
  if (!strstr(g_warns, c->what)) return child_fail("the WARN does not name the problem");
  if (!strstr(g_warns, "rejected")) return child_fail("no WARN saying the config is rejected");
  return 0;
}

static int run_child(const char *path, const struct hostile_case *c) {
  alarm(HANG_SECONDS);
  setenv("NCCL_NUMA_CONFIG", path, 1);
  unsetenv("NCCL_TOPO_FILE");
  unsetenv("NCCL_SOCKET_IFNAME");
  unsetenv("NCCL_NUMA_LOG_FILE");
  setenv("XDG_RUNTIME_DIR", g_dir, 1);
  void *lib = dlopen(g_lib, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fprintf(stderr, "  dlopen %s: %s\n", g_lib, dlerror());
    return 1;
  }
  if (c->unprivileged && drop_privileges() != 0) {
    perror("  setuid nobody");
    return 1;
  }
  int rc = drive_env(lib);
  if (rc == 0) rc = drive_tuner(lib);
  if (rc == 0) rc = check_warning(path, c);
  return rc;
}

/* ---- the parent ---- */

static void test_case(void **state) {
  const struct hostile_case *c = *state;
  char path[256];
  snprintf(path, sizeof path, "%s/case-%d.conf", g_dir, (int)(c - cases));
  int made = c->make(path);
  if (made == NEEDS_ROOT) {
    print_message("skipped: %s needs root (chown to uid %d)\n", c->name, NOBODY);
    skip();
  }
  assert_int_equal(made, 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) _exit(run_child(path, c));
  int status = 0;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  if (WIFSIGNALED(status))
    fail_msg("%s: child killed by signal %d%s", c->name, WTERMSIG(status),
             WTERMSIG(status) == SIGALRM ? " (hang)" : "");
  if (WEXITSTATUS(status) != 0) fail_msg("%s: failed (see above)", c->name);
}

static int find_library(void) {
  char self[3072];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return -1;
  self[n] = 0;
  char *slash = strrchr(self, '/');
  if (!slash) return -1;
  *slash = 0;
  snprintf(g_lib, sizeof g_lib, "%s/../libnccl-tuner-numa.so", self);
  return access(g_lib, R_OK);
}

int main(void) {
  if (find_library() != 0) {
    printf("skipped: %s not built (make all builds it)\n", g_lib);
    return 77;
  }
  snprintf(g_dir, sizeof g_dir, "/tmp/nn-hostile-XXXXXX");
  if (!mkdtemp(g_dir) || chmod(g_dir, 0755) != 0) return 1;
  struct CMUnitTest tests[sizeof cases / sizeof cases[0]];
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    struct CMUnitTest t = {cases[i].name, test_case, NULL, NULL, (void *)&cases[i]};
    tests[i] = t;
  }
  int failed =
    _cmocka_run_group_tests("hostile", tests, sizeof cases / sizeof cases[0], NULL, NULL);
  nn_test_remove_tree(g_dir);
  return failed ? 1 : 0;
}
