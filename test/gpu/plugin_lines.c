/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * plugin_lines.c - a stand-in for NCCL's side of plugin loading, no GPU: loads the
 * plugin, initialises its env plugin and tuner at the ABI of the release played (2.30.7:
 * env v2 and tuner v6; 2.28.9: env v1, which has no logger so the plugin writes its own
 * lines to stderr, and tuner v5) with a logger that prints NCCL's INFO line layout
 * ("HOST:PID:TID [0] NCCL INFO msg", debug.cc), asks for NCCL_TOPO_FILE as NCCL's
 * topology detection does, and prints the lines NCCL itself would add (the "Using" lines
 * and "set by environment"). The GPU kit's checks then read nccl-numa's real lines, so a
 * change of their format fails on the CPU, not first on a GPU.
 *
 *   nn_plugin_lines PLUGIN.so NRANKS NNODES [2.30.7|2.28.9]
 *   NN_PLUGIN_LINES_ASK=NAME,...   also print what the env plugin serves for each NAME
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nccl_abi.h"

__attribute__((format(printf, 5, 6))) static void logger(int level, unsigned long flags,
                                                         const char *file, int line,
                                                         const char *fmt, ...) {
  (void)flags;
  (void)file;
  (void)line;
  va_list ap;
  va_start(ap, fmt);
  printf("cpuhost:%d:%d [0] NCCL %s ", (int)getpid(), (int)getpid(),
         level == NN_NCCL_LOG_WARN ? "WARN" : "INFO");
  vprintf(fmt, ap);
  printf("\n");
  va_end(ap);
}

/* The release played, answered as NCCL's own ncclGetVersion does (src/init.cc): exported
 * (the Makefile's --export-dynamic-symbol), so the plugin finds its host's release and file
 * among the loaded objects as it does in a real NCCL (ncclload.h). */
static int played = 23007;
__attribute__((visibility("default"))) int ncclGetVersion(int *version);
int ncclGetVersion(int *version) {
  if (!version) return 4; /* ncclInvalidArgument */
  *version = played;
  return 0;
}

/* What the kit needs of either env plugin ABI. */
struct env_api {
  const char *name;
  nn_ncclResult_t (*finalize)(void);
  const char *(*get_env)(const char *name);
};

/* The env plugin at the release's ABI, initialised; 0, or -1 when missing or failing. */
static int env_init(void *h, int old, struct env_api *api) {
  if (old) {
    nn_ncclEnv_v1_t *e = dlsym(h, "ncclEnvPlugin_v1");
    if (!e || e->init(2, 28, 9, "+cuda13.0") != nn_ncclSuccess) return -1;
    *api = (struct env_api){e->name, e->finalize, e->getEnv};
    return 0;
  }
  nn_ncclEnv_v2_t *e = dlsym(h, "ncclEnvPlugin_v2");
  if (!e || e->init(2, 30, 7, "+cuda13.0", logger) != nn_ncclSuccess) return -1;
  *api = (struct env_api){e->name, e->finalize, e->getEnv};
  return 0;
}

/* NN_PLUGIN_LINES_ASK=NAME,NAME...: each variable as the env plugin serves it to NCCL, one
 * "ask NAME=VALUE" line each ("(unset)" when it serves none), for the tests of what a mapping
 * line gives a process. */
static void ask(const struct env_api *env) {
  const char *list = getenv("NN_PLUGIN_LINES_ASK");
  char buf[512];
  snprintf(buf, sizeof buf, "%s", list ? list : "");
  for (char *save = NULL, *name = strtok_r(buf, ",", &save); name;
       name = strtok_r(NULL, ",", &save)) {
    const char *v = env->get_env(name);
    printf("ask %s=%s\n", name, v ? v : "(unset)");
  }
}

int main(int argc, char **argv) {
  int old = argc == 5 && !strcmp(argv[4], "2.28.9");
  if ((argc != 4 && argc != 5) || (argc == 5 && !old && strcmp(argv[4], "2.30.7"))) {
    fprintf(stderr, "usage: nn_plugin_lines PLUGIN.so NRANKS NNODES [2.30.7|2.28.9]\n");
    return 2;
  }
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (old) played = 22809;
  void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  /* tuner v5 and v6 agree up to finalize; v6 only adds getChunkSize at the end */
  nn_ncclTuner_v6_t *tuner = h ? dlsym(h, old ? "ncclTunerPlugin_v5" : "ncclTunerPlugin_v6") : NULL;
  if (!tuner) {
    fprintf(stderr, "nn_plugin_lines: %s: %s\n", argv[1],
            h ? "no tuner of that release's ABI" : dlerror());
    return 1;
  }
  logger(NN_NCCL_LOG_INFO, NN_NCCL_INIT, __FILE__, __LINE__, "NCCL version %s+cuda13.0",
         old ? "2.28.9" : "2.30.7");
  struct env_api env;
  if (env_init(h, old, &env)) {
    fprintf(stderr, "nn_plugin_lines: %s: the env plugin v%d is missing or failed to initialise\n",
            argv[1], old ? 1 : 2);
    return 1;
  }
  logger(NN_NCCL_LOG_INFO, NN_NCCL_INIT, __FILE__, __LINE__, "ENV/Plugin: Using %s (v%d)", env.name,
         old ? 1 : 2);
  const char *topo = env.get_env("NCCL_TOPO_FILE");
  if (topo)
    logger(NN_NCCL_LOG_INFO, NN_NCCL_ENV, __FILE__, __LINE__,
           "NCCL_TOPO_FILE set by environment to %s", topo);
  ask(&env);
  logger(NN_NCCL_LOG_INFO, NN_NCCL_INIT, __FILE__, __LINE__, "TUNER/Plugin: Using %s (v%d)",
         tuner->name, old ? 5 : 6);
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
  env.finalize();
  return 0;
}
