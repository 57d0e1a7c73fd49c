/* SPDX-License-Identifier: BSD-3-Clause */
/* p2pxproc.c - a pair's cross-process steps; see p2pxproc.h. */
#include "cli/p2p/p2pxproc.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/p2p/p2pshare.h"
#include "cli/p2p/p2ptest.h"

#define WORDS NN_P2P_WORDS
#define ANSWER_S 120.0 /* the owner's answer to one request; the pair's watchdog bounds all */

enum { OP_HELLO = 1, OP_FILL, OP_VERIFY, OP_LLVERIFY, OP_QUIT };
enum { BUF_CUMEM = 0, BUF_IPC };

struct msg {
  int op, buf;
  unsigned seed, flag;
  long long value;         /* HELLO: 0 or -1; answers: the count, or -1 */
  unsigned long long size; /* HELLO: the cuMem buffer's size */
  char step[16];           /* the importer's step, for the owner's error lines */
  nn_cu_ipc_handle ipc;    /* HELLO: the legacy IPC buffer */
};

/* ---------- the owner: GPU b's process ---------- */

struct owner {
  struct nn_p2pcall c;
  struct nn_p2pgpu g;
  struct nn_p2pshare_buf share;
  nn_cu_ptr ipcbuf;
};

static int owner_setup(struct owner *o, int b, struct msg *hello) {
  if (nn_p2pcall_open(&o->c)) return -1;
  o->c.step = "xsetup";
  if (nn_p2pgpu_setup(&o->c, &o->g, b) ||
      nn_p2pshare_create(&o->c, &o->g, (size_t)WORDS * 4, &o->share))
    return -1;
  if (nn_p2pcall_ok(&o->c, o->c.cu.mem_alloc(&o->ipcbuf, (size_t)WORDS * 4), "cuMemAlloc") ||
      nn_p2pcall_ok(&o->c, o->c.cu.ipc_get(&hello->ipc, o->ipcbuf), "cuIpcGetMemHandle"))
    return -1;
  hello->size = o->share.size;
  return 0;
}

static long long owner_do(struct owner *o, const struct msg *m) {
  nn_cu_ptr buf = m->buf == BUF_IPC ? o->ipcbuf : o->share.ptr;
  if (m->op == OP_FILL) return nn_p2pgpu_fill(&o->c, &o->g, buf, WORDS, m->seed);
  if (m->op == OP_VERIFY) return nn_p2pgpu_verify(&o->c, &o->g, buf, WORDS, m->seed);
  if (m->op == OP_LLVERIFY)
    return nn_p2pgpu_ll_verify(&o->c, &o->g, buf, WORDS / 2, m->seed, m->flag);
  return -1;
}

static void owner_main(int sock, int b, FILE *out) {
  struct owner o;
  memset(&o, 0, sizeof o);
  o.c.out = out;
  struct msg hello;
  memset(&hello, 0, sizeof hello);
  hello.op = OP_HELLO;
  hello.value = owner_setup(&o, b, &hello);
  if (nn_p2pshare_send(sock, &hello, sizeof hello, hello.value ? -1 : o.share.fd) || hello.value)
    return;
  struct msg m;
  char step[sizeof m.step + 1];
  while (nn_p2pshare_recv(sock, &m, sizeof m, NULL, 3600) == 0 && m.op != OP_QUIT) {
    memcpy(step, m.step, sizeof m.step);
    step[sizeof m.step] = '\0';
    o.c.step = step;
    m.value = owner_do(&o, &m);
    if (nn_p2pshare_send(sock, &m, sizeof m, -1)) return;
  }
}

int nn_p2pxproc_start(struct nn_p2pxproc *x, int b, FILE *out) {
  int sv[2];
  x->owner = -1;
  x->sock = -1;
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
    fprintf(out, "error xsetup: socketpair: %s\n", strerror(errno));
    return -1;
  }
  fflush(out);
  pid_t pid = fork();
  if (pid < 0) {
    fprintf(out, "error xsetup: fork: %s\n", strerror(errno));
    close(sv[0]);
    close(sv[1]);
    return -1;
  }
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    close(sv[0]);
    owner_main(sv[1], b, out);
    fflush(out);
    _exit(0);
  }
  close(sv[1]);
  x->owner = pid;
  x->sock = sv[0];
  return 0;
}

void nn_p2pxproc_stop(struct nn_p2pxproc *x) {
  if (x->sock >= 0) {
    struct msg quit = {.op = OP_QUIT};
    nn_p2pshare_send(x->sock, &quit, sizeof quit, -1);
    close(x->sock);
    x->sock = -1;
  }
  if (x->owner <= 0) return;
  int status;
  for (int i = 0; i < 500 && waitpid(x->owner, &status, WNOHANG) == 0; i++) poll(NULL, 0, 10);
  if (kill(x->owner, 0) == 0 && waitpid(x->owner, &status, WNOHANG) == 0) {
    kill(x->owner, SIGKILL);
    while (waitpid(x->owner, &status, 0) < 0 && errno == EINTR) {}
  }
  x->owner = -1;
}

/* ---------- GPU a's side ---------- */

