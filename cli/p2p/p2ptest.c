/* SPDX-License-Identifier: BSD-3-Clause */
/* p2ptest.c - the probe and the pair test, run in child processes; see p2ptest.h. */
#include "cli/p2p/p2ptest.h"

#include <stdint.h>
#include <string.h>

#include "cli/common/monotonic.h"
#include "cli/p2p/p2pdrv.h"
#include "cli/p2p/p2pgpu.h"
#include "cli/p2p/p2pxproc.h"
#include "printable.h"

#define WORDS NN_P2P_WORDS
#define ROUNDS 2000u         /* ping-pong round trips */
#define SPIN_NS 500000000ull /* a flag that takes longer was lost */
#define COPIES 8             /* timed peer copies (and SM-store passes) of the buffer */

/* ---------- probe ---------- */

static void probe_nvml(const char (*bus)[32], int n, FILE *out) {
  struct nn_nvml nv;
  char why[1200];
  if (nn_p2pdrv_nvml_open(&nv, why, sizeof why)) {
    fprintf(out, "nvml-off %s\n", why);
    return;
  }
  int rc = nv.init();
  if (rc) {
    fprintf(out, "nvml-off nvmlInit failed (nvmlReturn %d)\n", rc);
    return;
  }
  char version[96] = "";
  if (!nv.driver_version(version, sizeof version)) {
    char safe[96];
    fprintf(out, "nvml-driver %s\n",
            nn_printable(safe, sizeof safe, version, NN_PRINTABLE_CSTR, " "));
  }
  void *dev[64] = {0};
  for (int i = 0; i < n; i++)
    if (nv.by_bus(bus[i], &dev[i])) dev[i] = NULL;
  for (int a = 0; a < n; a++)
    for (int b = 0; b < n; b++) {
      if (a == b) continue;
      int rd = -1, wr = -1;
      if (dev[a] && dev[b] &&
          (nv.p2p_status(dev[a], dev[b], NN_NVML_P2P_CAPS_READ, &rd) ||
           nv.p2p_status(dev[a], dev[b], NN_NVML_P2P_CAPS_WRITE, &wr)))
        rd = wr = -1;
      fprintf(out, "nvml %d %d %d %d\n", a, b, rd, wr);
    }
  nv.shutdown();
}

void nn_p2ptest_probe(FILE *out) {
  struct nn_cuda cu;
  char why[1200], err[96];
  if (nn_p2pdrv_cuda_open(&cu, why, sizeof why)) {
    fprintf(out, "missing no CUDA driver: %s\n", why);
    return;
  }
  int rc = cu.init(0), version = 0, n = 0;
  if (rc) {
    fprintf(out, "missing the CUDA driver: cuInit failed: %s\n",
            nn_p2pdrv_error(&cu, rc, err, sizeof err));
    return;
  }
  if (!cu.driver_version(&version)) fprintf(out, "cuda %d\n", version);
  if ((rc = cu.device_count(&n))) {
    fprintf(out, "missing GPUs: cuDeviceGetCount failed: %s\n",
            nn_p2pdrv_error(&cu, rc, err, sizeof err));
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
    fprintf(out, "gpu %d %s %s\n", i,
            nn_printable(safebus, sizeof safebus, bus[i], NN_PRINTABLE_CSTR, " "),
            nn_printable(safe, sizeof safe, name, NN_PRINTABLE_CSTR, NULL));
  }
  probe_nvml((const char(*)[32])bus, n, out);
  fprintf(out, "end\n");
}

/* ---------- pair ---------- */

struct side {
  struct nn_p2pgpu g;
  nn_cu_ptr buf, flag, result;
};

struct pair {
  struct nn_p2pcall c;
  struct side s[2]; /* a, b */
};

static void begin(struct pair *p, const char *step) { nn_p2pcall_begin(&p->c, step); }
static int ok(struct pair *p, nn_cu_result rc, const char *call) {
  return nn_p2pcall_ok(&p->c, rc, call);
}
static int current(struct pair *p, const struct side *s) { return nn_p2pgpu_current(&p->c, &s->g); }

static int setup_side(struct pair *p, struct side *s, int ordinal) {
  struct nn_cuda *cu = &p->c.cu;
  if (nn_p2pgpu_setup(&p->c, &s->g, ordinal)) return -1;
  return ok(p, cu->mem_alloc(&s->buf, (size_t)WORDS * 4), "cuMemAlloc") ||
             ok(p, cu->mem_alloc(&s->flag, 4), "cuMemAlloc") ||
             ok(p, cu->mem_alloc(&s->result, 16), "cuMemAlloc")
           ? -1
           : 0;
}

