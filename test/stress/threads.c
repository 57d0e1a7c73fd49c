/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * threads.c - communicators created and finalized on many threads while others call
 * getCollInfo on live ones, the env plugin is queried, and the mapping changes version.
 *
 * Usage: threads LIB [THREADS=64] [SECONDS=5]
 * Roles: half the threads churn (init, a few calls, finalize, new shapes now and then);
 * most of the rest call getCollInfo on 16 long-lived communicators; two query getEnv
 * (NCCL_TOPO_FILE included, which writes the topology); one gives the mapping a new
 * mtime every few ms, so versions are replaced while communicators hold the old ones.
 * Every decision is checked (the same call must give the same answer; a disabled entry
 * never becomes enabled), and so are the descriptors left open once every thread is done:
 * the served topology's only (a touch keeps its content), never one per version (a 30 s
 * run used to leave 15,649). Build with -fsanitize=thread, library included
 * (test/stress/run.sh).
 */
#include <dirent.h>
#include <pthread.h>
#include <sched.h>

#include "stress_common.h"

#define LIVE 16

static const char mapping[] = "cpu vendor=AuthenticAMD family=25 model=1\n"
                              "topology mode=numa\n"
                              "gpu 0 bus=0000:01:00.0 numa=1\ngpu 1 bus=0000:02:00.0 numa=1\n"
                              "gpu 2 bus=0000:03:00.0 numa=0\ngpu 3 bus=0000:04:00.0 numa=0\n"
                              "env NCCL_SOCKET_IFNAME=lo\n"
                              "rule coll=allreduce bytes=0-64K algo=ring proto=ll\n"
                              "rule coll=allreduce bytes=64K- algo=tree proto=simple channels=4\n"
                              "rule coll=allgather algo=ring proto=simple\n";

static struct st_plugin g_p;
static void *g_live[LIVE];
static int g_stop;     /* atomic */
static int g_failures; /* atomic */
static long g_calls, g_comms, g_envs;
static char g_path[64];

static int stopped(void) { return __atomic_load_n(&g_stop, __ATOMIC_ACQUIRE); }

static void fail_once(const char *what) {
  if (__atomic_add_fetch(&g_failures, 1, __ATOMIC_RELAXED) <= 5)
    fprintf(stderr, "threads: %s\n", what);
}

/* The expected choice for the mapping above (any shape, scope-free rules). */
static int expected(int coll, size_t bytes) {
  if (coll == 4) return bytes <= 65536 ? 1 * ST_NP + 0 : 0 * ST_NP + 2; /* 64K is inclusive */
  if (coll == 2) return 1 * ST_NP + 2;
  return -1;
}

static void call(void *ctx, unsigned *seed) {
  int coll = (int)(rand_r(seed) % 5);
  size_t bytes = (size_t)1 << (rand_r(seed) % 33);
  float t[ST_NA][ST_NP];
  int channels = 0;
  st_fill_table(t);
  g_p.tuner->getCollInfo(ctx, (nn_ncclFunc_t)coll, bytes, 1, (float **)(void *)t, ST_NA, ST_NP, 0,
                         &channels);
  if (st_choice(t) != expected(coll, bytes)) fail_once("wrong or unsafe decision");
  __atomic_add_fetch(&g_calls, 1, __ATOMIC_RELAXED);
}

static nn_ncclTunerConstants_v5_t *new_constants(void) {
  return calloc(1, sizeof(nn_ncclTunerConstants_v5_t));
}

static void *churn(void *arg) {
  unsigned seed = (unsigned)(uintptr_t)arg;
  nn_ncclTunerConstants_v5_t *constants = new_constants();
  nn_ncclNvlDomainInfo_v5_t nvl = {1, 1, 4};
  while (!stopped() && constants) {
    void *ctx = NULL;
    size_t ranks = 1 + rand_r(&seed) % 8, nodes = 1 + rand_r(&seed) % 2;
    if (g_p.tuner->init(&ctx, seed, ranks, nodes, st_logger, &nvl, constants) != nn_ncclSuccess)
      fail_once("init failed");
    for (int i = 0; i < 8; i++) call(ctx, &seed);
    if (g_p.tuner->finalize(ctx) != nn_ncclSuccess) fail_once("finalize failed");
    __atomic_add_fetch(&g_comms, 1, __ATOMIC_RELAXED);
  }
  free(constants);
  return NULL;
}

static void *caller(void *arg) {
  unsigned seed = (unsigned)(uintptr_t)arg;
  while (!stopped())
    for (int i = 0; i < 64; i++) call(g_live[rand_r(&seed) % LIVE], &seed);
  return NULL;
}

