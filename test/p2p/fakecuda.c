/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fakecuda.c - a stand-in CUDA driver and NVML (build/tools/libnn-fakecuda.so, `make tools`)
 * for the tests of `nccl-numa p2p`, loaded through NCCL_NUMA_CUDA_LIB and NCCL_NUMA_NVML_LIB.
 *
 * "Device memory" is host memory, and a launch runs the kernel's meaning on it in a thread
 * of its own (known by its name in the PTX the command loads, which must hold its .entry),
 * so that the command's checks are real: a kernel that touches another GPU's memory without
 * peer access enabled faults (CUDA_ERROR_ILLEGAL_ADDRESS at the next synchronisation).
 *
 *   NN_FAKECUDA_GPUS=N    devices (default: STANDIN_GPUS, the GPU kit's stand-ins' count, else
 *                         2), bus ids 0000:11:00.0, 0000:12:00.0, ...
 *   NN_FAKECUDA=MODE      ok (default); drop: peer access granted, peer writes (kernel
 *                         stores and peer copies) silently lost; hang: a kernel or copy that
 *                         crosses the link never finishes; corrupt: peer copies deliver
 *                         wrong words; nopeer: no peer access (cuDeviceCanAccessPeer 0, NVML
 *                         CNS as in a VM); nvml-off: nvmlInit fails
 *   NN_FAKECUDA_BAD=A:B   the mode hits the link between GPUs A and B alone (both directions)
 *   NN_FAKECUDA_TAG=NAME  a hang renames the hung process NAME and starts one more process
 *                         of that name (as a driver's helper would be), for the test to
 *                         check that nothing is left running
 *   NN_FAKECUDA_DUMP=F    the image given to cuModuleLoadData is written to F
 *   NN_FAKECUDA_SM=NN     every device's compute capability (default 90: 9.0)
 *
 * Its soname is libcuda.so.1, so that a process which loaded it first gets it from a
 * dlopen("libcuda.so.1") too (test_cudaprobe: what `check` asks the driver).
 */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "cli/p2p/p2ptest.h"
#include "numparse.h"

#define API __attribute__((visibility("default")))
#define MAX_GPUS 16
#define MAX_ALLOCS 256
#define MAX_PENDING 64

enum { OK = 0, E_INVALID_VALUE = 1, E_NOT_INITIALIZED = 3, E_INVALID_DEVICE = 101, E_INVALID_PTX = 218,
       E_PEER_UNSUPPORTED = 217, E_NOT_FOUND = 500, E_ILLEGAL_ADDRESS = 700, E_ALREADY_ENABLED = 704,
       E_INVALID_CONTEXT = 201 };
enum kind { FILL, VERIFY, PINGPONG };

struct ctx {
  int dev;
  int peer[MAX_GPUS];
  int fault;
  pthread_t pending[MAX_PENDING];
  void *pending_stream[MAX_PENDING];
  int n_pending;
};
struct stream { struct ctx *ctx; };
struct module { struct ctx *ctx; char *image; };
struct function { struct ctx *ctx; enum kind kind; };
struct launch { struct ctx *ctx; enum kind kind; uint64_t a[6]; };
struct alloc { uint64_t base; size_t size; int dev; };

static int initialized, n_gpus = 2, bad_a = -1, bad_b = -1;
static const char *mode = "ok";
static struct ctx ctxs[MAX_GPUS];
static struct alloc allocs[MAX_ALLOCS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static __thread struct ctx *current;

/* ---------- the exported API ---------- */
API int cuInit(unsigned flags);
API int cuDriverGetVersion(int *v);
API int cuDeviceGetCount(int *n);
API int cuDeviceGet(int *d, int ordinal);
API int cuDeviceGetName(char *name, int len, int d);
API int cuDeviceGetPCIBusId(char *bus, int len, int d);
API int cuDeviceGetByPCIBusId(int *d, const char *bus);
API int cuDeviceGetAttribute(int *v, int attr, int d);
API int cuDeviceCanAccessPeer(int *can, int d, int peer);
API int cuDeviceGetP2PAttribute(int *v, int attr, int src, int dst);
API int cuDevicePrimaryCtxRetain(void **c, int d);
API int cuDevicePrimaryCtxRelease_v2(int d);
API int cuCtxSetCurrent(void *c);
API int cuCtxEnablePeerAccess(void *peer, unsigned flags);
API int cuCtxSynchronize(void);
API int cuMemAlloc_v2(uint64_t *p, size_t bytes);
API int cuMemFree_v2(uint64_t p);
API int cuMemcpyDtoH_v2(void *dst, uint64_t src, size_t bytes);
API int cuMemsetD32_v2(uint64_t dst, unsigned v, size_t n);
API int cuMemcpyPeer(uint64_t dst, void *dctx, uint64_t src, void *sctx, size_t bytes);
API int cuModuleLoadData(void **m, const void *image);
API int cuModuleGetFunction(void **f, void *m, const char *name);
API int cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                       unsigned shared, void *stream, void **params, void **extra);
API int cuStreamCreate(void **s, unsigned flags);
API int cuStreamSynchronize(void *s);
API int cuGetErrorName(int rc, const char **name);
API int nvmlInit_v2(void);
API int nvmlShutdown(void);
API int nvmlSystemGetDriverVersion(char *v, unsigned len);
API int nvmlDeviceGetHandleByPciBusId_v2(const char *bus, void **dev);
API int nvmlDeviceGetP2PStatus(void *a, void *b, int index, int *status);

static int is(const char *m) { return !strcmp(mode, m); }

/* NN_FAKECUDA_BAD=A:B into *a, *b (left alone when it is not that) */
static void bad_link(const char *s, int *a, int *b) {
  const char *colon;
  int x, y;
  if (nn_int_parse_prefix(s, 0, MAX_GPUS - 1, &x, &colon) == 0 && *colon == ':' &&
      nn_int_parse(colon + 1, 0, MAX_GPUS - 1, &y) == 0) {
    *a = x;
    *b = y;
  }
}

static const char *gpus_env(void) {
  const char *n = getenv("NN_FAKECUDA_GPUS");
  return n && *n ? n : getenv("STANDIN_GPUS");
}

/* Whether the mode hits the link between devices x and y. */
static int bad(int x, int y) {
  if (x == y) return 0;
  return bad_a < 0 || (x == bad_a && y == bad_b) || (x == bad_b && y == bad_a);
}

/* A hang: the calling process takes the tag's name, starts one more process of that name,
 * and never returns. */
static void hang(void) {
  const char *tag = getenv("NN_FAKECUDA_TAG");
  if (tag && *tag) {
    FILE *comm = fopen("/proc/self/comm", "w");   /* the process's name, from any thread */
    if (comm) { fputs(tag, comm); fclose(comm); }
    if (fork() == 0) {
      prctl(PR_SET_NAME, tag);
      for (;;) pause();
    }
  }
  for (;;) pause();
}

static struct alloc *find(uint64_t p, size_t bytes) {
  for (int i = 0; i < MAX_ALLOCS; i++)
    if (allocs[i].base && p >= allocs[i].base && p + bytes <= allocs[i].base + allocs[i].size) return &allocs[i];
  return NULL;
}

/* The device owning [p, p+bytes) when ctx c may touch it, else -1 (the kernel faults). */
static int reach(struct ctx *c, uint64_t p, size_t bytes) {
  pthread_mutex_lock(&lock);
  struct alloc *a = find(p, bytes);
  int owner = a ? a->dev : -1;
  pthread_mutex_unlock(&lock);
  if (owner < 0 || (owner != c->dev && !c->peer[owner])) return -1;
  return owner;
}

int cuInit(unsigned flags) {
  (void)flags;
  const char *m = getenv("NN_FAKECUDA"), *n = gpus_env(), *b = getenv("NN_FAKECUDA_BAD");
  if (m && *m) mode = m;
  if (!is("ok") && !is("drop") && !is("hang") && !is("nopeer") && !is("corrupt") && !is("nvml-off")) {
    fprintf(stderr, "fakecuda: unknown NN_FAKECUDA=%s\n", mode);
    return E_INVALID_VALUE;
  }
  if (n && *n && nn_int_parse(n, 0, MAX_GPUS, &n_gpus)) n_gpus = 2;
  if (b && *b) bad_link(b, &bad_a, &bad_b);
  for (int i = 0; i < MAX_GPUS; i++) ctxs[i].dev = i;
  initialized = 1;
  return OK;
}

int cuDriverGetVersion(int *v) { *v = 13000; return OK; }
int cuDeviceGetCount(int *n) { if (!initialized) return E_NOT_INITIALIZED; *n = n_gpus; return OK; }
int cuDeviceGet(int *d, int ordinal) {
  if (!initialized) return E_NOT_INITIALIZED;
  if (ordinal < 0 || ordinal >= n_gpus) return E_INVALID_DEVICE;
  *d = ordinal;
  return OK;
}
int cuDeviceGetName(char *name, int len, int d) { snprintf(name, (size_t)len, "NN FakeGPU %d", d); return OK; }
int cuDeviceGetPCIBusId(char *bus, int len, int d) { snprintf(bus, (size_t)len, "0000:%02X:00.0", 0x11 + d); return OK; }
int cuDeviceGetByPCIBusId(int *d, const char *bus) {
  if (!initialized) return E_NOT_INITIALIZED;
  for (int i = 0; i < n_gpus; i++) {
    char mine[32];
    cuDeviceGetPCIBusId(mine, sizeof mine, i);
    if (!strcasecmp(mine, bus)) {
      *d = i;
      return OK;
    }
  }
  return E_INVALID_DEVICE;
}
/* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR (75) and _MINOR (76) */
int cuDeviceGetAttribute(int *v, int attr, int d) {
  const char *s = getenv("NN_FAKECUDA_SM");
  int sm = 90;
  if (d < 0 || d >= n_gpus) return E_INVALID_DEVICE;
  if (s && *s && nn_int_parse(s, 10, 999, &sm)) return E_INVALID_VALUE;
  if (attr != 75 && attr != 76) return E_INVALID_VALUE;
  *v = attr == 75 ? sm / 10 : sm % 10;
  return OK;
}

int cuDeviceCanAccessPeer(int *can, int d, int peer) {
  if (d < 0 || d >= n_gpus || peer < 0 || peer >= n_gpus) return E_INVALID_DEVICE;
  *can = d != peer && !(is("nopeer") && bad(d, peer));
  return OK;
}

int cuDeviceGetP2PAttribute(int *v, int attr, int src, int dst) {
  if (src == dst || src < 0 || dst < 0 || src >= n_gpus || dst >= n_gpus) return E_INVALID_DEVICE;
  int peer = !(is("nopeer") && bad(src, dst));
  *v = attr == 1 ? 0 : attr == 2 ? peer : attr == 3 ? peer : 0;
  return OK;
}

int cuDevicePrimaryCtxRetain(void **c, int d) {
  if (!initialized) return E_NOT_INITIALIZED;
  if (d < 0 || d >= n_gpus) return E_INVALID_DEVICE;
  *c = &ctxs[d];
  return OK;
}
int cuDevicePrimaryCtxRelease_v2(int d) { (void)d; return OK; }
int cuCtxSetCurrent(void *c) { current = c; return OK; }

int cuCtxEnablePeerAccess(void *peer, unsigned flags) {
  (void)flags;
  struct ctx *p = peer;
  if (!current || !p) return E_INVALID_CONTEXT;
  if (p == current || (is("nopeer") && bad(current->dev, p->dev))) return E_PEER_UNSUPPORTED;
  if (current->peer[p->dev]) return E_ALREADY_ENABLED;
  current->peer[p->dev] = 1;
  return OK;
}

/* Joins the context's launches (those of `stream` alone unless NULL); the first fault. */
static int join(struct ctx *c, void *stream) {
  int kept = 0;
  for (int i = 0; i < c->n_pending; i++) {
    if (stream && c->pending_stream[i] != stream) {
      c->pending[kept] = c->pending[i];
      c->pending_stream[kept++] = c->pending_stream[i];
      continue;
    }
    pthread_join(c->pending[i], NULL);
  }
  c->n_pending = kept;
  return c->fault ? E_ILLEGAL_ADDRESS : OK;
}

int cuCtxSynchronize(void) { return current ? join(current, NULL) : E_INVALID_CONTEXT; }

int cuMemAlloc_v2(uint64_t *p, size_t bytes) {
  if (!current) return E_INVALID_CONTEXT;
  void *mem = calloc(1, bytes);
  if (!mem) return 2;   /* CUDA_ERROR_OUT_OF_MEMORY */
  pthread_mutex_lock(&lock);
  int i = 0;
  while (i < MAX_ALLOCS && allocs[i].base) i++;
  if (i < MAX_ALLOCS) allocs[i] = (struct alloc){(uint64_t)(uintptr_t)mem, bytes, current->dev};
  pthread_mutex_unlock(&lock);
  if (i == MAX_ALLOCS) { free(mem); return 2; }
  *p = (uint64_t)(uintptr_t)mem;
  return OK;
}

int cuMemFree_v2(uint64_t p) {
  pthread_mutex_lock(&lock);
  struct alloc *a = find(p, 1);
  if (a && a->base == p) { free((void *)(uintptr_t)p); a->base = 0; }
  pthread_mutex_unlock(&lock);
  return a ? OK : E_INVALID_VALUE;
}

int cuMemcpyDtoH_v2(void *dst, uint64_t src, size_t bytes) {
  if (!current) return E_INVALID_CONTEXT;
  int rc = join(current, NULL);
  if (rc) return rc;
  if (!find(src, bytes)) return E_INVALID_VALUE;
  memcpy(dst, (void *)(uintptr_t)src, bytes);
  return OK;
}

int cuMemsetD32_v2(uint64_t dst, unsigned v, size_t n) {
  if (!current) return E_INVALID_CONTEXT;
  int rc = join(current, NULL);
  if (rc) return rc;
  if (reach(current, dst, n * 4) != current->dev) return E_INVALID_VALUE;
  unsigned *w = (unsigned *)(uintptr_t)dst;
  for (size_t i = 0; i < n; i++) w[i] = v;
  return OK;
}

int cuMemcpyPeer(uint64_t dst, void *dctx, uint64_t src, void *sctx, size_t bytes) {
  struct ctx *dc = dctx, *sc = sctx;
  if (!dc || !sc) return E_INVALID_CONTEXT;
  int rc = join(dc, NULL);
  if (!rc) rc = join(sc, NULL);
  if (rc) return rc;
  if (reach(dc, dst, bytes) != dc->dev || reach(sc, src, bytes) != sc->dev) return E_INVALID_VALUE;
  if (bad(sc->dev, dc->dev) && is("hang")) hang();
  if (bad(sc->dev, dc->dev) && is("drop")) return OK;   /* lost on the way */
  memcpy((void *)(uintptr_t)dst, (void *)(uintptr_t)src, bytes);
  if (bad(sc->dev, dc->dev) && is("corrupt")) {
    unsigned *w = (unsigned *)(uintptr_t)dst;
    for (size_t i = 0; i < bytes / 4; i += 4096) w[i] ^= 0x00010000u;
  }
  return OK;
}

static const char *const kernel_names[] = {NN_P2P_KERNEL_FILL, NN_P2P_KERNEL_VERIFY, NN_P2P_KERNEL_PINGPONG};

static int has_entry(const char *image, const char *name) {
  char want[96];
  snprintf(want, sizeof want, ".entry %s(", name);
  return strstr(image, want) != NULL;
}

int cuModuleLoadData(void **m, const void *image) {
  if (!current) return E_INVALID_CONTEXT;
  const char *ptx = image, *dump = getenv("NN_FAKECUDA_DUMP");
  if (!strstr(ptx, ".version ") || !strstr(ptx, ".target ")) return E_INVALID_PTX;
  if (dump && *dump) {
    FILE *f = fopen(dump, "w");
    if (f) { fputs(ptx, f); fclose(f); }
  }
  struct module *mod = calloc(1, sizeof *mod);
  if (!mod || !(mod->image = strdup(ptx))) { free(mod); return 2; }
  mod->ctx = current;
  *m = mod;
  return OK;
}

int cuModuleGetFunction(void **f, void *m, const char *name) {
  struct module *mod = m;
  for (int k = 0; k < 3; k++) {
    if (strcmp(name, kernel_names[k]) || !has_entry(mod->image, name)) continue;
    struct function *fn = calloc(1, sizeof *fn);
    if (!fn) return 2;
    *fn = (struct function){mod->ctx, (enum kind)k};
    *f = fn;
    return OK;
  }
  return E_NOT_FOUND;
}

static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void run_fill(struct launch *l) {
  unsigned n = (unsigned)l->a[1], seed = (unsigned)l->a[2];
  int owner = reach(l->ctx, l->a[0], (size_t)n * 4);
  if (owner < 0) { l->ctx->fault = 1; return; }
  if (bad(l->ctx->dev, owner) && is("hang")) hang();
  if (bad(l->ctx->dev, owner) && is("drop")) return;
  unsigned *w = (unsigned *)(uintptr_t)l->a[0];
  for (unsigned i = 0; i < n; i++) w[i] = nn_p2p_pattern(i, seed);
}

static void run_verify(struct launch *l) {
  unsigned n = (unsigned)l->a[1], seed = (unsigned)l->a[2], wrong = 0;
  int owner = reach(l->ctx, l->a[0], (size_t)n * 4);
  if (owner < 0 || reach(l->ctx, l->a[3], 4) < 0) { l->ctx->fault = 1; return; }
  if (bad(l->ctx->dev, owner) && is("hang")) hang();
  const unsigned *w = (const unsigned *)(uintptr_t)l->a[0];
  for (unsigned i = 0; i < n; i++) wrong += w[i] != nn_p2p_pattern(i, seed);
  __atomic_fetch_add((unsigned *)(uintptr_t)l->a[3], wrong, __ATOMIC_SEQ_CST);
}

/* Both sides run at once, each in its launch's thread; a flag store across a dropping link
 * is lost, so the other side gives up after spin_ns as the kernel does. */
static void run_pingpong(struct launch *l) {
  unsigned rounds = (unsigned)l->a[2], role = (unsigned)l->a[3];
  uint64_t spin = l->a[4];
  int mine = reach(l->ctx, l->a[0], 4), theirs = reach(l->ctx, l->a[1], 4);
  if (mine < 0 || theirs < 0 || reach(l->ctx, l->a[5], 16) < 0) { l->ctx->fault = 1; return; }
  if (bad(l->ctx->dev, theirs) && is("hang")) hang();
  int lost = bad(l->ctx->dev, theirs) && is("drop");
  unsigned *my = (unsigned *)(uintptr_t)l->a[0], *their = (unsigned *)(uintptr_t)l->a[1];
  uint64_t *result = (uint64_t *)(uintptr_t)l->a[5], start = now_ns();
  for (unsigned k = 0; k < rounds; k++) {
    unsigned want = 2 * k + (role == 0 ? 2 : 1);
    if (role == 0 && !lost) __atomic_store_n(their, 2 * k + 1, __ATOMIC_SEQ_CST);
    uint64_t from = now_ns();
    while (__atomic_load_n(my, __ATOMIC_SEQ_CST) != want) {
      if (now_ns() - from > spin) { result[0] = k + 1; result[1] = now_ns() - start; return; }
      sched_yield();
    }
    if (role == 1 && !lost) __atomic_store_n(their, 2 * k + 2, __ATOMIC_SEQ_CST);
  }
  result[0] = 0;
  result[1] = now_ns() - start;
}

static void *run_launch(void *arg) {
  struct launch *l = arg;
  if (l->kind == FILL) run_fill(l);
  else if (l->kind == VERIFY) run_verify(l);
  else run_pingpong(l);
  free(l);
  return NULL;
}

int cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                   unsigned shared, void *stream, void **params, void **extra) {
  (void)gx, (void)gy, (void)gz, (void)bx, (void)by, (void)bz, (void)shared, (void)extra;
  struct function *fn = f;
  if (!current || fn->ctx != current) return E_INVALID_CONTEXT;
  if (current->n_pending == MAX_PENDING) join(current, NULL);
  struct launch *l = calloc(1, sizeof *l);
  if (!l) return 2;
  l->ctx = current;
  l->kind = fn->kind;
  /* the parameters as the kernel declares them (p2ptest.h) */
  static const int sizes[3][6] = {{8, 4, 4, 0, 0, 0}, {8, 4, 4, 8, 0, 0}, {8, 8, 4, 4, 8, 8}};
  for (int i = 0; i < 6 && sizes[l->kind][i]; i++) {
    if (sizes[l->kind][i] == 8) memcpy(&l->a[i], params[i], 8);
    else { unsigned v; memcpy(&v, params[i], 4); l->a[i] = v; }
  }
  if (pthread_create(&current->pending[current->n_pending], NULL, run_launch, l)) { free(l); return 2; }
  current->pending_stream[current->n_pending++] = stream;
  return OK;
}