/* from may map to's memory; already enabled (the GPU with itself) is fine. */
static int enable_peer(struct pair *p, const struct side *from, const struct side *to) {
  if (from->g.ctx == to->g.ctx || current(p, from)) return from->g.ctx == to->g.ctx ? 0 : -1;
  nn_cu_result rc = p->c.cu.ctx_enable_peer(to->g.ctx, 0);
  return rc == NN_CU_PEER_ACCESS_ALREADY_ENABLED ? 0 : ok(p, rc, "cuCtxEnablePeerAccess");
}

static int step_write(struct pair *p) {
  begin(p, "write");
  if (nn_p2pgpu_fill(&p->c, &p->s[0].g, p->s[1].buf, WORDS, 0x5a5a0001u)) return -1;
  return nn_p2ptest_report(&p->c,
                           nn_p2pgpu_verify(&p->c, &p->s[1].g, p->s[1].buf, WORDS, 0x5a5a0001u),
                           WORDS, "a's stores into b's memory, checked by b");
}

static int step_read(struct pair *p) {
  begin(p, "read");
  if (nn_p2pgpu_fill(&p->c, &p->s[1].g, p->s[1].buf, WORDS, 0xa5a50002u)) return -1;
  return nn_p2ptest_report(&p->c,
                           nn_p2pgpu_verify(&p->c, &p->s[0].g, p->s[1].buf, WORDS, 0xa5a50002u),
                           WORDS, "a's loads from b's memory");
}

static int copy_a_to_b(struct pair *p, int times) {
  for (int i = 0; i < times; i++)
    if (ok(p,
           p->c.cu.memcpy_peer(p->s[1].buf, p->s[1].g.ctx, p->s[0].buf, p->s[0].g.ctx,
                               (size_t)WORDS * 4),
           "cuMemcpyPeer"))
      return -1;
  return nn_p2pgpu_sync(&p->c, &p->s[0].g) || nn_p2pgpu_sync(&p->c, &p->s[1].g) ? -1 : 0;
}

static int step_copy(struct pair *p) {
  begin(p, "copy");
  if (nn_p2pgpu_fill(&p->c, &p->s[0].g, p->s[0].buf, WORDS, 0x3c3c0003u) || current(p, &p->s[0]) ||
      copy_a_to_b(p, 1))
    return -1;
  return nn_p2ptest_report(&p->c,
                           nn_p2pgpu_verify(&p->c, &p->s[1].g, p->s[1].buf, WORDS, 0x3c3c0003u),
                           WORDS, "copy engine (cuMemcpyPeer) a -> b, checked by b");
}

static int launch_pingpong(struct pair *p, const struct side *on, const struct side *other,
                           unsigned role) {
  nn_cu_ptr mine = on->flag, theirs = other->flag, result = on->result;
  unsigned rounds = ROUNDS;
  unsigned long long spin = SPIN_NS;
  void *args[] = {&mine, &theirs, &rounds, &role, &spin, &result};
  return current(p, on) ||
         ok(p, p->c.cu.launch(on->g.pingpong, 1, 1, 1, 1, 1, 1, 0, on->g.stream, args, NULL),
            "cuLaunchKernel " NN_P2P_KERNEL_PINGPONG);
}

static int pingpong_result(struct pair *p, const struct side *s, unsigned long long r[2]) {
  return current(p, s) ||
         ok(p, p->c.cu.stream_synchronize(s->g.stream), "cuStreamSynchronize (ping-pong)") ||
         ok(p, p->c.cu.memcpy_dtoh(r, s->result, 2 * sizeof r[0]), "cuMemcpyDtoH");
}

static int step_latency(struct pair *p) {
  begin(p, "latency");
  struct side *a = &p->s[0], *b = &p->s[1];
  for (int i = 0; i < 2; i++)
    if (current(p, &p->s[i]) || ok(p, p->c.cu.memset_d32(p->s[i].flag, 0, 1), "cuMemsetD32") ||
        ok(p, p->c.cu.memset_d32(p->s[i].result, 0, 4), "cuMemsetD32") ||
        ok(p, p->c.cu.ctx_synchronize(), "cuCtxSynchronize"))
      return -1;
  /* b first, so that it waits for a's first flag */
  if (launch_pingpong(p, b, a, 1) || launch_pingpong(p, a, b, 0)) return -1;
  unsigned long long ra[2], rb[2];
  if (pingpong_result(p, a, ra) || pingpong_result(p, b, rb)) return -1;
  if (ra[0] || rb[0]) {
    fprintf(p->c.out,
            "step latency fail the flag of round %llu of %u never reached %s within %llu ms (peer "
            "writes "
            "lost)\n",
            ra[0] ? ra[0] : rb[0], ROUNDS, ra[0] ? "a" : "b", SPIN_NS / 1000000);
    return 1;
  }
  fprintf(p->c.out, "latency %.3f\n", (double)ra[1] / ROUNDS / 2.0 / 1000.0);
  fprintf(p->c.out, "step latency ok\n");
  return 0;
}

