/* SPDX-License-Identifier: BSD-3-Clause */
/* p2pring.c - every GPU writing to its ring neighbours at once; see p2pring.h. */
#include "cli/p2p/p2pring.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/common/monotonic.h"
#include "cli/p2p/p2pshare.h"

#define HALF_PAIRS (1u << 20) /* 8 MiB of LL pairs from each neighbour */
#define HALF_BYTES ((size_t)HALF_PAIRS * 8)
#define SETUP_S 120.0 /* for every process's CUDA setup and exchange */

/* What the GPU processes share: a barrier and the decision to stop. */
struct shared {
  atomic_int arrived, generation, stop, abort;
};

struct worker {
  struct nn_p2pcall c;
  struct nn_p2pgpu g;
  struct nn_p2pshare_buf mine; /* [0, HALF) from prev, [HALF, 2 HALF) from next */
  nn_cu_ptr next, prev;        /* the neighbours' buffers, mapped here */
  int sock_next, sock_prev;
  int index, n, ordinal;
  char step[24];
};

/* Everyone arrives, or -1 on abort or past deadline. */
static int barrier(struct shared *s, int n, double deadline) {
  int gen = atomic_load(&s->generation);
  if (atomic_fetch_add(&s->arrived, 1) == n - 1) {
    atomic_store(&s->arrived, 0);
    atomic_fetch_add(&s->generation, 1);
    return 0;
  }
  while (atomic_load(&s->generation) == gen) {
    if (atomic_load(&s->abort) || nn_monotonic_s() > deadline) return -1;
    poll(NULL, 0, 1);
  }
  return 0;
}

/* The seed of what GPU `from` writes in round k towards direction dir (0 next, 1 prev). */
static unsigned seed_of(int from, unsigned k, int dir) {
  return 0x52000000u ^ ((unsigned)from << 20) ^ (k << 1) ^ (unsigned)dir;
}

/* Sends this buffer to both neighbours and maps theirs. */
static int exchange(struct worker *w) {
  unsigned long long size = w->mine.size;
  int fd_next = -1, fd_prev = -1;
  unsigned long long size_next = 0, size_prev = 0;
  w->c.step = w->step;
  if (nn_p2pshare_send(w->sock_next, &size, sizeof size, w->mine.fd) ||
      nn_p2pshare_send(w->sock_prev, &size, sizeof size, w->mine.fd) ||
      nn_p2pshare_recv(w->sock_next, &size_next, sizeof size_next, &fd_next, SETUP_S) ||
      nn_p2pshare_recv(w->sock_prev, &size_prev, sizeof size_prev, &fd_prev, SETUP_S) ||
      fd_next < 0 || fd_prev < 0) {
    fprintf(w->c.out, "error %s: a neighbour's process sent no memory handle (it failed or hung)\n",
            w->step);
    return -1;
  }
  return nn_p2pshare_import(&w->c, &w->g, fd_next, (size_t)size_next, &w->next) ||
             nn_p2pshare_import(&w->c, &w->g, fd_prev, (size_t)size_prev, &w->prev)
           ? -1
           : 0;
}

/* One round: write both neighbours at once, then check both halves of this buffer. */
static long long round_once(struct worker *w, struct shared *s, unsigned k, double deadline,
                            double *busy) {
  int next = (w->index + 1) % w->n, prev = (w->index + w->n - 1) % w->n;
  if (barrier(s, w->n, deadline)) return -2;
  double t0 = nn_monotonic_s();
  if (nn_p2pgpu_ll_launch(&w->c, &w->g, w->next, HALF_PAIRS, seed_of(w->index, k, 0), k + 1, 16) ||
      nn_p2pgpu_ll_launch(&w->c, &w->g, w->prev + HALF_BYTES, HALF_PAIRS, seed_of(w->index, k, 1),
                          k + 1, 16) ||
      nn_p2pgpu_sync(&w->c, &w->g))
    return -1;
  *busy += nn_monotonic_s() - t0;
  if (barrier(s, w->n, deadline)) return -2;
  long long a =
    nn_p2pgpu_ll_verify(&w->c, &w->g, w->mine.ptr, HALF_PAIRS, seed_of(prev, k, 0), k + 1);
  long long b = a < 0 ? -1
                      : nn_p2pgpu_ll_verify(&w->c, &w->g, w->mine.ptr + HALF_BYTES, HALF_PAIRS,
                                            seed_of(next, k, 1), k + 1);
  return a < 0 || b < 0 ? -1 : a + b;
}

