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
 *                         CNS as in a VM); nvml-off: nvmlInit fails; ipc-broken: peer access
 *                         works inside one process, but what a kernel writes through another
 *                         process's memory (cuMem import or IPC) is lost and what it reads
 *                         there is wrong; concurrent-drop: a kernel's peer writes are lost
 *                         while a kernel of another process writes to a peer too (each pair
 *                         passes alone; the ring, all GPUs at once, does not)
 *   NN_FAKECUDA_BAD=A:B   the mode hits the link between GPUs A and B alone (both directions);
 *   NN_FAKECUDA_BAD=split:N  every link between a GPU below N and one from N on (two sockets)
 *   NN_FAKECUDA_TAG=NAME  a hang renames the hung process NAME and starts one more process
 *                         of that name (as a driver's helper would be), for the test to
 *                         check that nothing is left running
 *   NN_FAKECUDA_DUMP=F    the image given to cuModuleLoadData is written to F
 *   NN_FAKECUDA_SM=NN     every device's compute capability (default 90: 9.0)
 *   NN_FAKECUDA_SHARED=F  concurrent-drop's lock file (default /tmp/nn-fakecuda-UID-SID.lock,
 *                         one per session): each process writing to a peer locks its device's
 *                         byte there and sees the others'
 *
 * The memory (every allocation a memfd that another process can map) is fakecuda_mem.c's.
 * Its soname is libcuda.so.1, so that a process which loaded it first gets it from a
 * dlopen("libcuda.so.1") too (test_cudaprobe: what `check` asks the driver).
 */
#include <fcntl.h>
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
#include "fakecuda.h"
#include "numparse.h"

enum kind { FILL, VERIFY, PINGPONG, LL8, LL16, LL_VERIFY, KINDS };

struct stream {
  struct nn_fake_ctx *ctx;
};
struct module {
  struct nn_fake_ctx *ctx;
  char *image;
};
struct function {
  struct nn_fake_ctx *ctx;
  enum kind kind;
};
struct launch {
  struct nn_fake_ctx *ctx;
  enum kind kind;
  uint64_t a[6];
};

int nn_fake_gpus = 2;
__thread struct nn_fake_ctx *nn_fake_current;
static int initialized, bad_a = -1, bad_b = -1, bad_split = -1;
static const char *mode = "ok";
static struct nn_fake_ctx ctxs[MAX_GPUS];

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
API int cuMemcpyDtoH_v2(void *dst, uint64_t src, size_t bytes);
API int cuMemsetD32_v2(uint64_t dst, unsigned v, size_t n);
API int cuMemcpyPeer(uint64_t dst, void *dctx, uint64_t src, void *sctx, size_t bytes);
API int cuModuleLoadData(void **m, const void *image);
API int cuModuleGetFunction(void **f, void *m, const char *name);
API int cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                       unsigned bz, unsigned shared, void *stream, void **params, void **extra);
API int cuStreamCreate(void **s, unsigned flags);
API int cuStreamSynchronize(void *s);
API int cuGetErrorName(int rc, const char **name);
API int nvmlInit_v2(void);
API int nvmlShutdown(void);
API int nvmlSystemGetDriverVersion(char *v, unsigned len);
API int nvmlDeviceGetHandleByPciBusId_v2(const char *bus, void **dev);
API int nvmlDeviceGetP2PStatus(void *a, void *b, int index, int *status);

int nn_fake_is(const char *m) { return !strcmp(mode, m); }
static int is(const char *m) { return nn_fake_is(m); }

/* NN_FAKECUDA_BAD=A:B or split:N into bad_a, bad_b or bad_split (left alone when it is not that) */
static void read_bad_links(void) {
  const char *s = getenv("NN_FAKECUDA_BAD"), *colon;
  int x, y;
  if (!s || !*s) return;
  if (!strncmp(s, "split:", 6) && nn_int_parse(s + 6, 1, MAX_GPUS - 1, &x) == 0) bad_split = x;
  else if (nn_int_parse_prefix(s, 0, MAX_GPUS - 1, &x, &colon) == 0 && *colon == ':' &&
           nn_int_parse(colon + 1, 0, MAX_GPUS - 1, &y) == 0) {
    bad_a = x;
    bad_b = y;
  }
}