static int step_bandwidth(struct pair *p) {
  begin(p, "bandwidth");
  if (current(p, &p->s[0]) || copy_a_to_b(p, 1)) return -1; /* warm-up */
  double t0 = nn_monotonic_s();
  if (current(p, &p->s[0]) || copy_a_to_b(p, COPIES)) return -1;
  double dt = nn_monotonic_s() - t0;
  fprintf(p->c.out, "bandwidth %.3f\n", dt > 0 ? (double)COPIES * WORDS * 4 / dt / 1e9 : 0.0);
  fprintf(p->c.out, "step bandwidth ok\n");
  return 0;
}

/* a's SMs storing into b's memory with LL's 16-byte stores, as a kernel moves data (the copy
 * engine's figure is bandwidth's) */
static int step_smbw(struct pair *p) {
  begin(p, "smbw");
  const struct nn_p2pgpu *a = &p->s[0].g;
  if (nn_p2pgpu_ll(&p->c, a, p->s[1].buf, WORDS / 2, 0x77770001u, 1, 16)) return -1; /* warm-up */
  double t0 = nn_monotonic_s();
  for (int i = 0; i < COPIES; i++)
    if (nn_p2pgpu_ll(&p->c, a, p->s[1].buf, WORDS / 2, 0x77770002u + (unsigned)i, (unsigned)i + 2,
                     16))
      return -1;
  double dt = nn_monotonic_s() - t0;
  fprintf(p->c.out, "smbandwidth %.3f\n", dt > 0 ? (double)COPIES * WORDS * 4 / dt / 1e9 : 0.0);
  fprintf(p->c.out, "step smbw ok\n");
  return 0;
}

/* What the driver says of the pair; 1 when a may access b's memory. */
static int driver_view(struct pair *p, int a, int b) {
  int can = 1, attr[4] = {-1, -1, -1, -1}, da, db;
  if (ok(p, p->c.cu.device_get(&da, a), "cuDeviceGet") ||
      ok(p, p->c.cu.device_get(&db, b), "cuDeviceGet"))
    return -1;
  if (a != b) {
    if (ok(p, p->c.cu.can_access_peer(&can, da, db), "cuDeviceCanAccessPeer")) return -1;
    for (int i = 0; i < 4; i++)
      if (p->c.cu.p2p_attribute(&attr[i], NN_CU_P2P_PERFORMANCE_RANK + i, da, db)) attr[i] = -1;
  }
  fprintf(p->c.out, "peer %d %d %d %d %d\n", can ? 1 : 0, attr[0], attr[1], attr[2], attr[3]);
  return can ? 1 : 0;
}

/* The timed steps, once every function step passed. */
static int timed_steps(struct pair *p) {
  int rc = step_latency(p);
  if (rc == 0) rc = step_bandwidth(p);
  if (rc == 0 && p->s[0].g.dev != p->s[1].g.dev) rc = step_smbw(p);
  if (rc == 0) fprintf(p->c.out, "done ok\n");
  return rc;
}

static int run_pair(struct pair *p, int a, int b, struct nn_p2pxproc *x) {
  if (nn_p2pcall_open(&p->c)) return -1;
  int can = driver_view(p, a, b);
  if (can <= 0) return can < 0 ? -1 : (fprintf(p->c.out, "done nopeer\n"), 0);
  begin(p, "setup");
  if (setup_side(p, &p->s[0], a) || setup_side(p, &p->s[1], b) ||
      enable_peer(p, &p->s[0], &p->s[1]) || enable_peer(p, &p->s[1], &p->s[0]))
    return -1;
  /* every function step, so that the table says which work; timing only where all did */
  int w = step_write(p), r = step_read(p), c = step_copy(p);
  if (w < 0 || r < 0 || c < 0) return -1;
  int xr = a == b ? 0 : nn_p2pxproc_run(x, &p->c, &p->s[0].g);
  if (xr < 0) return -1;
  return w || r || c || xr ? 1 : timed_steps(p);
}

int nn_p2ptest_report(struct nn_p2pcall *c, long long wrong, unsigned of, const char *what) {
  if (wrong < 0) return -1;
  if (wrong == 0) fprintf(c->out, "step %s ok\n", c->step);
  else fprintf(c->out, "step %s fail %s: %lld of %u words wrong\n", c->step, what, wrong, of);
  return wrong ? 1 : 0;
}

void nn_p2ptest_pair(int a, int b, FILE *out) {
  struct pair p;
  struct nn_p2pxproc x;
  memset(&p, 0, sizeof p);
  p.c.out = out;
  /* b's own process, forked before this one touches CUDA */
  if (a != b && nn_p2pxproc_start(&x, b, out)) return;
  run_pair(&p, a, b, &x);
  if (a != b) nn_p2pxproc_stop(&x);
}