int cuStreamCreate(void **s, unsigned flags) {
  (void)flags;
  struct stream *st = calloc(1, sizeof *st);
  if (!st || !current) { free(st); return E_INVALID_CONTEXT; }
  st->ctx = current;
  *s = st;
  return OK;
}

int cuStreamSynchronize(void *s) {
  struct stream *st = s;
  return st ? join(st->ctx, s) : cuCtxSynchronize();
}

int cuGetErrorName(int rc, const char **name) {
  static const struct { int rc; const char *name; } names[] = {
    {E_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE"}, {E_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED"},
    {E_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE"}, {E_INVALID_PTX, "CUDA_ERROR_INVALID_PTX"},
    {E_PEER_UNSUPPORTED, "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED"}, {E_NOT_FOUND, "CUDA_ERROR_NOT_FOUND"},
    {E_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS"}, {E_ALREADY_ENABLED, "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED"},
    {E_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT"}, {2, "CUDA_ERROR_OUT_OF_MEMORY"}};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (names[i].rc == rc) { *name = names[i].name; return OK; }
  return E_INVALID_VALUE;
}

/* ---------- NVML ---------- */
int nvmlInit_v2(void) {
  const char *m = getenv("NN_FAKECUDA");
  return m && !strcmp(m, "nvml-off") ? 9 /* NVML_ERROR_DRIVER_NOT_LOADED */ : 0;
}
int nvmlShutdown(void) { return 0; }
int nvmlSystemGetDriverVersion(char *v, unsigned len) { snprintf(v, len, "580.95.05"); return 0; }

int nvmlDeviceGetHandleByPciBusId_v2(const char *bus, void **dev) {
  const char *n = gpus_env();
  int count = 2;
  if (n && *n && nn_int_parse(n, 0, MAX_GPUS, &count)) count = 2;
  for (int i = 0; i < count && i < MAX_GPUS; i++) {
    char want[32];
    snprintf(want, sizeof want, "%02X:00.0", 0x11 + i);
    size_t bl = strlen(bus);
    if (bl >= strlen(want) && !strcasecmp(bus + bl - strlen(want), want)) {
      *dev = (void *)(uintptr_t)(i + 1);
      return 0;
    }
  }
  return 6;   /* NVML_ERROR_NOT_FOUND */
}

int nvmlDeviceGetP2PStatus(void *a, void *b, int index, int *status) {
  (void)index;
  const char *m = getenv("NN_FAKECUDA"), *bl = getenv("NN_FAKECUDA_BAD");
  int x = (int)(uintptr_t)a - 1, y = (int)(uintptr_t)b - 1, ba = -1, bb = -1;
  if (bl) bad_link(bl, &ba, &bb);
  int hit = x != y && (ba < 0 || (x == ba && y == bb) || (x == bb && y == ba));
  *status = m && !strcmp(m, "nopeer") && hit ? 1 /* NVML_P2P_STATUS_CHIPSET_NOT_SUPPORTED */ : 0;
  return 0;
}
