/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nn_coll_driver.c - a small NCCL collective benchmark for nccl-numa's GPU kit.
 *
 * Runs all-reduce, all-gather or reduce-scatter (float, sum) over a size sweep
 * on N ranks, checks every result exactly, and prints the rows in nccl-tests'
 * text layout (size count type redop root, then time algbw busbw #wrong for the
 * out-of-place and the in-place run), so that `nccl-numa ab --bench-cmd`,
 * `report` and `calibrate` read it as they read nccl-tests.
 *
 * Ranks are threads of this process (one ncclCommInitRank per thread), or with
 * --procs processes (this program started again per rank; rank 0's unique id
 * goes to the others through a file in a private directory). Rank r uses GPU
 * r / ranks-per-gpu. Two ranks on one GPU: NCCL >= 2.30 accepts them with
 * NCCL_MULTI_RANK_GPU_ENABLE=1 (threads work); older NCCL refuses ranks with the
 * same host hash and bus id, and the host hash comes from NCCL_HOSTID when set
 * (misc/utils.cc, init.cc of NCCL 2.28.9), so --procs --hostid-per-rank gives each
 * process its own NCCL_HOSTID and NCCL sees one rank per "node" (then it needs a
 * socket interface, e.g. NCCL_SOCKET_IFNAME=lo).
 *
 * Timing: per size and direction, -w warm-up calls, then -n timed calls; the
 * time is the mean per call, the slowest rank's (threads) or rank 0's (procs).
 * Bandwidths follow nccl-tests: algbw = size / time, busbw = algbw x 2(n-1)/n
 * (all-reduce) or (n-1)/n (all-gather, reduce-scatter). As in nccl-tests, size
 * is the whole buffer (all ranks' parts for all-gather and reduce-scatter).
 *
 * Rows count the wrong elements of every rank in thread mode, of rank 0 with --procs
 * (each rank checks its own and its process fails when one is wrong).
 *
 * Exit: 0 all results correct, 1 a wrong result or a CUDA/NCCL failure, 2 usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "driver_format.h"

#define MAX_RANKS 64
#define MAX_ARGS 64

enum op { OP_ALLREDUCE, OP_ALLGATHER, OP_REDUCESCATTER };

struct opts {
  enum op op;
  size_t minb, maxb;
  int factor, gpus, iters, warmup, check, ranks_per_gpu;
  int procs, hostid_per_rank;
  int rank;            /* --rank: this process is one rank of a --procs run; -1 otherwise */
  const char *id_file; /* --id-file, with --rank */
};

/* What ranks share in one process (thread mode); NULL fields in process mode. */
struct shared {
  int nranks;
  pthread_barrier_t barrier;
  double elapsed[MAX_RANKS];
  long wrong[MAX_RANKS];
  ncclUniqueId id;
  int failed;
};

struct rank_ctx {
  const struct opts *o;
  struct shared *sh; /* NULL in process mode */
  int rank, nranks, dev;
  ncclComm_t comm;
  cudaStream_t stream;
  float *send, *recv, *host, *want;
  size_t cap; /* elements of each device buffer */
  long wrong_total;
  int ok;
};

static const char *op_name(enum op op) {
  return op == OP_ALLREDUCE ? "all_reduce" : op == OP_ALLGATHER ? "all_gather" : "reduce_scatter";
}

static int cuda_ok(cudaError_t e, const char *what, int rank) {
  if (e == cudaSuccess) return 1;
  fprintf(stderr, "nn_coll_driver: rank %d: %s: %s\n", rank, what, cudaGetErrorString(e));
  return 0;
}

static int nccl_ok(ncclResult_t r, const char *what, int rank) {
  if (r == ncclSuccess) return 1;
  fprintf(stderr, "nn_coll_driver: rank %d: %s: %s\n", rank, what, ncclGetErrorString(r));
  return 0;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---------- data and the expected result ---------- */

/* Small integers: every sum over up to MAX_RANKS ranks is exact in float. */
static float value(int rank, size_t i) { return (float)((rank * 7 + i) % 13 + 1); }

/* Elements per rank's part and in the whole buffer for a size (bytes), as nccl-tests
 * rounds them: all-gather and reduce-scatter split the buffer into nranks equal parts. */
static size_t whole_count(enum op op, size_t bytes, int nranks) {
  size_t n = bytes / sizeof(float);
  return op == OP_ALLREDUCE ? n : n - n % (size_t)nranks;
}

/* Fills the host copy of the send buffer (or the in-place recv buffer) and the
 * expected output; returns the element counts of input and output. */
static void prepare(struct rank_ctx *c, size_t total, size_t *in_n, size_t *out_n) {
  int r = c->rank, n = c->nranks;
  size_t part = c->o->op == OP_ALLREDUCE ? total : total / (size_t)n;
  if (c->o->op == OP_ALLREDUCE) {
    for (size_t i = 0; i < total; i++) {
      c->host[i] = value(r, i);
      float s = 0;
      for (int q = 0; q < n; q++) s += value(q, i);
      c->want[i] = s;
    }
    *in_n = *out_n = total;
  } else if (c->o->op == OP_ALLGATHER) {
    for (size_t i = 0; i < total; i++) c->want[i] = value((int)(i / part), i % part);
    for (size_t i = 0; i < part; i++) c->host[i] = value(r, i);
    *in_n = part;
    *out_n = total;
  } else {
    for (size_t i = 0; i < total; i++) c->host[i] = value(r, i);
    for (size_t i = 0; i < part; i++) {
      float s = 0;
      for (int q = 0; q < n; q++) s += value(q, (size_t)r * part + i);
      c->want[i] = s;
    }
    *in_n = total;
    *out_n = part;
  }
}

/* Input and output pointers of one call; in place as NCCL defines it. */
static void buffers(const struct rank_ctx *c, size_t total, int inplace, float **in, float **out) {
  size_t part = c->o->op == OP_ALLREDUCE ? total : total / (size_t)c->nranks;
  *in = c->send;
  *out = c->recv;
  if (!inplace) return;
  if (c->o->op == OP_ALLREDUCE) *in = c->recv;
  else if (c->o->op == OP_ALLGATHER) *in = c->recv + (size_t)c->rank * part;
  else *out = c->send + (size_t)c->rank * part;
}

static ncclResult_t launch(const struct rank_ctx *c, size_t total, int inplace) {
  float *in, *out;
  buffers(c, total, inplace, &in, &out);
  size_t part = c->o->op == OP_ALLREDUCE ? total : total / (size_t)c->nranks;
  if (c->o->op == OP_ALLREDUCE)
    return ncclAllReduce(in, out, total, ncclFloat, ncclSum, c->comm, c->stream);
  if (c->o->op == OP_ALLGATHER) return ncclAllGather(in, out, part, ncclFloat, c->comm, c->stream);
  return ncclReduceScatter(in, out, part, ncclFloat, ncclSum, c->comm, c->stream);
}

/* One checked call: returns the count of wrong output elements, -1 on failure. */
static long checked_run(struct rank_ctx *c, size_t total, int inplace) {
  size_t in_n, out_n;
  float *in, *out;
  prepare(c, total, &in_n, &out_n);
  buffers(c, total, inplace, &in, &out);
  /* All ones bits: a NaN wherever NCCL writes nothing. Everything on the rank's own
   * non-blocking stream: the legacy default stream would wait for another rank's
   * kernel on the same GPU, which waits for this rank (a deadlock). */
  cudaStream_t s = c->stream;
  size_t cap = c->cap * sizeof(float);
  if (!cuda_ok(cudaMemsetAsync(c->recv, 0xff, cap, s), "cudaMemsetAsync", c->rank) ||
      !cuda_ok(cudaMemsetAsync(c->send, 0xff, cap, s), "cudaMemsetAsync", c->rank) ||
      !cuda_ok(cudaMemcpyAsync(in, c->host, in_n * sizeof(float), cudaMemcpyHostToDevice, s),
               "cudaMemcpyAsync", c->rank) ||
      !nccl_ok(launch(c, total, inplace), "collective", c->rank) ||
      !cuda_ok(cudaMemcpyAsync(c->host, out, out_n * sizeof(float), cudaMemcpyDeviceToHost, s),
               "cudaMemcpyAsync", c->rank) ||
      !cuda_ok(cudaStreamSynchronize(s), "cudaStreamSynchronize", c->rank))
    return -1;
  long wrong = 0;
  for (size_t i = 0; i < out_n; i++) wrong += c->host[i] != c->want[i];
  return wrong;
}

/* ---------- timing ---------- */

static void barrier(const struct rank_ctx *c) {
  if (c->sh) pthread_barrier_wait(&c->sh->barrier);
}

/* Mean seconds per call over the timed calls (the slowest rank's in thread mode), -1 on failure. */
static double timed_run(struct rank_ctx *c, size_t total, int inplace) {
  for (int i = 0; i < c->o->warmup; i++)
    if (!nccl_ok(launch(c, total, inplace), "warm-up call", c->rank)) return -1;
  if (!cuda_ok(cudaStreamSynchronize(c->stream), "cudaStreamSynchronize", c->rank)) return -1;
  barrier(c);
  double t0 = now_s();
  for (int i = 0; i < c->o->iters; i++)
    if (!nccl_ok(launch(c, total, inplace), "timed call", c->rank)) return -1;
  if (!cuda_ok(cudaStreamSynchronize(c->stream), "cudaStreamSynchronize", c->rank)) return -1;
  double t = (now_s() - t0) / c->o->iters;
  if (!c->sh) return t;
  c->sh->elapsed[c->rank] = t;
  barrier(c);
  double worst = 0;
  for (int r = 0; r < c->nranks; r++)
    if (c->sh->elapsed[r] > worst) worst = c->sh->elapsed[r];
  barrier(c); /* nobody overwrites elapsed[] before every rank has read it */
  return worst;
}

/* The sum over the ranks of v (thread mode; in process mode this rank's own). */
static long ranks_sum(const struct rank_ctx *c, long v) {
  if (!c->sh) return v;
  c->sh->wrong[c->rank] = v;
  barrier(c);
  long sum = 0;
  for (int r = 0; r < c->nranks; r++) sum += c->sh->wrong[r];
  barrier(c);
  return sum;
}

/* ---------- output ---------- */

/* The run as driver_format.h describes it; ranks[] filled from the devices. */
static void describe(const struct rank_ctx *c, struct nn_drv_run *r, struct nn_drv_rank *ranks,
                     char *host, size_t hsz) {
  const struct opts *o = c->o;
  int v = 0;
  ncclGetVersion(&v);
  snprintf(host, hsz, "?");
  gethostname(host, hsz - 1);
  for (int i = 0; i < c->nranks; i++) {
    struct cudaDeviceProp p;
    ranks[i] = (struct nn_drv_rank){.pid = o->procs && i ? 0 : (int)getpid(),
                                    .device = i / o->ranks_per_gpu};
    if (cudaGetDeviceProperties(&p, ranks[i].device) == cudaSuccess) {
      ranks[i].domain = (unsigned)p.pciDomainID;
      ranks[i].bus = (unsigned)p.pciBusID;
      ranks[i].dev = (unsigned)p.pciDeviceID;
      snprintf(ranks[i].name, sizeof ranks[i].name, "%.95s", p.name);
    } else {
      snprintf(ranks[i].name, sizeof ranks[i].name, "unknown");
    }
  }
  *r = (struct nn_drv_run){.op = op_name(o->op),
                           .nccl_code = v,
                           .headers_code = NCCL_VERSION_CODE,
                           .nthreads = o->procs ? 1 : c->nranks,
                           .minb = o->minb,
                           .maxb = o->maxb,
                           .factor = o->factor,
                           .warmup = o->warmup,
                           .iters = o->iters,
                           .check = o->check,
                           .host = host,
                           .ranks = ranks,
                           .nranks = c->nranks};
}

/* ---------- one rank's sweep ---------- */

static int rank_sweep(struct rank_ctx *c) {
  const struct opts *o = c->o;
  struct nn_drv_run run = {0};
  struct nn_drv_rank ranks[MAX_RANKS];
  char host[64];
  if (c->rank == 0) {
    describe(c, &run, ranks, host, sizeof host);
    nn_drv_print_header(stdout, &run);
  }
  double bw_sum = 0;
  long all_wrong = 0;
  int rows = 0;
  for (size_t bytes = o->minb; bytes <= o->maxb; bytes *= (size_t)o->factor) {
    size_t total = whole_count(o->op, bytes, c->nranks);
    if (total == 0) continue;
    double t[2];
    long wrong[2] = {0, 0};
    for (int inplace = 0; inplace < 2; inplace++) {
      if (o->check && (wrong[inplace] = checked_run(c, total, inplace)) < 0) return -1;
      if ((t[inplace] = timed_run(c, total, inplace)) < 0) return -1;
      c->wrong_total += wrong[inplace];
      wrong[inplace] = ranks_sum(c, wrong[inplace]); /* the row shows every rank's */
      all_wrong += wrong[inplace];
    }
    if (c->rank == 0) {
      size_t b = total * sizeof(float);
      nn_drv_print_row(stdout, &run, b, total, t, wrong);
      bw_sum += t[1] > 0 ? (double)b / 1e9 / t[1] * nn_drv_bus_factor(run.op, c->nranks) : 0;
      rows++;
    }
    if (bytes > SIZE_MAX / (size_t)o->factor) break;
  }
  if (c->rank == 0) nn_drv_print_footer(stdout, &run, all_wrong, rows ? bw_sum / rows : 0);
  return 0;
}

static int rank_setup(struct rank_ctx *c, ncclUniqueId id) {
  size_t bytes = c->o->maxb;
  c->cap = bytes / sizeof(float) + 1;
  c->host = malloc(c->cap * sizeof(float));
  c->want = malloc(c->cap * sizeof(float));
  if (!c->host || !c->want) {
    fprintf(stderr, "nn_coll_driver: rank %d: out of host memory\n", c->rank);
    return -1;
  }
  if (!cuda_ok(cudaSetDevice(c->dev), "cudaSetDevice", c->rank) ||
      !cuda_ok(cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking), "cudaStreamCreate",
               c->rank) ||
      !cuda_ok(cudaMalloc((void **)&c->send, c->cap * sizeof(float)), "cudaMalloc", c->rank) ||
      !cuda_ok(cudaMalloc((void **)&c->recv, c->cap * sizeof(float)), "cudaMalloc", c->rank))
    return -1;
  ncclResult_t r = ncclCommInitRank(&c->comm, c->nranks, id, c->rank);
  if (r != ncclSuccess) {
    fprintf(stderr, "nn_coll_driver: rank %d: ncclCommInitRank: %s%s\n", c->rank,
            ncclGetErrorString(r),
            c->o->ranks_per_gpu > 1 ? " (ranks sharing a GPU need NCCL >= 2.30 with "
                                      "NCCL_MULTI_RANK_GPU_ENABLE=1, or --procs --hostid-per-rank)"
                                    : "");
    c->comm = NULL;
    return -1;
  }
  return 0;
}

static void rank_teardown(struct rank_ctx *c) {
  if (c->comm) ncclCommDestroy(c->comm);
  if (c->send) cudaFree(c->send);
  if (c->recv) cudaFree(c->recv);
  if (c->stream) cudaStreamDestroy(c->stream);
  free(c->host);
  free(c->want);
}

/* The whole life of one rank; sets c->ok. */
static void rank_main(struct rank_ctx *c, ncclUniqueId id) {
  int rc = rank_setup(c, id);
  if (!rc) rc = rank_sweep(c);
  if (rc && c->sh) {
    /* the other threads would wait for this rank inside NCCL forever */
    fprintf(stderr, "nn_coll_driver: rank %d failed; stopping every rank\n", c->rank);
    fflush(stdout);
    _exit(1);
  }
  if (!rc) barrier(c); /* no rank frees what a peer's last call may still touch */
  rank_teardown(c);
  c->ok = !rc && c->wrong_total == 0;
  if (!rc && c->wrong_total)
    fprintf(stderr, "nn_coll_driver: rank %d: %ld wrong result element(s)\n", c->rank,
            c->wrong_total);
}

/* ---------- thread mode ---------- */

static void *thread_main(void *arg) {
  struct rank_ctx *c = arg;
  rank_main(c, c->sh->id);
  if (!c->ok) c->sh->failed = 1;
  return NULL;
}

static int run_threads(const struct opts *o) {
  static struct shared sh;
  static struct rank_ctx ctx[MAX_RANKS];
  pthread_t th[MAX_RANKS];
  sh.nranks = o->gpus * o->ranks_per_gpu;
  if (!nccl_ok(ncclGetUniqueId(&sh.id), "ncclGetUniqueId", 0)) return 1;
  pthread_barrier_init(&sh.barrier, NULL, (unsigned)sh.nranks);
  int started = 0;
  for (int r = 0; r < sh.nranks; r++) {
    ctx[r] = (struct rank_ctx){
      .o = o, .sh = &sh, .rank = r, .nranks = sh.nranks, .dev = r / o->ranks_per_gpu};
    if (pthread_create(&th[r], NULL, thread_main, &ctx[r])) {
      fprintf(stderr, "nn_coll_driver: cannot start thread %d\n", r);
      exit(1); /* the started ranks would wait for this one forever */
    }
    started++;
  }
  for (int r = 0; r < started; r++) pthread_join(th[r], NULL);
  return sh.failed ? 1 : 0;
}

/* ---------- process mode ---------- */

static int write_id(const char *path, const ncclUniqueId *id) {
  char tmp[PATH_MAX];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (fd < 0) return -1;
  ssize_t w = write(fd, id, sizeof *id);
  if (close(fd) || w != (ssize_t)sizeof *id) return -1;
  return rename(tmp, path); /* readers see the whole id or nothing */
}

static int read_id(const char *path, ncclUniqueId *id, int timeout_s) {
  double end = now_s() + timeout_s;
  while (now_s() < end) {
    int fd = open(path, O_RDONLY);
    if (fd >= 0) {
      ssize_t n = read(fd, id, sizeof *id);
      close(fd);
      return n == (ssize_t)sizeof *id ? 0 : -1;
    }
    struct timespec ts = {0, 10 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  errno = ETIMEDOUT;
  return -1;
}

/* One rank of a --procs run. */
static int run_one_rank(const struct opts *o) {
  struct rank_ctx c = {.o = o,
                       .rank = o->rank,
                       .nranks = o->gpus * o->ranks_per_gpu,
                       .dev = o->rank / o->ranks_per_gpu};
  ncclUniqueId id;
  if (o->rank == 0) {
    if (!nccl_ok(ncclGetUniqueId(&id), "ncclGetUniqueId", 0)) return 1;
    if (write_id(o->id_file, &id)) {
      fprintf(stderr, "nn_coll_driver: cannot write %s: %s\n", o->id_file, strerror(errno));
      return 1;
    }
  } else if (read_id(o->id_file, &id, 120)) {
    fprintf(stderr, "nn_coll_driver: rank %d: no unique id in %s: %s\n", o->rank, o->id_file,
            strerror(errno));
    return 1;
  }
  rank_main(&c, id);
  return c.ok ? 0 : 1;
}

/* Starts this program once per rank and waits; one failed rank stops the others
 * (they would wait for it inside NCCL forever). */
static int run_procs(const struct opts *o, int argc, char **argv) {
  int n = o->gpus * o->ranks_per_gpu;
  const char *tmpdir = getenv("TMPDIR");
  char tmpl[PATH_MAX], id_file[PATH_MAX];
  snprintf(tmpl, sizeof tmpl, "%s/nn_coll_driver.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
  char *d = mkdtemp(tmpl); /* 0700: the id lets anyone join the communicator */
  if (!d) {
    perror("nn_coll_driver: mkdtemp");
    return 1;
  }
  snprintf(id_file, sizeof id_file, "%s/id", d);
  pid_t pids[MAX_RANKS] = {0};
  int failed = 0;
  for (int r = n - 1; r >= 0; r--) {
    char rank[16];
    snprintf(rank, sizeof rank, "%d", r);
    char *av[MAX_ARGS + 8];
    int k = 0;
    for (int i = 0; i < argc && k < MAX_ARGS; i++) av[k++] = argv[i];
    av[k++] = "--rank";
    av[k++] = rank;
    av[k++] = "--id-file";
    av[k++] = id_file;
    av[k] = NULL;
    fflush(stdout);
    if ((pids[r] = fork()) == 0) {
      if (o->hostid_per_rank) {
        char host_id[64];
        snprintf(host_id, sizeof host_id, "nn-coll-driver-%d-rank%d", (int)getppid(), r);
        setenv("NCCL_HOSTID", host_id, 1);
      }
      execv("/proc/self/exe", av);
      perror("nn_coll_driver: execv /proc/self/exe");
      _exit(127);
    }
    if (pids[r] < 0) {
      perror("nn_coll_driver: fork");
      failed = 1;
      break;
    }
  }
  for (int left = n; left > 0;) {
    int st;
    pid_t p = wait(&st);
    if (p < 0) break;
    left--;
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0) continue;
    if (!failed)
      for (int r = 0; r < n; r++)
        if (pids[r] > 0 && pids[r] != p) kill(pids[r], SIGKILL);
    failed = 1;
  }
  unlink(id_file);
  rmdir(d);
  return failed;
}

/* ---------- options ---------- */

static void usage(FILE *f) {
  fprintf(
    f,
    "usage: nn_coll_driver [--op all_reduce|all_gather|reduce_scatter] [-b MIN] [-e MAX] [-f "
    "FACTOR]\n"
    "                      [-g GPUS] [-n ITERS] [-w WARMUP] [-c 0|1] [--ranks-per-gpu K]\n"
    "                      [--procs [--hostid-per-rank]] | --devices\n"
    "nccl-tests' options and rows (float, sum); ranks = GPUS x K, rank r on GPU r/K; threads, or\n"
    "with --procs one process per rank (--hostid-per-rank: each its own NCCL_HOSTID).\n"
    "Sizes take K, M, G (powers of 1024). Defaults: all_reduce -b 8 -e 1M -f 2 -g 1 -n 20 -w 5 -c "
    "1.\n");
}

static int parse_size(const char *s, size_t *out) {
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (end == s || errno) return -1;
  unsigned shift = 0;
  if (*end == 'K' || *end == 'k') shift = 10;
  else if (*end == 'M' || *end == 'm') shift = 20;
  else if (*end == 'G' || *end == 'g') shift = 30;
  if (shift) end++;
  if (*end || v > (SIZE_MAX >> shift)) return -1;
  *out = (size_t)(v << shift);
  return 0;
}

static int parse_int(const char *s, int lo, int hi, int *out) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (end == s || *end || errno || v < lo || v > hi) return -1;
  *out = (int)v;
  return 0;
}

static int parse_op(const char *s, enum op *op) {
  if (!strcmp(s, "all_reduce") || !strcmp(s, "allreduce")) *op = OP_ALLREDUCE;
  else if (!strcmp(s, "all_gather") || !strcmp(s, "allgather")) *op = OP_ALLGATHER;
  else if (!strcmp(s, "reduce_scatter") || !strcmp(s, "reducescatter")) *op = OP_REDUCESCATTER;
  else return -1;
  return 0;
}

/* One option with a value; returns 0, or -1 when the value is bad. */
static int parse_valued(const char *a, const char *v, struct opts *o) {
  if (!strcmp(a, "--op")) return parse_op(v, &o->op);
  if (!strcmp(a, "-b")) return parse_size(v, &o->minb);
  if (!strcmp(a, "-e")) return parse_size(v, &o->maxb);
  if (!strcmp(a, "-f")) return parse_int(v, 2, 1 << 20, &o->factor);
  if (!strcmp(a, "-g")) return parse_int(v, 1, MAX_RANKS, &o->gpus);
  if (!strcmp(a, "-n")) return parse_int(v, 1, 1 << 24, &o->iters);
  if (!strcmp(a, "-w")) return parse_int(v, 0, 1 << 24, &o->warmup);
  if (!strcmp(a, "-c")) return parse_int(v, 0, 1, &o->check);
  if (!strcmp(a, "--ranks-per-gpu")) return parse_int(v, 1, MAX_RANKS, &o->ranks_per_gpu);
  if (!strcmp(a, "--rank")) return parse_int(v, 0, MAX_RANKS - 1, &o->rank);
  if (!strcmp(a, "--id-file")) {
    o->id_file = v;
    return 0;
  }
  return -2;
}

static int parse_args(int argc, char **argv, struct opts *o) {
  *o = (struct opts){.op = OP_ALLREDUCE,
                     .minb = 8,
                     .maxb = 1 << 20,
                     .factor = 2,
                     .gpus = 1,
                     .iters = 20,
                     .warmup = 5,
                     .check = 1,
                     .ranks_per_gpu = 1,
                     .rank = -1};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      exit(0);
    }
    if (!strcmp(a, "--procs")) {
      o->procs = 1;
      continue;
    }
    if (!strcmp(a, "--hostid-per-rank")) {
      o->hostid_per_rank = 1;
      continue;
    }
    int r = i + 1 < argc ? parse_valued(a, argv[i + 1], o) : -2;
    if (r == 0) {
      i++;
      continue;
    }
    fprintf(stderr, "nn_coll_driver: %s option '%s'%s%s\n",
            r == -1 ? "bad value for" : "unknown or incomplete", a, r == -1 ? ": " : "",
            r == -1 ? argv[i + 1] : "");
    return -1;
  }
  int n = o->gpus * o->ranks_per_gpu;
  if (o->minb == 0 || o->minb > o->maxb || n > MAX_RANKS || argc > MAX_ARGS ||
      (o->rank >= 0 && (!o->id_file || o->rank >= n)) || (o->hostid_per_rank && !o->procs)) {
    fprintf(stderr,
            "nn_coll_driver: need 0 < -b <= -e, at most %d ranks, --hostid-per-rank only with "
            "--procs\n",
            MAX_RANKS);
    return -1;
  }
  return 0;
}

/* --devices: how many GPUs the CUDA runtime sees (the kit's first probe). */
static int list_devices(void) {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n == 0) {
    printf("devices 0: %s\n", e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA device");
    return 3;
  }
  printf("devices %d\n", n);
  for (int i = 0; i < n; i++) {
    struct cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, i) == cudaSuccess)
      printf("device %d %04x:%02x:%02x.0 sm %d%d %s\n", i, (unsigned)p.pciDomainID,
             (unsigned)p.pciBusID, (unsigned)p.pciDeviceID, p.major, p.minor, p.name);
  }
  return 0;
}

int main(int argc, char **argv) {
  struct opts o;
  if (argc == 2 && !strcmp(argv[1], "--devices")) return list_devices();
  if (parse_args(argc, argv, &o)) {
    usage(stderr);
    return 2;
  }
  /* whole lines: ranks of --procs share stdout, and NCCL's log lines go there too */
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (o.rank >= 0) return run_one_rank(&o);
  if (o.procs) return run_procs(&o, argc, argv);
  return run_threads(&o);
}
