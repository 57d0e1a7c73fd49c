/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * plugin_lines.c - a stand-in for NCCL 2.30.7's side of plugin loading, no GPU: loads
 * the plugin, initialises its env plugin v2 and tuner v6 with a logger that prints NCCL's
 * INFO line layout ("HOST:PID:TID [0] NCCL INFO msg", debug.cc), asks for NCCL_TOPO_FILE
 * as NCCL's topology detection does, and prints the lines NCCL itself would add (the
 * "Using" lines and "set by environment"). The GPU kit's checks then read nccl-numa's
 * real lines, so a change of their format fails on the CPU, not first on a GPU.
 *
 *   nn_plugin_lines PLUGIN.so NRANKS NNODES
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nccl_abi.h"

__attribute__((format(printf, 5, 6)))
static void logger(int level, unsigned long flags, const char *file, int line, const char *fmt, ...) {
  (void)flags;
  (void)file;
  (void)line;
  va_list ap;
  va_start(ap, fmt);
  printf("cpuhost:%d:%d [0] NCCL %s ", (int)getpid(), (int)getpid(), level == NN_NCCL_LOG_WARN ? "WARN" : "INFO");
  vprintf(fmt, ap);
  printf("\n");
  va_end(ap);
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: nn_plugin_lines PLUGIN.so NRANKS NNODES\n");
    return 2;
  }
  setvbuf(stdout, NULL, _IOLBF, 0);
  void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  nn_ncclEnv_v2_t *env = h ? dlsym(h, "ncclEnvPlugin_v2") : NULL;
  nn_ncclTuner_v6_t *tuner = h ? dlsym(h, "ncclTunerPlugin_v6") : NULL;
  if (!env || !tuner) {
    fprintf(stderr, "nn_plugin_lines: %s: %s\n", argv[1], h ? "no ncclEnvPlugin_v2 or ncclTunerPlugin_v6" : dlerror());
    return 1;
  }
  logger(NN_NCCL_LOG_INFO, NN_NCCL_INIT, __FILE__, __LINE__, "NCCL version 2.30.7+cuda13.0");
  if (env->init(2, 30, 7, "+cuda13.0", logger) != nn_ncclSuccess) return 1;
  logger(NN_NCCL_LOG_INFO, NN_NCCL_INIT, __FILE__, __LINE__, "ENV/Plugin: Using %s (v2)", env->name);
  const char *topo = env->getEnv("NCCL_TOPO_FILE");
  if (topo) logger(NN_NCCL_LOG_INFO, NN_NCCL_ENV, __FILE__, __LINE__, "NCCL_TOPO_FILE set by environment to %s", topo);
  logger(NN_NCCL_LOG_INFO, NN_NCCL_INIT, __FILE__, __LINE__, "TUNER/Plugin: Using %s (v6)", tuner->name);
  void *ctx = NULL;
  nn_ncclNvlDomainInfo_v6_t nvl = {0};
  static nn_ncclTunerConstants_v6_t constants;
  char *e1, *e2;
  unsigned long nranks = strtoul(argv[2], &e1, 10), nnodes = strtoul(argv[3], &e2, 10);
  if (*e1 || *e2 || !nranks || !nnodes) {
    fprintf(stderr, "nn_plugin_lines: NRANKS and NNODES are positive numbers\n");
    return 2;
  }
  if (tuner->init(&ctx, 0x1234abcdULL, nranks, nnodes, logger, &nvl, &constants) != nn_ncclSuccess)
    return 1;
  tuner->finalize(ctx);
  env->finalize();
  return 0;
}