/* The owner's answer to one request; -1 after an error line when it gave none. */
static int ask(struct nn_p2pxproc *x, struct nn_p2pcall *c, int op, int buf, unsigned seed,
               unsigned flag, long long *value) {
  struct msg m;
  memset(&m, 0, sizeof m);
  m.op = op;
  m.buf = buf;
  m.seed = seed;
  m.flag = flag;
  snprintf(m.step, sizeof m.step, "%s", c->step);
  if (nn_p2pshare_send(x->sock, &m, sizeof m, -1) ||
      nn_p2pshare_recv(x->sock, &m, sizeof m, NULL, ANSWER_S)) {
    fprintf(c->out, "error %s: GPU b's process gave no answer (it died, or hung for %.0f s)\n",
            c->step, ANSWER_S);
    return -1;
  }
  *value = m.value;
  return 0;
}

/* a writes with its 4-byte stores at ptr, b's process checks buffer `buf`. */
static int write_step(struct nn_p2pxproc *x, struct nn_p2pcall *c, const struct nn_p2pgpu *a,
                      nn_cu_ptr ptr, int buf, const char *step, unsigned seed, const char *what) {
  long long wrong;
  nn_p2pcall_begin(c, step);
  if (nn_p2pgpu_fill(c, a, ptr, WORDS, seed) || ask(x, c, OP_VERIFY, buf, seed, 0, &wrong))
    return -1;
  return nn_p2ptest_report(c, wrong, WORDS, what);
}

/* b's process writes buffer `buf`, a reads it at ptr. */
static int read_step(struct nn_p2pxproc *x, struct nn_p2pcall *c, const struct nn_p2pgpu *a,
                     nn_cu_ptr ptr, int buf, const char *step, unsigned seed, const char *what) {
  long long done;
  nn_p2pcall_begin(c, step);
  if (ask(x, c, OP_FILL, buf, seed, 0, &done)) return -1;
  if (done) {
    fprintf(c->out, "error %s: GPU b's process could not write its memory\n", step);
    return -1;
  }
  return nn_p2ptest_report(c, nn_p2pgpu_verify(c, a, ptr, WORDS, seed), WORDS, what);
}

/* a's LL stores of `width` bytes into the cuMem buffer, data and flags checked by b's process. */
static int ll_step(struct nn_p2pxproc *x, struct nn_p2pcall *c, const struct nn_p2pgpu *a,
                   nn_cu_ptr ptr, int width) {
  long long wrong;
  unsigned seed = 0x11aa0000u + (unsigned)width, flag = 0x0f1a0000u + (unsigned)width;
  nn_p2pcall_begin(c, width == 16 ? "xll16" : "xll8");
  if (nn_p2pgpu_ll(c, a, ptr, WORDS / 2, seed, flag, width) ||
      ask(x, c, OP_LLVERIFY, BUF_CUMEM, seed, flag, &wrong))
    return -1;
  return nn_p2ptest_report(c, wrong, WORDS / 2,
                           width == 16
                             ? "a's 16-byte LL stores (data and flags) into b's "
                               "process's memory"
                             : "a's 8-byte LL stores (data and flags) into b's process's memory");
}

static int cumem_steps(struct nn_p2pxproc *x, struct nn_p2pcall *c, const struct nn_p2pgpu *a,
                       int *failed) {
  struct msg hello;
  int fd;
  nn_cu_ptr ptr = 0;
  nn_p2pcall_begin(c, "xmap");
  if (nn_p2pshare_recv(x->sock, &hello, sizeof hello, &fd, ANSWER_S) || hello.op != OP_HELLO) {
    fprintf(c->out,
            "error xmap: GPU b's process sent no memory handle (it died, or hung for %.0f s)\n",
            ANSWER_S);
    return -1;
  }
  if (hello.value || fd < 0) { /* its error line said why */
    if (fd >= 0) close(fd);
    return -1;
  }
  if (nn_p2pshare_import(c, a, fd, (size_t)hello.size, &ptr)) return -1;
  int r[4] = {write_step(x, c, a, ptr, BUF_CUMEM, "xwrite", 0x6b6b0001u,
                         "a's stores into b's process's memory (cuMem, "
                         "fd over a socket), checked by b's process"),
              read_step(x, c, a, ptr, BUF_CUMEM, "xread", 0x6b6b0002u,
                        "a's loads from b's process's memory (cuMem)"),
              ll_step(x, c, a, ptr, 8), ll_step(x, c, a, ptr, 16)};
  for (int i = 0; i < 4; i++) {
    if (r[i] < 0) return -1;
    *failed |= r[i];
  }
  nn_p2pcall_begin(c, "ipcmap");
  nn_cu_ptr iptr = 0;
  if (nn_p2pcall_ok(c, c->cu.ipc_open(&iptr, hello.ipc, NN_CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS),
                    "cuIpcOpenMemHandle"))
    return -1;
  int w = write_step(x, c, a, iptr, BUF_IPC, "ipcwrite", 0x6b6b0003u,
                     "a's stores into b's process's memory "
                     "(legacy CUDA IPC), checked by b's process");
  int rd = w < 0 ? -1
                 : read_step(x, c, a, iptr, BUF_IPC, "ipcread", 0x6b6b0004u,
                             "a's loads from b's process's "
                             "memory (legacy CUDA IPC)");
  c->cu.ipc_close(iptr);
  if (w < 0 || rd < 0) return -1;
  *failed |= w | rd;
  return 0;
}

int nn_p2pxproc_run(struct nn_p2pxproc *x, struct nn_p2pcall *c, const struct nn_p2pgpu *a) {
  int failed = 0;
  if (cumem_steps(x, c, a, &failed)) return -1;
  return failed ? 1 : 0;
}
