/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cycles.c - many communicator and env-plugin lifetimes in one process, for valgrind.
 *
 * Usage: cycles LIB [TUNER_CYCLES=10000] [ENV_CYCLES=1000]
 * Tuner: init (shapes vary, so policies are compiled and shared), getCollInfo over all
 * collectives and a spread of sizes, finalize; the mapping is given a new mtime every
 * 500 cycles, so versions are replaced and freed while the process runs. Env: init,
 * getEnv of the generated NCCL_TOPO_FILE (written by the plugin's own XML writer), of an
 * `env` default and of a forwarded name, finalize. Then dlclose, as NCCL does at exit.
 * Exit 0 when every call behaved; valgrind (test/stress/run.sh) adds leaks and errors.
 */
#include "stress_common.h"

static const char mapping[] =
  "# stress mapping: 8 GPUs, two NUMA nodes\n"
  "cpu vendor=AuthenticAMD family=25 model=1\n"
  "topology mode=numa\n"
  "numa 0 cpus=0-15\n"
  "numa 1 cpus=16-31\n"
  "gpu 0 bus=0000:01:00.0 numa=1\ngpu 1 bus=0000:02:00.0 numa=1\n"
  "gpu 2 bus=0000:03:00.0 numa=1\ngpu 3 bus=0000:04:00.0 numa=1\n"
  "gpu 4 bus=0000:05:00.0 numa=0\ngpu 5 bus=0000:06:00.0 numa=0\n"
  "gpu 6 bus=0000:07:00.0 numa=0\ngpu 7 bus=0000:08:00.0 numa=0\n"
  "env NCCL_SOCKET_IFNAME=lo\n"
  "model pci-latency-us=3.5\n"
  "rule coll=allreduce bytes=0-64K scope=intra algo=ring proto=ll\n"
  "rule coll=allreduce bytes=64K-4M algo=tree proto=simple channels=4\n"
  "rule coll=allgather bytes=1M- scope=cross algo=ring proto=simple channels=2\n"
  "rule coll=any bytes=0-1K proto=ll\n"
  "rule ranks=8 nodes=1 channels=8\n";

static int tuner_cycle(const struct st_plugin *p, int i) {
  static const size_t ranks[] = {2, 4, 8, 1, 16};
  static nn_ncclTunerConstants_v5_t constants;
  nn_ncclNvlDomainInfo_v5_t nvl = {1, 1, 8};
  void *ctx = NULL;
  size_t n_ranks = ranks[i % 5], n_nodes = 1 + (size_t)(i % 7 == 0);
  if (p->tuner->init(&ctx, (uint64_t)i, n_ranks, n_nodes, st_logger, &nvl, &constants) !=
      nn_ncclSuccess)
    return -1;
  for (int coll = 0; coll < 5; coll++)
    for (size_t bytes = 1; bytes < ((size_t)1 << 32); bytes <<= 5) {
      float t[ST_NA][ST_NP];
      int channels = 0;
      st_fill_table(t);
      if (p->tuner->getCollInfo(ctx, (nn_ncclFunc_t)coll, bytes, 1, (float **)(void *)t, ST_NA,
                                ST_NP, 0, &channels) != nn_ncclSuccess ||
          st_choice(t) == -2)
        return -1;
    }
  return p->tuner->finalize(ctx) == nn_ncclSuccess ? 0 : -1;
}

static int env_cycle(const struct st_plugin *p) {
  if (p->env->init(2, 30, 7, "", st_logger) != nn_ncclSuccess) return -1;
  const char *topo = p->env->getEnv("NCCL_TOPO_FILE");
  const char *ifname = p->env->getEnv("NCCL_SOCKET_IFNAME");
  const char *home = p->env->getEnv("HOME");
  const char *real_home = getenv("HOME");
  int ok = topo && access(topo, R_OK) == 0 && ifname && !strcmp(ifname, "lo") &&
           (home == real_home || (home && real_home && !strcmp(home, real_home)));
  if (!ok)
    fprintf(stderr, "cycles: env served topo=%s ifname=%s\n", topo ? topo : "(null)",
            ifname ? ifname : "(null)");
  return p->env->finalize() == nn_ncclSuccess && ok ? 0 : -1;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s LIB [TUNER_CYCLES] [ENV_CYCLES]\n", argv[0]);
    return 2;
  }
  int n_tuner = (int)st_arg(argc, argv, 2, 10000, 0, 10000000),
      n_env = (int)st_arg(argc, argv, 3, 1000, 0, 10000000);
  char dir[] = "/tmp/nn-cycles-XXXXXX", path[64];
  if (!mkdtemp(dir)) return 1;
  snprintf(path, sizeof path, "%s/map.conf", dir);
  if (st_write_atomic(path, mapping, sizeof mapping - 1) != 0) return 1;
  setenv("NCCL_NUMA_CONFIG", path, 1);
  setenv("XDG_RUNTIME_DIR", dir, 1);
  unsetenv("NCCL_TOPO_FILE");
  unsetenv("NCCL_SOCKET_IFNAME");
  unsetenv("NCCL_NUMA_LOG_FILE");
  struct st_plugin p;
  if (st_load(argv[1], &p) != 0) return 1;
  int rc = 0;
  for (int i = 0; i < n_tuner && rc == 0; i++) {
    if (i % 500 == 499) st_touch(path);
    if (tuner_cycle(&p, i) != 0) {
      fprintf(stderr, "cycles: tuner cycle %d failed\n", i);
      rc = 1;
    }
  }
  for (int i = 0; i < n_env && rc == 0; i++) {
    if (i % 100 == 99) st_touch(path);
    if (env_cycle(&p) != 0) {
      fprintf(stderr, "cycles: env cycle %d failed\n", i);
      rc = 1;
    }
  }
  if (st_warns) {
    fprintf(stderr, "cycles: %d WARNs from the plugin (STRESS_VERBOSE=1 shows them)\n", st_warns);
    rc = 1;
  }
  if (n_env > 0 && st_numa_warns == 0) {
    fprintf(stderr, "cycles: no WARN that NCCL's model rates the forced mode=numa file slower\n");
    rc = 1;
  }
  dlclose(p.handle);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) rc = 1;
  if (rc == 0)
    printf("cycles: %d tuner and %d env cycles ok (%d mode=numa WARNs, as expected)\n", n_tuner,
           n_env, st_numa_warns);
  return rc;
}
