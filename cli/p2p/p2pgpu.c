/* SPDX-License-Identifier: BSD-3-Clause */
/* p2pgpu.c - one GPU driven by a p2p child process; see p2pgpu.h. */
#include "cli/p2p/p2pgpu.h"

#include "cli/p2p/p2p_ptx.h"
#include "cli/p2p/p2ptest.h"

#define GRID 128u
#define BLOCK 256u
#define NN_CU_STREAM_NON_BLOCKING 1u

int nn_p2pcall_open(struct nn_p2pcall *c) {
  char why[1200];
  c->step = "setup";
  if (nn_p2pdrv_cuda_open(&c->cu, why, sizeof why)) {
    fprintf(c->out, "error setup: %s\n", why);
    return -1;
  }
  return nn_p2pcall_ok(c, c->cu.init(0), "cuInit");
}

int nn_p2pcall_ok(struct nn_p2pcall *c, nn_cu_result rc, const char *call) {
  if (rc == 0) return 0;
  char err[96];
  fprintf(c->out, "error %s: %s failed: %s\n", c->step, call,
          nn_p2pdrv_error(&c->cu, rc, err, sizeof err));
  return -1;
}

void nn_p2pcall_begin(struct nn_p2pcall *c, const char *step) {
  c->step = step;
  fprintf(c->out, "begin %s\n", step);
}

int nn_p2pgpu_current(struct nn_p2pcall *c, const struct nn_p2pgpu *g) {
  return nn_p2pcall_ok(c, c->cu.ctx_set_current(g->ctx), "cuCtxSetCurrent");
}

int nn_p2pgpu_sync(struct nn_p2pcall *c, const struct nn_p2pgpu *g) {
  return nn_p2pgpu_current(c, g) ||
         nn_p2pcall_ok(c, c->cu.ctx_synchronize(), "cuCtxSynchronize (the kernel or copy)");
}

static int function(struct nn_p2pcall *c, nn_cu_function *fn, nn_cu_module mod, const char *name) {
  char call[96];
  snprintf(call, sizeof call, "cuModuleGetFunction %s", name);
  return nn_p2pcall_ok(c, c->cu.module_function(fn, mod, name), call);
}

int nn_p2pgpu_setup(struct nn_p2pcall *c, struct nn_p2pgpu *g, int ordinal) {
  if (nn_p2pcall_ok(c, c->cu.device_get(&g->dev, ordinal), "cuDeviceGet") ||
      nn_p2pcall_ok(c, c->cu.ctx_retain(&g->ctx, g->dev), "cuDevicePrimaryCtxRetain") ||
      nn_p2pgpu_current(c, g))
    return -1;
  if (nn_p2pcall_ok(c, c->cu.module_load_data(&g->mod, nn_p2p_ptx),
                    "cuModuleLoadData (the embedded PTX)"))
    return -1;
  if (function(c, &g->fill, g->mod, NN_P2P_KERNEL_FILL) ||
      function(c, &g->verify, g->mod, NN_P2P_KERNEL_VERIFY) ||
      function(c, &g->pingpong, g->mod, NN_P2P_KERNEL_PINGPONG) ||
      function(c, &g->ll8, g->mod, NN_P2P_KERNEL_LL8) ||
      function(c, &g->ll16, g->mod, NN_P2P_KERNEL_LL16) ||
      function(c, &g->ll_verify, g->mod, NN_P2P_KERNEL_LL_VERIFY))
    return -1;
  if (nn_p2pcall_ok(c, c->cu.stream_create(&g->stream, NN_CU_STREAM_NON_BLOCKING),
                    "cuStreamCreate"))
    return -1;
  return nn_p2pcall_ok(c, c->cu.mem_alloc(&g->wrong, 4), "cuMemAlloc");
}

static int launch(struct nn_p2pcall *c, const struct nn_p2pgpu *g, nn_cu_function fn, void **args,
                  const char *call) {
  return nn_p2pgpu_current(c, g) ||
         nn_p2pcall_ok(c, c->cu.launch(fn, GRID, 1, 1, BLOCK, 1, 1, 0, NULL, args, NULL), call);
}

int nn_p2pgpu_fill(struct nn_p2pcall *c, const struct nn_p2pgpu *g, nn_cu_ptr dst, unsigned words,
                   unsigned seed) {
  void *args[] = {&dst, &words, &seed};
  return launch(c, g, g->fill, args, "cuLaunchKernel " NN_P2P_KERNEL_FILL) || nn_p2pgpu_sync(c, g);
}

/* The counter after launching fn with args, -1 on a driver error. */
static long long count(struct nn_p2pcall *c, const struct nn_p2pgpu *g, nn_cu_function fn,
                       void **args, const char *call) {
  unsigned wrong = 0;
  if (nn_p2pgpu_current(c, g) ||
      nn_p2pcall_ok(c, c->cu.memset_d32(g->wrong, 0, 1), "cuMemsetD32") ||
      launch(c, g, fn, args, call) || nn_p2pgpu_sync(c, g) ||
      nn_p2pcall_ok(c, c->cu.memcpy_dtoh(&wrong, g->wrong, 4), "cuMemcpyDtoH"))
    return -1;
  return wrong;
}

long long nn_p2pgpu_verify(struct nn_p2pcall *c, const struct nn_p2pgpu *g, nn_cu_ptr src,
                           unsigned words, unsigned seed) {
  nn_cu_ptr counter = g->wrong;
  void *args[] = {&src, &words, &seed, &counter};
  return count(c, g, g->verify, args, "cuLaunchKernel " NN_P2P_KERNEL_VERIFY);
}

int nn_p2pgpu_ll_launch(struct nn_p2pcall *c, const struct nn_p2pgpu *g, nn_cu_ptr dst,
                        unsigned pairs, unsigned seed, unsigned flag, int width) {
  void *args[] = {&dst, &pairs, &seed, &flag};
  return launch(
    c, g, width == 16 ? g->ll16 : g->ll8, args,
    width == 16 ? "cuLaunchKernel " NN_P2P_KERNEL_LL16 : "cuLaunchKernel " NN_P2P_KERNEL_LL8);
}

int nn_p2pgpu_ll(struct nn_p2pcall *c, const struct nn_p2pgpu *g, nn_cu_ptr dst, unsigned pairs,
                 unsigned seed, unsigned flag, int width) {
  return nn_p2pgpu_ll_launch(c, g, dst, pairs, seed, flag, width) || nn_p2pgpu_sync(c, g);
}

long long nn_p2pgpu_ll_verify(struct nn_p2pcall *c, const struct nn_p2pgpu *g, nn_cu_ptr src,
                              unsigned pairs, unsigned seed, unsigned flag) {
  nn_cu_ptr counter = g->wrong;
  void *args[] = {&src, &pairs, &seed, &flag, &counter};
  return count(c, g, g->ll_verify, args, "cuLaunchKernel " NN_P2P_KERNEL_LL_VERIFY);
}
