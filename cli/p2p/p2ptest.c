/* SPDX-License-Identifier: BSD-3-Clause */
/* p2ptest.c - the probe and the pair test, run in child processes; see p2ptest.h. */
#include "cli/p2p/p2ptest.h"

#include <stdint.h>
#include <string.h>

#include "cli/common/monotonic.h"
#include "cli/p2p/p2p_ptx.h"
#include "cli/p2p/p2pdrv.h"
#include "printable.h"

#define WORDS (8u << 20)               /* 32 MiB buffers */
#define GRID 128u
#define BLOCK 256u
#define ROUNDS 2000u                   /* ping-pong round trips */
#define SPIN_NS 500000000ull           /* a flag that takes longer was lost */
#define COPIES 8                       /* timed peer copies of the whole buffer */
#define NN_CU_STREAM_NON_BLOCKING 1u

/* ---------- probe ---------- */

static void probe_nvml(const char (*bus)[32], int n, FILE *out) {
  struct nn_nvml nv;
  char why[1200];
  if (nn_p2pdrv_nvml_open(&nv, why, sizeof why)) { fprintf(out, "nvml-off %s\n", why); return; }
  int rc = nv.init();
  if (rc) { fprintf(out, "nvml-off nvmlInit failed (nvmlReturn %d)\n", rc); return; }
  char version[96] = "";
  if (!nv.driver_version(version, sizeof version)) {
    char safe[96];
    fprintf(out, "nvml-driver %s\n", nn_printable(safe, sizeof safe, version, NN_PRINTABLE_CSTR, " "));
  }
  void *dev[64] = {0};
  for (int i = 0; i < n; i++)
    if (nv.by_bus(bus[i], &dev[i])) dev[i] = NULL;
  for (int a = 0; a < n; a++)
    for (int b = 0; b < n; b++) {
      if (a == b) continue;
      int rd = -1, wr = -1;
      if (dev[a] && dev[b] && (nv.p2p_status(dev[a], dev[b], NN_NVML_P2P_CAPS_READ, &rd) ||
                               nv.p2p_status(dev[a], dev[b], NN_NVML_P2P_CAPS_WRITE, &wr)))
        rd = wr = -1;
      fprintf(out, "nvml %d %d %d %d\n", a, b, rd, wr);
    }
  nv.shutdown();
}

void nn_p2ptest_probe(FILE *out) {
  struct nn_cuda cu;
  char why[1200], err[96];
  if (nn_p2pdrv_cuda_open(&cu, why, sizeof why)) { fprintf(out, "missing no CUDA driver: %s\n", why); return; }
  int rc = cu.init(0), version = 0, n = 0;
  if (rc) { fprintf(out, "missing the CUDA driver: cuInit failed: %s\n", nn_p2pdrv_error(&cu, rc, err, sizeof err)); return; }
  if (!cu.driver_version(&version)) fprintf(out, "cuda %d\n", version);
  if ((rc = cu.device_count(&n))) {
    fprintf(out, "missing GPUs: cuDeviceGetCount failed: %s\n", nn_p2pdrv_error(&cu, rc, err, sizeof err));
    return;
  }
  if (n > 64) n = 64;
  char bus[64][32];
  for (int i = 0; i < n; i++) {
    int dev;
    char name[256] = "", safe[256];
    if ((rc = cu.device_get(&dev, i)) || (rc = cu.device_bus(bus[i], (int)sizeof bus[i], dev))) {
      fprintf(out, "missing GPU %d: %s\n", i, nn_p2pdrv_error(&cu, rc, err, sizeof err));
      return;
    }
    bus[i][sizeof bus[i] - 1] = '\0';
    if (cu.device_name(name, (int)sizeof name, dev)) strcpy(name, "?");
    name[sizeof name - 1] = '\0';
    char safebus[32];
    fprintf(out, "gpu %d %s %s\n", i, nn_printable(safebus, sizeof safebus, bus[i], NN_PRINTABLE_CSTR, " "),
            nn_printable(safe, sizeof safe, name, NN_PRINTABLE_CSTR, NULL));
  }
  probe_nvml((const char (*)[32])bus, n, out);
  fprintf(out, "end\n");
}