static void *env_reader(void *arg) {
  (void)arg;
  while (!stopped()) {
    const char *topo = g_p.env->getEnv("NCCL_TOPO_FILE");
    const char *ifname = g_p.env->getEnv("NCCL_SOCKET_IFNAME");
    if (!topo || !ifname || strcmp(ifname, "lo")) fail_once("env plugin served the wrong value");
    if (g_p.env->getEnv("NCCL_NET_GDR_LEVEL")) fail_once("an unset name was served");
    __atomic_add_fetch(&g_envs, 1, __ATOMIC_RELAXED);
  }
  return NULL;
}

static void *toucher(void *arg) {
  (void)arg;
  struct timespec pause = {0, 3000000};
  while (!stopped()) {
    st_touch(g_path);
    nanosleep(&pause, NULL);
  }
  return NULL;
}

/* Open descriptors of this process (less the one reading the list). */
/* The descriptors open now that lead to dir itself: the handles the trust walk keeps on the
 * mapping's directory, so files beside the mapping are checked again in one step. */
static int dir_handles(const char *dir) {
  DIR *d = opendir("/proc/self/fd");
  if (!d) return -1;
  int n = 0;
  for (struct dirent *e; (e = readdir(d));) {
    char link[300], to[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%s", e->d_name);
    ssize_t len = e->d_name[0] != '.' ? readlink(link, to, sizeof to - 1) : -1;
    if (len > 0) to[len] = 0;
    n += len > 0 && !strcmp(to, dir);
  }
  closedir(d);
  return n;
}

static int open_fds(void) {
  DIR *d = opendir("/proc/self/fd");
  if (!d) return -1;
  int n = 0;
  for (struct dirent *e; (e = readdir(d));) n += e->d_name[0] != '.';
  closedir(d);
  return n - 1;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s LIB [THREADS] [SECONDS]\n", argv[0]);
    return 2;
  }
  int n = (int)st_arg(argc, argv, 2, 64, 8, 1024), seconds = (int)st_arg(argc, argv, 3, 5, 1, 3600);
  char dir[] = "/tmp/nn-threads-XXXXXX";
  if (!mkdtemp(dir)) return 1;
  snprintf(g_path, sizeof g_path, "%s/map.conf", dir);
  if (st_write_atomic(g_path, mapping, sizeof mapping - 1) != 0) return 1;
  setenv("NCCL_NUMA_CONFIG", g_path, 1);
  setenv("XDG_RUNTIME_DIR", dir, 1);
  unsetenv("NCCL_TOPO_FILE");
  unsetenv("NCCL_SOCKET_IFNAME");
  unsetenv("NCCL_NET_GDR_LEVEL");
  if (st_load(argv[1], &g_p) != 0) return 1;
  int fds_before = open_fds();
  g_p.env->init(2, 30, 7, "", st_logger);
  nn_ncclTunerConstants_v5_t *constants = new_constants();
  nn_ncclNvlDomainInfo_v5_t nvl = {1, 1, 4};
  for (int i = 0; i < LIVE; i++)
    g_p.tuner->init(&g_live[i], (uint64_t)i, 2 + (size_t)i % 3, 1, st_logger, &nvl, constants);
  pthread_t *th = calloc((size_t)n, sizeof *th);
  int n_churn = n / 2, n_env = 2;
  for (int i = 0; i < n; i++) {
    void *(*fn)(void *) = i < n_churn         ? churn
                          : i < n - n_env - 1 ? caller
                          : i < n - 1         ? env_reader
                                              : toucher;
    if (pthread_create(&th[i], NULL, fn, (void *)(uintptr_t)(i + 1)) != 0) {
      fprintf(stderr, "threads: pthread_create\n");
      return 1;
    }
  }
  sleep((unsigned)seconds);
  __atomic_store_n(&g_stop, 1, __ATOMIC_RELEASE);
  for (int i = 0; i < n; i++) pthread_join(th[i], NULL);
  int handles = dir_handles(dir), fds_held = open_fds() - fds_before - handles;
  if (fds_before < 0 || handles < 0 || fds_held != 1)
    fail_once("descriptors held after the run: not the served topology's one (and the mapping "
              "directory's)");
  /* at most one handle per configuration version still held: by a live communicator, the cache
   * or the env plugin; not one per version the run made */
  if (handles > LIVE + 2)
    fail_once("handles on the mapping's directory grow with the versions made");
  for (int i = 0; i < LIVE; i++) g_p.tuner->finalize(g_live[i]);
  g_p.env->finalize();
  free(th);
  free(constants);
  dlclose(g_p.handle);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  int rc = system(cmd) != 0;
  printf("threads: %d threads, %ld communicators, %ld getCollInfo, %ld getEnv rounds, %d "
         "descriptor(s) held "
         "and %d on the mapping's directory, %d failures, %d WARNs\n",
         n, g_comms, g_calls, g_envs, fds_held, handles, g_failures, st_warns);
  return __atomic_load_n(&g_failures, __ATOMIC_RELAXED) || st_warns || rc ? 1 : 0;
}