static const char *gpus_env(void) {
  const char *n = getenv("NN_FAKECUDA_GPUS");
  return n && *n ? n : getenv("STANDIN_GPUS");
}

/* Whether the mode hits the link between devices x and y. */
int nn_fake_bad(int x, int y) {
  if (x == y) return 0;
  if (bad_split > 0) return (x < bad_split) != (y < bad_split);
  return bad_a < 0 || (x == bad_a && y == bad_b) || (x == bad_b && y == bad_a);
}
static int bad(int x, int y) { return nn_fake_bad(x, y); }

/* A hang: the calling process takes the tag's name, starts one more process of that name,
 * and never returns. */
static void hang(void) {
  const char *tag = getenv("NN_FAKECUDA_TAG");
  if (tag && *tag) {
    FILE *comm = fopen("/proc/self/comm", "w"); /* the process's name, from any thread */
    if (comm) {
      fputs(tag, comm);
      fclose(comm);
    }
    if (fork() == 0) {
      prctl(PR_SET_NAME, tag);
      for (;;) pause();
    }
  }
  for (;;) pause();
}

int cuInit(unsigned flags) {
  (void)flags;
  const char *m = getenv("NN_FAKECUDA"), *n = gpus_env();
  if (m && *m) mode = m;
  static const char *const modes[] = {"ok",      "drop",     "hang",       "nopeer",
                                      "corrupt", "nvml-off", "ipc-broken", "concurrent-drop"};
  int known = 0;
  for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) known |= is(modes[i]);
  if (!known) {
    fprintf(stderr, "fakecuda: unknown NN_FAKECUDA=%s\n", mode);
    return E_INVALID_VALUE;
  }
  if (n && *n && nn_int_parse(n, 0, MAX_GPUS, &nn_fake_gpus)) nn_fake_gpus = 2;
  read_bad_links();
  for (int i = 0; i < MAX_GPUS; i++) ctxs[i].dev = i;
  initialized = 1;
  return OK;
}