/* ---------- pair ---------- */

struct side {
  int dev;
  nn_cu_ctx ctx;
  nn_cu_module mod;
  nn_cu_function fill, verify, pingpong;
  nn_cu_stream stream;
  nn_cu_ptr buf, wrong, flag, result;
};

struct pair {
  struct nn_cuda cu;
  FILE *out;
  const char *step;
  struct side s[2];   /* a, b */
};

/* 0 when rc is success, else the step's error line and -1. */
static int ok(struct pair *p, nn_cu_result rc, const char *call) {
  if (rc == 0) return 0;
  char err[96];
  fprintf(p->out, "error %s: %s failed: %s\n", p->step, call, nn_p2pdrv_error(&p->cu, rc, err, sizeof err));
  return -1;
}

static void begin(struct pair *p, const char *step) {
  p->step = step;
  fprintf(p->out, "begin %s\n", step);
}

static int current(struct pair *p, const struct side *s) { return ok(p, p->cu.ctx_set_current(s->ctx), "cuCtxSetCurrent"); }

static int setup_side(struct pair *p, struct side *s) {
  if (ok(p, p->cu.ctx_retain(&s->ctx, s->dev), "cuDevicePrimaryCtxRetain") || current(p, s)) return -1;
  if (ok(p, p->cu.module_load_data(&s->mod, nn_p2p_ptx), "cuModuleLoadData (the embedded PTX)")) return -1;
  if (ok(p, p->cu.module_function(&s->fill, s->mod, NN_P2P_KERNEL_FILL), "cuModuleGetFunction " NN_P2P_KERNEL_FILL) ||
      ok(p, p->cu.module_function(&s->verify, s->mod, NN_P2P_KERNEL_VERIFY), "cuModuleGetFunction " NN_P2P_KERNEL_VERIFY) ||
      ok(p, p->cu.module_function(&s->pingpong, s->mod, NN_P2P_KERNEL_PINGPONG), "cuModuleGetFunction " NN_P2P_KERNEL_PINGPONG))
    return -1;
  if (ok(p, p->cu.stream_create(&s->stream, NN_CU_STREAM_NON_BLOCKING), "cuStreamCreate")) return -1;
  return ok(p, p->cu.mem_alloc(&s->buf, (size_t)WORDS * 4), "cuMemAlloc") ||
         ok(p, p->cu.mem_alloc(&s->wrong, 4), "cuMemAlloc") || ok(p, p->cu.mem_alloc(&s->flag, 4), "cuMemAlloc") ||
         ok(p, p->cu.mem_alloc(&s->result, 16), "cuMemAlloc") ? -1 : 0;
}

/* from may map to's memory; already enabled (the GPU with itself) is fine. */
static int enable_peer(struct pair *p, const struct side *from, const struct side *to) {
  if (from->ctx == to->ctx || current(p, from)) return from->ctx == to->ctx ? 0 : -1;
  nn_cu_result rc = p->cu.ctx_enable_peer(to->ctx, 0);
  return rc == NN_CU_PEER_ACCESS_ALREADY_ENABLED ? 0 : ok(p, rc, "cuCtxEnablePeerAccess");
}

static int sync_side(struct pair *p, const struct side *s) {
  return current(p, s) || ok(p, p->cu.ctx_synchronize(), "cuCtxSynchronize (the kernel or copy)");
}

/* GPU `on` writes the pattern into dst (its own or the peer's memory). */
static int fill(struct pair *p, const struct side *on, nn_cu_ptr dst, unsigned seed) {
  unsigned n = WORDS;
  void *args[] = {&dst, &n, &seed};
  if (current(p, on) || ok(p, p->cu.launch(on->fill, GRID, 1, 1, BLOCK, 1, 1, 0, NULL, args, NULL), "cuLaunchKernel " NN_P2P_KERNEL_FILL))
    return -1;
  return sync_side(p, on);
}

