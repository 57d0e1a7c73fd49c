/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_init.c - the slowest call the plugin makes on NCCL's thread, for the worst mapping
 * within the documented limits (docs/user/mapping.md): a mapping about 2,000 directories
 * deep (its path near PATH_MAX), 256 include-csv lines of 256 distinct CSV files beside it
 * holding 4,096 rules in all, `env` lines, and a topology to serve; then the same mapping
 * with a 257th include, which rejects it; then two invalid mappings of 16 MiB (the largest
 * file the plugin reads): 1.4 M bad lines, and 8.4 M bad fields on lines of 4,000 bytes.
 *
 * The library is dlopen'd (RTLD_NOW|RTLD_LOCAL) and driven as NCCL 2.28 drives it on one
 * thread: env plugin v2 init, getEnv of what NCCL asks, then per communicator tuner v5
 * init, getCollInfo, finalize. Every call is timed; the report gives the slowest of each
 * phase and the target (no call above 100 ms). The run fails unless the plugin was seen
 * to judge and serve the mapping (getEnv serves its topology and an `env` value; the rule
 * of the last included file decides a call, and its replacement decides the next
 * communicator's) and to reject the 257-include one (its WARN names that line).
 *
 *   bench_init -l LIB [-t TARGET_MS]    exit 0, 3 when the target is missed, 1 on failure
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "nccl_abi.h"

#define N_INCLUDES 256
#define RULES_PER_CSV 16
#define COMMS 50
#define RING_SIMPLE (1 * 3 + 2)
#define TREE_SIMPLE (0 * 3 + 2)

static const nn_ncclEnv_v2_t *g_env;
static const nn_ncclTuner_v5_t *g_tuner;
static char g_warns[16384];
static char g_dir[PATH_MAX], g_map[PATH_MAX];
static int g_depth;

__attribute__((format(printf, 5, 6))) static void logger(int level, unsigned long flags,
                                                         const char *file, int line,
                                                         const char *fmt, ...) {
  (void)flags;
  (void)file;
  (void)line;
  char msg[8192];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (level == NN_NCCL_LOG_WARN) {
    size_t n = strlen(g_warns);
    snprintf(g_warns + n, sizeof g_warns - n, "%s\n", msg);
  }
}

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "bench_init: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  return 1;
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* The slowest call of a phase. */
struct phase {
  const char *name;
  int calls;
  double max_ms, total_ms;
};

#define TIMED(ph, expr) \
  do { \
    double t0_ = now_ms(); \
    expr; \
    double d_ = now_ms() - t0_; \
    (ph)->calls++; \
    (ph)->total_ms += d_; \
    if (d_ > (ph)->max_ms) (ph)->max_ms = d_; \
  } while (0)

static int write_file(const char *path, const char *text) {
  char tmp[PATH_MAX + 8];
  snprintf(tmp, sizeof tmp, "%s.new", path);
  FILE *f = fopen(tmp, "w");
  if (!f || fputs(text, f) < 0 || fclose(f) != 0)
    return fail("cannot write %s: %s", tmp, strerror(errno));
  return rename(tmp, path) == 0 ? 0 : fail("cannot rename %s: %s", tmp, strerror(errno));
}

/* g_dir: a fresh directory under /tmp, then one "d" directory below the other until the path
 * leaves room only for the file names. */
static int make_deep_dir(void) {
  snprintf(g_dir, sizeof g_dir, "/tmp/nn-bench-init-XXXXXX");
  if (!mkdtemp(g_dir) || chmod(g_dir, 0755)) return fail("mkdtemp: %s", strerror(errno));
  size_t n = strlen(g_dir);
  while (n + 2 + 32 < PATH_MAX) {
    memcpy(g_dir + n, "/d", 3);
    n += 2;
    if (mkdir(g_dir, 0755)) return fail("mkdir at depth %d: %s", g_depth, strerror(errno));
    g_depth++;
  }
  return 0;
}

/* The byte range of rule j of CSV file i: each rule its own 4 KiB. */
static unsigned long rule_lo(int i, int j) { return (unsigned long)(i * RULES_PER_CSV + j) * 4096; }

static int write_csvs(void) {
  char path[PATH_MAX + 32], text[RULES_PER_CSV * 64];
  for (int i = 0; i < N_INCLUDES; i++) {
    size_t len = 0;
    for (int j = 0; j < RULES_PER_CSV; j++) {
      unsigned long lo = rule_lo(i, j);
      len += (size_t)snprintf(text + len, sizeof text - len,
                              "allreduce,%lu,%lu,ring,simple,-1,-1,-1\n", lo, lo + 4095);
    }
    snprintf(path, sizeof path, "%s/r%d.csv", g_dir, i);
    if (write_file(path, text)) return 1;
  }
  return 0;
}

/* An invalid mapping of 16 MiB at path: `line` repeated. */
static int write_invalid(const char *path, const char *line) {
  FILE *f = fopen(path, "w");
  if (!f) return fail("cannot write %s: %s", path, strerror(errno));
  size_t n = strlen(line), lines = (16u << 20) / n;
  for (size_t i = 0; i < lines; i++) fputs(line, f);
  return fclose(f) == 0 ? 0 : fail("cannot write %s: %s", path, strerror(errno));
}

/* The line of `fields` bad fields ("numa 0 x x x ..."), 4,000 bytes with its newline. */
static const char *bad_fields_line(void) {
  static char line[4001];
  size_t n = (size_t)snprintf(line, sizeof line, "numa 0");
  while (n + 2 < 4000) memcpy(line + n, " x", 2), n += 2;
  line[n++] = '\n';
  line[n] = 0;
  return line;
}

/* The mapping: 8 GPUs on two sockets, a topology to serve, env lines, n include-csv lines. */
static int write_mapping(int n_includes) {
  static char text[64 * 1024];
  size_t len = (size_t)snprintf(
    text, sizeof text,
    "cpu vendor=AuthenticAMD family=25 model=17\nnuma 0 cpus=0-15\nnuma 1 cpus=16-31\n"
    "topology mode=numa\nenv NCCL_SOCKET_IFNAME=^docker,lo\nenv NCCL_IB_HCA=mlx5_0:1,mlx5_1:1\n"
    "env NCCL_P2P_LEVEL=SYS\nenv NCCL_MAX_NCHANNELS=32\nenv NCCL_ALGO=ring,tree;allreduce:ring\n");
  for (int g = 0; g < 8; g++)
    len += (size_t)snprintf(text + len, sizeof text - len, "gpu %d bus=%02x:00.0 numa=%d\n", g,
                            g + 1, g / 4);
  for (int i = 0; i < n_includes; i++)
    len += (size_t)snprintf(text + len, sizeof text - len, "include-csv r%d.csv\n", i % N_INCLUDES);
  return write_file(g_map, text);
}

static int load(const char *lib) {
  void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
  if (!h) return fail("dlopen %s: %s", lib, dlerror());
  g_env = dlsym(h, "ncclEnvPlugin_v2");
  g_tuner = dlsym(h, "ncclTunerPlugin_v5");
  return g_env && g_tuner ? 0 : fail("%s: no ncclEnvPlugin_v2 or ncclTunerPlugin_v5", lib);
}

/* One communicator as NCCL makes it: getEnv of what init asks, tuner init, calls (one at
 * `probe` bytes), finalize. Returns which entry of the cost table the probe's call zeroed
 * (algorithm * 3 + protocol: 1 * 3 + 2 ring/simple, 0 * 3 + 2 tree/simple), -1 for none. */
static int communicator(struct phase *ph, uint64_t id, size_t probe) {
  static nn_ncclTunerConstants_v5_t constants;
  nn_ncclNvlDomainInfo_v5_t nvl = {1, 8, 8};
  const char *v;
  TIMED(ph, v = g_env->getEnv("NCCL_TOPO_FILE"));
  TIMED(ph, v = g_env->getEnv("NCCL_SOCKET_IFNAME"));
  (void)v;
  void *ctx = NULL;
  TIMED(ph, g_tuner->init(&ctx, id, 8, 1, logger, &nvl, &constants));
  float table[7][3]; /* contiguous, passed as float** as NCCL does */
  int chosen = -1;
  for (int i = 0; i <= 16; i++) {
    for (int a = 0; a < 7; a++)
      for (int p = 0; p < 3; p++) table[a][p] = a < 2 ? 1.0f + (float)p : -1.0f;
    int nch = 0;
    size_t bytes = i < 16 ? (size_t)1 << i : probe;
    TIMED(ph, g_tuner->getCollInfo(ctx, nn_ncclFuncAllReduce, bytes, 1, (float **)(void *)table, 7,
                                   3, 0, &nch));
    for (int a = 0; i == 16 && a < 2; a++)
      for (int p = 0; p < 3; p++)
        if (table[a][p] == 0.0f) chosen = a * 3 + p;
  }
  if (ctx) TIMED(ph, g_tuner->finalize(ctx));
  return chosen;
}

static void header(void) {
  printf("\n## Init on NCCL's thread, worst mapping within the limits (bench_init)\n\n");
  printf("Mapping %d directories deep (path %zu bytes), %d include-csv lines of distinct files "
         "beside it, "
         "%d rules, 8 GPUs, topology served, env lines. Each call timed on one thread.\n\n",
         g_depth, strlen(g_map), N_INCLUDES, N_INCLUDES * RULES_PER_CSV);
  printf("| phase | calls | slowest call (ms) | mean (ms) |\n|---|---:|---:|---:|\n");
  fflush(stdout);
}

/* A phase's row, printed when it is done (so a run that fails later still shows it). */
static void row(const struct phase *ph) {
  printf("| %s | %d | %.2f | %.3f |\n", ph->name, ph->calls, ph->max_ms,
         ph->calls ? ph->total_ms / ph->calls : 0.0);
  fflush(stdout);
}

/* An invalid mapping read by env init and then by communicators: rejected (its WARN seen). */
static int invalid_case(struct phase *init, struct phase *later, const char *name, const char *line,
                        uint64_t id0, size_t probe) {
  char path[PATH_MAX];
  char *cut = strstr(g_dir, "/d/");
  snprintf(path, sizeof path, "%.*s/%s", cut ? (int)(cut - g_dir) : (int)strlen(g_dir), g_dir,
           name);
  if (write_invalid(path, line)) return 1;
  setenv("NCCL_NUMA_CONFIG", path, 1);
  g_warns[0] = 0;
  int rc;
  TIMED(init, rc = g_env->init(2, 28, 9, "", logger));
  if (rc || !strstr(g_warns, "nccl-numa: config ") || g_env->getEnv("NCCL_SOCKET_IFNAME"))
    return fail("the invalid mapping %s was not rejected; WARNs:\n%s", name, g_warns);
  for (int c = 0; c < COMMS; c++)
    if (communicator(later, id0 + (uint64_t)c, probe) != -1)
      return fail("%s: a rule applied", name);
  row(init);
  row(later);
  unlink(path);
  return 0;
}

static int run(double target) {
  struct phase ph[] = {{"env init: first read of the mapping", 0, 0, 0},
                       {"communicators, mapping cached", 0, 0, 0},
                       {"an include replaced: re-read", 0, 0, 0},
                       {"257 includes: rejected, first read", 0, 0, 0},
                       {"rejected mapping, later calls", 0, 0, 0},
                       {"16 MiB, 1.4 M bad lines: env init", 0, 0, 0},
                       {"the same, communicators", 0, 0, 0},
                       {"16 MiB, 8.4 M bad fields: env init", 0, 0, 0},
                       {"the same, communicators", 0, 0, 0}};
  if (make_deep_dir() || write_csvs()) return 1;
  snprintf(g_map, sizeof g_map, "%s/m.conf", g_dir);
  if (write_mapping(N_INCLUDES)) return 1;
  setenv("NCCL_NUMA_CONFIG", g_map, 1);
  setenv("NCCL_DEBUG", "INFO", 1);
  unsetenv("NCCL_TUNER_CONFIG_FILE");
  unsetenv("NCCL_SOCKET_IFNAME");
  unsetenv("NCCL_TOPO_FILE");
  int rc;
  header();
  TIMED(&ph[0], rc = g_env->init(2, 28, 9, "", logger));
  row(&ph[0]);
  const char *topo = g_env->getEnv("NCCL_TOPO_FILE"), *ifname = g_env->getEnv("NCCL_SOCKET_IFNAME");
  if (rc || !topo || !ifname || strcmp(ifname, "^docker,lo"))
    return fail(
      "the env plugin did not serve the mapping (topology %s, NCCL_SOCKET_IFNAME %s); WARNs:\n%s",
      topo ? topo : "none", ifname ? ifname : "none", g_warns);
  size_t last = rule_lo(N_INCLUDES - 1, RULES_PER_CSV - 1); /* the last rule of the last file */
  for (int c = 0; c < COMMS; c++)
    if (communicator(&ph[1], (uint64_t)c, last) != RING_SIMPLE)
      return fail("communicator %d: the last included file's rule did not apply; WARNs:\n%s", c,
                  g_warns);
  char csv[PATH_MAX + 32], text[128];
  snprintf(csv, sizeof csv, "%s/r%d.csv", g_dir, N_INCLUDES - 1);
  snprintf(text, sizeof text, "allreduce,%lu,%lu,tree,simple,-1,-1,-1\n", (unsigned long)last,
           (unsigned long)last + 4095);
  if (write_file(csv, text)) return 1;
  if (communicator(&ph[2], 1000, last) != TREE_SIMPLE)
    return fail("after an include was replaced, its new rule did not apply");
  for (int c = 0; c < COMMS; c++) communicator(&ph[1], 2000 + (uint64_t)c, last);
  row(&ph[1]);
  row(&ph[2]);
  if (write_mapping(N_INCLUDES + 1)) return 1;
  g_warns[0] = 0;
  /* (the plugin's WARN lines are cut at its line length, here within the path) */
  if (communicator(&ph[3], 3000, last) != -1 || !strstr(g_warns, "nccl-numa: config "))
    return fail("the mapping with 257 includes was not rejected; WARNs:\n%s", g_warns);
  row(&ph[3]);
  for (int c = 0; c < COMMS; c++) communicator(&ph[4], 4000 + (uint64_t)c, last);
  row(&ph[4]);
  if (invalid_case(&ph[5], &ph[6], "bad-lines.conf", "bogus 1 2 3\n", 5000, last) ||
      invalid_case(&ph[7], &ph[8], "bad-fields.conf", bad_fields_line(), 6000, last))
    return 1;
  g_env->finalize();
  double worst = 0;
  const char *where = "";
  for (size_t i = 0; i < sizeof ph / sizeof ph[0]; i++)
    if (ph[i].max_ms > worst) worst = ph[i].max_ms, where = ph[i].name;
  printf("\nslowest plugin call: %.2f ms, in \"%s\" (target: at most %.0f ms): %s\n", worst, where,
         target, worst <= target ? "met" : "MISSED");
  return worst <= target ? 0 : 3;
}

int main(int argc, char **argv) {
  const char *lib = NULL;
  double target = 100;
  int opt;
  while ((opt = getopt(argc, argv, "l:t:")) != -1) {
    if (opt == 'l') lib = optarg;
    else if (opt == 't') target = strtod(optarg, NULL);
    else return fail("usage: bench_init -l LIB [-t TARGET_MS]");
  }
  if (!lib || load(lib)) return lib ? 1 : fail("usage: bench_init -l LIB [-t TARGET_MS]");
  int rc = run(target);
  char cmd[PATH_MAX + 32];
  char *slash = strstr(g_dir, "/d/");
  if (slash) *slash = 0;
  if (g_dir[0] && snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir) < (int)sizeof cmd &&
      system(cmd) != 0)
    fprintf(stderr, "bench_init: could not remove %s\n", g_dir);
  return rc;
}
