/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * concurrency.c - N threads create communicators (tuner v5 init), call getCollInfo and
 * finalize, while the env plugin answers lookups; run under ThreadSanitizer by make test.
 * Usage: concurrency path/to/libnccl-tuner-numa.so [threads]
 */
#include <pthread.h>

#include "abi_common.h"

#define NA NN_NCCL_NUM_ALGORITHMS
#define NP NN_NCCL_NUM_PROTOCOLS
#define COMMS_PER_THREAD 40
#define CALLS_PER_COMM 200

static const nn_ncclTuner_v5_t *g_tuner;
static const nn_ncclEnv_v1_t *g_env;

static void *worker(void *arg) {
  long id = (long)arg;
  for (int c = 0; c < COMMS_PER_THREAD; c++) {
    void *ctx = NULL;
    nn_ncclTunerConstants_v5_t k;
    memset(&k, 0, sizeof k);
    size_t ranks = (size_t)(1 + (id + c) % 8);
    if (g_tuner->init(&ctx, (uint64_t)(id * 1000 + c), ranks, 1, NULL, NULL, &k) !=
        nn_ncclSuccess) {
      CHECK(0, "init failed");
      continue;
    }
    for (int i = 0; i < CALLS_PER_COMM; i++) {
      float t[NA][NP];
      for (int j = 0; j < NA * NP; j++) t[j / NP][j % NP] = (j % 4 == 1) ? -1.0f : (float)(j + 1);
      int ch = 0;
      g_tuner->getCollInfo(ctx, i % 5, (size_t)1 << (i % 30), 1, (float **)(void *)&t[0][0], NA, NP,
                           0, &ch);
      for (int j = 0; j < NA * NP; j++)
        if (j % 4 == 1) CHECK(t[j / NP][j % NP] < 0, "disabled entry enabled");
    }
    if (c % 8 == 0) {
      const char *v = g_env->getEnv("NCCL_SOCKET_IFNAME");
      CHECK(v && !strcmp(v, "lo"), "env default under load");
      g_env->getEnv("NCCL_TOPO_FILE");
    }
    g_tuner->finalize(ctx);
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s plugin.so [threads]\n", argv[0]);
    return 2;
  }
  char *end = NULL;
  long n = argc > 2 ? strtol(argv[2], &end, 10) : 32;
  if ((end && (end == argv[2] || *end)) || n < 1 || n > 4096) {
    fprintf(stderr, "%s: threads must be a number from 1 to 4096, not '%s'\n", argv[0], argv[2]);
    return 2;
  }
  int threads = (int)n;
  char dir[] = "/tmp/nn-conc-XXXXXX", path[512];
  if (!mkdtemp(dir)) return 1;
  setenv("XDG_RUNTIME_DIR", dir, 1);
  setenv(
    "NCCL_NUMA_CONFIG",
    nn_abi_write_config(dir, "c.conf",
                        "cpu vendor=GenuineIntel family=6 model=207\n"
                        "gpu 0 bus=01:00.0 numa=1\ngpu 1 bus=02:00.0 numa=1\n"
                        "gpu 2 bus=03:00.0 numa=0\ngpu 3 bus=04:00.0 numa=0\n"
                        "numa 0 cpus=0-3\nnuma 1 cpus=4-7\n"
                        "rule coll=allreduce bytes=0-1M scope=intra algo=ring proto=ll channels=2\n"
                        "rule coll=any bytes=1M- algo=ring\n"
                        "rule coll=allgather scope=cross proto=simple\n"
                        "env NCCL_SOCKET_IFNAME=lo\n",
                        path, sizeof path),
    1);
  void *h = nn_abi_load(argv[1]);
  g_tuner = nn_abi_symbol(h, "ncclTunerPlugin_v5");
  g_env = nn_abi_symbol(h, "ncclEnvPlugin_v1");
  g_env->init(2, 28, 9, "");
  pthread_t *tid = calloc((size_t)threads, sizeof *tid);
  for (long i = 0; i < threads; i++) pthread_create(&tid[i], NULL, worker, (void *)i);
  for (int i = 0; i < threads; i++) pthread_join(tid[i], NULL);
  free(tid);
  g_env->finalize();
  dlclose(h);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "cleanup failed\n");
  printf("%d threads x %d communicators x %d calls: %d checks, %d failed\n", threads,
         COMMS_PER_THREAD, CALLS_PER_COMM, (int)nn_checks, (int)nn_failures);
  return nn_failures ? 1 : 0;
}