int cuDriverGetVersion(int *v) {
  *v = 13000;
  return OK;
}
int cuDeviceGetCount(int *n) {
  if (!initialized) return E_NOT_INITIALIZED;
  *n = nn_fake_gpus;
  return OK;
}
int cuDeviceGet(int *d, int ordinal) {
  if (!initialized) return E_NOT_INITIALIZED;
  if (ordinal < 0 || ordinal >= nn_fake_gpus) return E_INVALID_DEVICE;
  *d = ordinal;
  return OK;
}
int cuDeviceGetName(char *name, int len, int d) {
  snprintf(name, (size_t)len, "NN FakeGPU %d", d);
  return OK;
}
int cuDeviceGetPCIBusId(char *bus, int len, int d) {
  snprintf(bus, (size_t)len, "0000:%02X:00.0", 0x11 + d);
  return OK;
}
int cuDeviceGetByPCIBusId(int *d, const char *bus) {
  if (!initialized) return E_NOT_INITIALIZED;
  for (int i = 0; i < nn_fake_gpus; i++) {
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
  if (d < 0 || d >= nn_fake_gpus) return E_INVALID_DEVICE;
  if (s && *s && nn_int_parse(s, 10, 999, &sm)) return E_INVALID_VALUE;
  if (attr != 75 && attr != 76) return E_INVALID_VALUE;
  *v = attr == 75 ? sm / 10 : sm % 10;
  return OK;
}

int cuDeviceCanAccessPeer(int *can, int d, int peer) {
  if (d < 0 || d >= nn_fake_gpus || peer < 0 || peer >= nn_fake_gpus) return E_INVALID_DEVICE;
  *can = d != peer && !(is("nopeer") && bad(d, peer));
  return OK;
}

int cuDeviceGetP2PAttribute(int *v, int attr, int src, int dst) {
  if (src == dst || src < 0 || dst < 0 || src >= nn_fake_gpus || dst >= nn_fake_gpus)
    return E_INVALID_DEVICE;
  int peer = !(is("nopeer") && bad(src, dst));
  *v = attr == 1 ? 0 : attr == 2 ? peer : attr == 3 ? peer : 0;
  return OK;
}

int cuDevicePrimaryCtxRetain(void **c, int d) {
  if (!initialized) return E_NOT_INITIALIZED;
  if (d < 0 || d >= nn_fake_gpus) return E_INVALID_DEVICE;
  *c = &ctxs[d];
  return OK;
}
int cuDevicePrimaryCtxRelease_v2(int d) {
  (void)d;
  return OK;
}
int cuCtxSetCurrent(void *c) {
  nn_fake_current = c;
  return OK;
}

int cuCtxEnablePeerAccess(void *peer, unsigned flags) {
  (void)flags;
  struct nn_fake_ctx *p = peer;
  if (!nn_fake_current || !p) return E_INVALID_CONTEXT;
  if (p == nn_fake_current || (is("nopeer") && bad(nn_fake_current->dev, p->dev)))
    return E_PEER_UNSUPPORTED;
  if (nn_fake_current->peer[p->dev]) return E_ALREADY_ENABLED;
  nn_fake_current->peer[p->dev] = 1;
  return OK;
}

/* Joins the context's launches (those of `stream` alone unless NULL); the first fault. */
static int join(struct nn_fake_ctx *c, void *stream) {
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

int cuCtxSynchronize(void) {
  return nn_fake_current ? join(nn_fake_current, NULL) : E_INVALID_CONTEXT;
}

int cuMemcpyDtoH_v2(void *dst, uint64_t src, size_t bytes) {
  if (!nn_fake_current) return E_INVALID_CONTEXT;
  int rc = join(nn_fake_current, NULL);
  if (rc) return rc;
  pthread_mutex_lock(&nn_fake_lock);
  int known = nn_fake_find(src, bytes) != NULL;
  pthread_mutex_unlock(&nn_fake_lock);
  if (!known) return E_INVALID_VALUE;
  memcpy(dst, (void *)(uintptr_t)src, bytes);
  return OK;
}

int cuMemsetD32_v2(uint64_t dst, unsigned v, size_t n) {
  if (!nn_fake_current) return E_INVALID_CONTEXT;
  int rc = join(nn_fake_current, NULL);
  if (rc) return rc;
  if (nn_fake_reach(nn_fake_current, dst, n * 4, NULL) != nn_fake_current->dev)
    return E_INVALID_VALUE;
  unsigned *w = (unsigned *)(uintptr_t)dst;
  for (size_t i = 0; i < n; i++) w[i] = v;
  return OK;
}

int cuMemcpyPeer(uint64_t dst, void *dctx, uint64_t src, void *sctx, size_t bytes) {
  struct nn_fake_ctx *dc = dctx, *sc = sctx;
  if (!dc || !sc) return E_INVALID_CONTEXT;
  int rc = join(dc, NULL);
  if (!rc) rc = join(sc, NULL);
  if (rc) return rc;
  if (nn_fake_reach(dc, dst, bytes, NULL) != dc->dev ||
      nn_fake_reach(sc, src, bytes, NULL) != sc->dev)
    return E_INVALID_VALUE;
  if (bad(sc->dev, dc->dev) && is("hang")) hang();
  if (bad(sc->dev, dc->dev) && is("drop")) return OK; /* lost on the way */
  memcpy((void *)(uintptr_t)dst, (void *)(uintptr_t)src, bytes);
  if (bad(sc->dev, dc->dev) && is("corrupt")) {
    unsigned *w = (unsigned *)(uintptr_t)dst;
    for (size_t i = 0; i < bytes / 4; i += 4096) w[i] ^= 0x00010000u;
  }
  return OK;
}

static const char *const kernel_names[KINDS] = {NN_P2P_KERNEL_FILL,     NN_P2P_KERNEL_VERIFY,
                                                NN_P2P_KERNEL_PINGPONG, NN_P2P_KERNEL_LL8,
                                                NN_P2P_KERNEL_LL16,     NN_P2P_KERNEL_LL_VERIFY};

static int has_entry(const char *image, const char *name) {
  char want[96];
  snprintf(want, sizeof want, ".entry %s(", name);
  return strstr(image, want) != NULL;
}

int cuModuleLoadData(void **m, const void *image) {
  if (!nn_fake_current) return E_INVALID_CONTEXT;
  const char *ptx = image, *dump = getenv("NN_FAKECUDA_DUMP");
  if (!strstr(ptx, ".version ") || !strstr(ptx, ".target ")) return E_INVALID_PTX;
  if (dump && *dump) {
    FILE *f = fopen(dump, "w");
    if (f) {
      fputs(ptx, f);
      fclose(f);
    }
  }
  struct module *mod = calloc(1, sizeof *mod);
  if (!mod || !(mod->image = strdup(ptx))) {
    free(mod);
    return 2;
  }
  mod->ctx = nn_fake_current;
  *m = mod;
  return OK;
}

int cuModuleGetFunction(void **f, void *m, const char *name) {
  struct module *mod = m;
  for (int k = 0; k < KINDS; k++) {
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

/* concurrent-drop's lock file, opened once: NN_FAKECUDA_SHARED, else one per session and user */
static int shared_lock_file(void) {
  static int fd = -2;
  static pthread_mutex_t once = PTHREAD_MUTEX_INITIALIZER;
  pthread_mutex_lock(&once);
  if (fd == -2) {
    const char *env = getenv("NN_FAKECUDA_SHARED");
    char path[256];
    if (env && *env) snprintf(path, sizeof path, "%s", env);
    else
      snprintf(path, sizeof path, "/tmp/nn-fakecuda-%u-%d.lock", (unsigned)getuid(),
               (int)getsid(0));
    fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  }
  pthread_mutex_unlock(&once);
  return fd;
}

/* concurrent-drop: locks device dev's byte for a peer write and looks, for up to 100 ms, for
 * another process's; returns whether it saw one (the lock is held: peer_write_end). */
static int peer_write_begin(int dev) {
  int fd = shared_lock_file();
  if (fd < 0) return 0;
  struct flock mine = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = dev, .l_len = 1};
  fcntl(fd, F_SETLKW, &mine);
  for (int i = 0; i < 20; i++) {
    struct flock q = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = MAX_GPUS};
    if (fcntl(fd, F_GETLK, &q) == 0 && q.l_type != F_UNLCK) return 1;
    usleep(5000);
  }
  return 0;
}

static void peer_write_end(int dev) {
  int fd = shared_lock_file();
  struct flock mine = {.l_type = F_UNLCK, .l_whence = SEEK_SET, .l_start = dev, .l_len = 1};
  if (fd >= 0) fcntl(fd, F_SETLK, &mine);
}

/* Whether a kernel of ctx writing to `owner`'s memory (another process's when imported) loses
 * its stores; a hang never returns. */
static int writes_lost(const struct nn_fake_ctx *c, int owner, int imported, int *locked) {
  *locked = 0;
  if (bad(c->dev, owner) && is("hang")) hang();
  if (bad(c->dev, owner) && is("drop")) return 1;
  if (imported && is("ipc-broken")) return 1;
  if (owner != c->dev && is("concurrent-drop")) {
    *locked = 1;
    return peer_write_begin(c->dev);
  }
  return 0;
}

/* A kernel's stores into dst: the pattern's n words (fill), or n LL pairs, word 2i the pattern
 * and word 2i+1 the flag (p2p_kernels.cu) */
static void run_store(struct launch *l, int ll) {
  unsigned n = (unsigned)l->a[1], seed = (unsigned)l->a[2], flag = (unsigned)l->a[3];
  int imported, locked, owner = nn_fake_reach(l->ctx, l->a[0], (size_t)n * (ll ? 8 : 4), &imported);
  if (owner < 0) {
    l->ctx->fault = 1;
    return;
  }
  unsigned *w = (unsigned *)(uintptr_t)l->a[0];
  if (!writes_lost(l->ctx, owner, imported, &locked))
    for (unsigned i = 0; i < n; i++) {
      if (!ll) {
        w[i] = nn_p2p_pattern(i, seed);
        continue;
      }
      w[2 * i] = nn_p2p_pattern(i, seed);
      w[2 * i + 1] = flag;
    }
  if (locked) peer_write_end(l->ctx->dev);
}

/* What a kernel of ctx reading [p, p+bytes) gets wrong before looking: all n words through a
 * broken cross-process mapping, else 0; -1 when it faults. */
static long read_access(struct launch *l, uint64_t p, size_t bytes, unsigned n, uint64_t counter) {
  int imported, owner = nn_fake_reach(l->ctx, p, bytes, &imported);
  if (owner < 0 || nn_fake_reach(l->ctx, counter, 4, NULL) < 0) {
    l->ctx->fault = 1;
    return -1;
  }
  if (bad(l->ctx->dev, owner) && is("hang")) hang();
  return imported && is("ipc-broken") ? (long)n : 0;
}

static void run_verify(struct launch *l) {
  unsigned n = (unsigned)l->a[1], seed = (unsigned)l->a[2], wrong = 0;
  long lost = read_access(l, l->a[0], (size_t)n * 4, n, l->a[3]);
  if (lost < 0) return;
  const unsigned *w = (const unsigned *)(uintptr_t)l->a[0];
  if (lost) wrong = n;
  else
    for (unsigned i = 0; i < n; i++) wrong += w[i] != nn_p2p_pattern(i, seed);
  __atomic_fetch_add((unsigned *)(uintptr_t)l->a[3], wrong, __ATOMIC_SEQ_CST);
}

static void run_ll_verify(struct launch *l) {
  unsigned pairs = (unsigned)l->a[1], seed = (unsigned)l->a[2], flag = (unsigned)l->a[3], wrong = 0;
  long lost = read_access(l, l->a[0], (size_t)pairs * 8, pairs, l->a[4]);
  if (lost < 0) return;
  const unsigned *w = (const unsigned *)(uintptr_t)l->a[0];
  if (lost) wrong = pairs;
  else
    for (unsigned i = 0; i < pairs; i++)
      wrong += w[2 * i] != nn_p2p_pattern(i, seed) || w[2 * i + 1] != flag;
  __atomic_fetch_add((unsigned *)(uintptr_t)l->a[4], wrong, __ATOMIC_SEQ_CST);
}

/* Both sides run at once, each in its launch's thread; a flag store across a dropping link
 * is lost, so the other side gives up after spin_ns as the kernel does. */
static void run_pingpong(struct launch *l) {
  unsigned rounds = (unsigned)l->a[2], role = (unsigned)l->a[3];
  uint64_t spin = l->a[4];
  int mine = nn_fake_reach(l->ctx, l->a[0], 4, NULL),
      theirs = nn_fake_reach(l->ctx, l->a[1], 4, NULL);
  if (mine < 0 || theirs < 0 || nn_fake_reach(l->ctx, l->a[5], 16, NULL) < 0) {
    l->ctx->fault = 1;
    return;
  }
  if (bad(l->ctx->dev, theirs) && is("hang")) hang();
  int lost = bad(l->ctx->dev, theirs) && is("drop");
  unsigned *my = (unsigned *)(uintptr_t)l->a[0], *their = (unsigned *)(uintptr_t)l->a[1];
  uint64_t *result = (uint64_t *)(uintptr_t)l->a[5], start = now_ns();
  for (unsigned k = 0; k < rounds; k++) {
    unsigned want = 2 * k + (role == 0 ? 2 : 1);
    if (role == 0 && !lost) __atomic_store_n(their, 2 * k + 1, __ATOMIC_SEQ_CST);
    uint64_t from = now_ns();
    while (__atomic_load_n(my, __ATOMIC_SEQ_CST) != want) {
      if (now_ns() - from > spin) {
        result[0] = k + 1;
        result[1] = now_ns() - start;
        return;
      }
      sched_yield();
    }
    if (role == 1 && !lost) __atomic_store_n(their, 2 * k + 2, __ATOMIC_SEQ_CST);
  }
  result[0] = 0;
  result[1] = now_ns() - start;
}

static void *run_launch(void *arg) {
  struct launch *l = arg;
  if (l->kind == FILL) run_store(l, 0);
  else if (l->kind == VERIFY) run_verify(l);
  else if (l->kind == PINGPONG) run_pingpong(l);
  else if (l->kind == LL_VERIFY) run_ll_verify(l);
  else run_store(l, 1);
  free(l);
  return NULL;
}

int cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                   unsigned bz, unsigned shared, void *stream, void **params, void **extra) {
  (void)gx, (void)gy, (void)gz, (void)bx, (void)by, (void)bz, (void)shared, (void)extra;
  struct function *fn = f;
  if (!nn_fake_current || fn->ctx != nn_fake_current) return E_INVALID_CONTEXT;
  if (nn_fake_current->n_pending == MAX_PENDING) join(nn_fake_current, NULL);
  struct launch *l = calloc(1, sizeof *l);
  if (!l) return 2;
  l->ctx = nn_fake_current;
  l->kind = fn->kind;
  /* the parameters as the kernel declares them (p2ptest.h) */
  static const int sizes[KINDS][6] = {{8, 4, 4, 0, 0, 0}, {8, 4, 4, 8, 0, 0}, {8, 8, 4, 4, 8, 8},
                                      {8, 4, 4, 4, 0, 0}, {8, 4, 4, 4, 0, 0}, {8, 4, 4, 4, 8, 0}};
  for (int i = 0; i < 6 && sizes[l->kind][i]; i++) {
    if (sizes[l->kind][i] == 8) memcpy(&l->a[i], params[i], 8);
    else {
      unsigned v;
      memcpy(&v, params[i], 4);
      l->a[i] = v;
    }
  }
  if (pthread_create(&nn_fake_current->pending[nn_fake_current->n_pending], NULL, run_launch, l)) {
    free(l);
    return 2;
  }
  nn_fake_current->pending_stream[nn_fake_current->n_pending++] = stream;
  return OK;
}

int cuStreamCreate(void **s, unsigned flags) {
  (void)flags;
  struct stream *st = calloc(1, sizeof *st);
  if (!st || !nn_fake_current) {
    free(st);
    return E_INVALID_CONTEXT;
  }
  st->ctx = nn_fake_current;
  *s = st;
  return OK;
}

int cuStreamSynchronize(void *s) {
  struct stream *st = s;
  return st ? join(st->ctx, s) : cuCtxSynchronize();
}

int cuGetErrorName(int rc, const char **name) {
  static const struct {
    int rc;
    const char *name;
  } names[] = {{E_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE"},
               {E_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED"},
               {E_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE"},
               {E_INVALID_PTX, "CUDA_ERROR_INVALID_PTX"},
               {E_PEER_UNSUPPORTED, "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED"},
               {E_NOT_FOUND, "CUDA_ERROR_NOT_FOUND"},
               {E_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS"},
               {E_ALREADY_ENABLED, "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED"},
               {E_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT"},
               {2, "CUDA_ERROR_OUT_OF_MEMORY"}};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (names[i].rc == rc) {
      *name = names[i].name;
      return OK;
    }
  return E_INVALID_VALUE;
}

/* ---------- NVML ---------- */
int nvmlInit_v2(void) {
  const char *m = getenv("NN_FAKECUDA");
  return m && !strcmp(m, "nvml-off") ? 9 /* NVML_ERROR_DRIVER_NOT_LOADED */ : 0;
}
int nvmlShutdown(void) { return 0; }
int nvmlSystemGetDriverVersion(char *v, unsigned len) {
  snprintf(v, len, "580.95.05");
  return 0;
}

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
  return 6; /* NVML_ERROR_NOT_FOUND */
}

int nvmlDeviceGetP2PStatus(void *a, void *b, int index, int *status) {
  (void)index;
  const char *m = getenv("NN_FAKECUDA");
  int x = (int)(uintptr_t)a - 1, y = (int)(uintptr_t)b - 1;
  read_bad_links();
  *status = m && !strcmp(m, "nopeer") && nn_fake_bad(x, y)
              ? 1 /* NVML_P2P_STATUS_CHIPSET_NOT_SUPPORTED */
              : 0;
  return 0;
}