/* GPU `on` counts the words of src that differ from the pattern; -1 on a driver error. */
static long long verify(struct pair *p, const struct side *on, nn_cu_ptr src, unsigned seed) {
  unsigned n = WORDS, wrong = 0;
  nn_cu_ptr counter = on->wrong;
  void *args[] = {&src, &n, &seed, &counter};
  if (current(p, on) || ok(p, p->cu.memset_d32(on->wrong, 0, 1), "cuMemsetD32") ||
      ok(p, p->cu.launch(on->verify, GRID, 1, 1, BLOCK, 1, 1, 0, NULL, args, NULL), "cuLaunchKernel " NN_P2P_KERNEL_VERIFY) ||
      sync_side(p, on) || ok(p, p->cu.memcpy_dtoh(&wrong, on->wrong, 4), "cuMemcpyDtoH"))
    return -1;
  return wrong;
}

/* The step's line from the words found wrong; 0 when all were right. */
static int report(struct pair *p, long long wrong, const char *what) {
  if (wrong < 0) return -1;
  if (wrong == 0) fprintf(p->out, "step %s ok\n", p->step);
  else fprintf(p->out, "step %s fail %s: %lld of %u words wrong\n", p->step, what, wrong, WORDS);
  return wrong ? 1 : 0;
}

static int step_write(struct pair *p) {
  begin(p, "write");
  if (fill(p, &p->s[0], p->s[1].buf, 0x5a5a0001u)) return -1;
  return report(p, verify(p, &p->s[1], p->s[1].buf, 0x5a5a0001u), "a's stores into b's memory, checked by b");
}

static int step_read(struct pair *p) {
  begin(p, "read");
  if (fill(p, &p->s[1], p->s[1].buf, 0xa5a50002u)) return -1;
  return report(p, verify(p, &p->s[0], p->s[1].buf, 0xa5a50002u), "a's loads from b's memory");
}

static int copy_a_to_b(struct pair *p, int times) {
  for (int i = 0; i < times; i++)
    if (ok(p, p->cu.memcpy_peer(p->s[1].buf, p->s[1].ctx, p->s[0].buf, p->s[0].ctx, (size_t)WORDS * 4), "cuMemcpyPeer"))
      return -1;
  return sync_side(p, &p->s[0]) || sync_side(p, &p->s[1]) ? -1 : 0;
}

static int step_copy(struct pair *p) {
  begin(p, "copy");
  if (fill(p, &p->s[0], p->s[0].buf, 0x3c3c0003u) || current(p, &p->s[0]) || copy_a_to_b(p, 1)) return -1;
  return report(p, verify(p, &p->s[1], p->s[1].buf, 0x3c3c0003u), "copy engine (cuMemcpyPeer) a -> b, checked by b");
}

static int launch_pingpong(struct pair *p, const struct side *on, const struct side *other, unsigned role) {
  nn_cu_ptr mine = on->flag, theirs = other->flag, result = on->result;
  unsigned rounds = ROUNDS;
  unsigned long long spin = SPIN_NS;
  void *args[] = {&mine, &theirs, &rounds, &role, &spin, &result};
  return current(p, on) || ok(p, p->cu.launch(on->pingpong, 1, 1, 1, 1, 1, 1, 0, on->stream, args, NULL),
                              "cuLaunchKernel " NN_P2P_KERNEL_PINGPONG);
}