static void worker_main(struct worker *w, struct shared *s, double seconds) {
  double deadline = nn_monotonic_s() + SETUP_S;
  snprintf(w->step, sizeof w->step, "ring-gpu%d", w->ordinal);
  if (nn_p2pcall_open(&w->c)) {
    atomic_store(&s->abort, 1);
    return;
  }
  w->c.step = w->step;
  if (nn_p2pgpu_setup(&w->c, &w->g, w->ordinal) ||
      nn_p2pshare_create(&w->c, &w->g, 2 * HALF_BYTES, &w->mine) || exchange(w)) {
    atomic_store(&s->abort, 1);
    return;
  }
  long long wrong = 0;
  unsigned k = 0;
  double busy = 0, start = 0;
  for (;; k++) {
    long long r = round_once(w, s, k, deadline + seconds, &busy);
    if (r < 0) {
      if (r == -2)
        fprintf(w->c.out, "error %s: the other GPUs' processes stopped answering in round %u\n",
                w->step, k);
      atomic_store(&s->abort, 1);
      return;
    }
    wrong += r;
    if (k == 0) start = nn_monotonic_s();
    if (w->index == 0 && nn_monotonic_s() - start >= seconds) atomic_store(&s->stop, 1);
    if (barrier(s, w->n, deadline + seconds)) {
      atomic_store(&s->abort, 1);
      return;
    }
    if (atomic_load(&s->stop)) break;
  }
  fprintf(w->c.out, "ring GPU %d wrong %lld of %llu rounds %u gbps %.3f\n", w->ordinal, wrong,
          (unsigned long long)(k + 1) * 2 * HALF_PAIRS, k + 1,
          busy > 0 ? (double)(k + 1) * 2 * HALF_BYTES / busy / 1e9 : 0);
}

/* Forks the GPU processes, each with its sockets to both neighbours; returns how many started. */
static int start_workers(const struct nn_p2pring_args *a, struct shared *s, FILE *out,
                         pid_t *pids) {
  int edge[NN_P2PRING_MAX][2]; /* edge i joins GPU i (end 0) and GPU i+1 (end 1) */
  for (int i = 0; i < a->n; i++)
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, edge[i])) {
      fprintf(out, "error ring: socketpair: %s\n", strerror(errno));
      for (int k = 0; k < i; k++) close(edge[k][0]), close(edge[k][1]);
      return 0;
    }
  int started = 0;
  fflush(out);
  for (int i = 0; i < a->n; i++) {
    pid_t pid = fork();
    if (pid == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      struct worker w;
      memset(&w, 0, sizeof w);
      w.c.out = out;
      w.index = i;
      w.n = a->n;
      w.ordinal = a->gpus[i];
      w.sock_next = edge[i][0];
      w.sock_prev = edge[(i + a->n - 1) % a->n][1];
      worker_main(&w, s, a->seconds);
      fflush(out);
      _exit(0);
    }
    if (pid > 0) pids[started++] = pid;
    else {
      atomic_store(&s->abort, 1);
      break;
    }
  }
  for (int i = 0; i < a->n; i++) close(edge[i][0]), close(edge[i][1]);
  return started;
}

void nn_p2pring_work(void *arg, FILE *out) {
  const struct nn_p2pring_args *a = arg;
  struct shared *s =
    mmap(NULL, sizeof *s, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  pid_t pids[NN_P2PRING_MAX];
  if (s == MAP_FAILED || a->n < 2 || a->n > NN_P2PRING_MAX) {
    fprintf(out, "error ring: %s\n", s == MAP_FAILED ? strerror(errno) : "2 to 64 GPUs");
    return;
  }
  memset(s, 0, sizeof *s);
  int started = start_workers(a, s, out, pids);
  for (int left = started; left > 0;) {
    int status;
    pid_t pid = waitpid(-1, &status, 0);
    if (pid < 0 && errno == EINTR) continue;
    if (pid < 0) break;
    for (int i = 0; i < started; i++)
      if (pids[i] == pid) {
        left--;
        if (!WIFEXITED(status) || WEXITSTATUS(status)) atomic_store(&s->abort, 1);
      }
  }
  if (started == a->n) fprintf(out, "ring-done\n");
}