static int step_latency(struct pair *p) {
  begin(p, "latency");
  struct side *a = &p->s[0], *b = &p->s[1];
  for (int i = 0; i < 2; i++)
    if (current(p, &p->s[i]) || ok(p, p->cu.memset_d32(p->s[i].flag, 0, 1), "cuMemsetD32") ||
        ok(p, p->cu.memset_d32(p->s[i].result, 0, 4), "cuMemsetD32") || ok(p, p->cu.ctx_synchronize(), "cuCtxSynchronize"))
      return -1;
  /* b first, so that it waits for a's first flag */
  if (launch_pingpong(p, b, a, 1) || launch_pingpong(p, a, b, 0)) return -1;
  unsigned long long ra[2], rb[2];
  if (current(p, a) || ok(p, p->cu.stream_synchronize(a->stream), "cuStreamSynchronize (ping-pong)") ||
      ok(p, p->cu.memcpy_dtoh(ra, a->result, sizeof ra), "cuMemcpyDtoH") || current(p, b) ||
      ok(p, p->cu.stream_synchronize(b->stream), "cuStreamSynchronize (ping-pong)") ||
      ok(p, p->cu.memcpy_dtoh(rb, b->result, sizeof rb), "cuMemcpyDtoH"))
    return -1;
  if (ra[0] || rb[0]) {
    fprintf(p->out, "step latency fail the flag of round %llu of %u never reached %s within %llu ms (peer writes lost)\n",
            ra[0] ? ra[0] : rb[0], ROUNDS, ra[0] ? "a" : "b", SPIN_NS / 1000000);
    return 1;
  }
  fprintf(p->out, "latency %.3f\n", (double)ra[1] / ROUNDS / 2.0 / 1000.0);
  fprintf(p->out, "step latency ok\n");
  return 0;
}

static int step_bandwidth(struct pair *p) {
  begin(p, "bandwidth");
  if (current(p, &p->s[0]) || copy_a_to_b(p, 1)) return -1;   /* warm-up */
  double t0 = nn_monotonic_s();
  if (current(p, &p->s[0]) || copy_a_to_b(p, COPIES)) return -1;
  double dt = nn_monotonic_s() - t0;
  fprintf(p->out, "bandwidth %.3f\n", dt > 0 ? (double)COPIES * WORDS * 4 / dt / 1e9 : 0.0);
  fprintf(p->out, "step bandwidth ok\n");
  return 0;
}

/* What the driver says of the pair; 1 when a may access b's memory. */
static int driver_view(struct pair *p, int a, int b) {
  int can = 1, attr[4] = {-1, -1, -1, -1};
  if (a != b) {
    if (ok(p, p->cu.can_access_peer(&can, a, b), "cuDeviceCanAccessPeer")) return -1;
    for (int i = 0; i < 4; i++)
      if (p->cu.p2p_attribute(&attr[i], NN_CU_P2P_PERFORMANCE_RANK + i, a, b)) attr[i] = -1;
  }
  fprintf(p->out, "peer %d %d %d %d %d\n", can ? 1 : 0, attr[0], attr[1], attr[2], attr[3]);
  return can ? 1 : 0;
}

static int run_pair(struct pair *p, int a, int b) {
  char why[1200];
  p->step = "setup";
  if (nn_p2pdrv_cuda_open(&p->cu, why, sizeof why)) { fprintf(p->out, "error setup: %s\n", why); return -1; }
  if (ok(p, p->cu.init(0), "cuInit") || ok(p, p->cu.device_get(&p->s[0].dev, a), "cuDeviceGet") ||
      ok(p, p->cu.device_get(&p->s[1].dev, b), "cuDeviceGet"))
    return -1;
  int can = driver_view(p, p->s[0].dev, p->s[1].dev);
  if (can <= 0) return can < 0 ? -1 : (fprintf(p->out, "done nopeer\n"), 0);
  begin(p, "setup");
  if (setup_side(p, &p->s[0]) || setup_side(p, &p->s[1]) || enable_peer(p, &p->s[0], &p->s[1]) ||
      enable_peer(p, &p->s[1], &p->s[0]))
    return -1;
  /* every function step, so that the table says which work; timing only where all did */
  int w = step_write(p), r = step_read(p), c = step_copy(p);
  if (w < 0 || r < 0 || c < 0) return -1;
  if (w || r || c) return 1;
  int rc = step_latency(p);
  if (rc == 0) rc = step_bandwidth(p);
  if (rc == 0) fprintf(p->out, "done ok\n");
  return rc;
}

void nn_p2ptest_pair(int a, int b, FILE *out) {
  struct pair p;
  memset(&p, 0, sizeof p);
  p.out = out;
  run_pair(&p, a, b);
}
