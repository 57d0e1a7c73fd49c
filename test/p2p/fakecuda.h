/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fakecuda.h - what the stand-in driver's two files share (fakecuda.c: devices, contexts,
 * kernels, NVML; fakecuda_mem.c: memory, cuMem's shareable handles and legacy IPC).
 *
 * Every allocation is a memfd mapped shared, so that another process can map it: cuMem's
 * exported handle is the memfd itself, a legacy IPC handle names it as /proc/PID/fd/N. A
 * mapping made by cuMemMap or cuIpcOpenMemHandle is reachable by the devices given access
 * (cuMemSetAccess; the opening context for IPC); one imported from another process is marked
 * so that NN_FAKECUDA=ipc-broken can lose what goes through it.
 */
#ifndef NN_FAKECUDA_H
#define NN_FAKECUDA_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#define API __attribute__((visibility("default")))
#define MAX_GPUS 16
#define MAX_ALLOCS 256
#define MAX_PENDING 64

enum {
  OK = 0,
  E_INVALID_VALUE = 1,
  E_OUT_OF_MEMORY = 2,
  E_NOT_INITIALIZED = 3,
  E_INVALID_DEVICE = 101,
  E_INVALID_PTX = 218,
  E_PEER_UNSUPPORTED = 217,
  E_NOT_FOUND = 500,
  E_ILLEGAL_ADDRESS = 700,
  E_ALREADY_ENABLED = 704,
  E_INVALID_CONTEXT = 201,
  E_INVALID_HANDLE = 400
};

struct nn_fake_ctx {
  int dev;
  int peer[MAX_GPUS];
  int fault;
  pthread_t pending[MAX_PENDING];
  void *pending_stream[MAX_PENDING];
  int n_pending;
};

struct nn_fake_alloc {
  uint64_t base;
  size_t size;
  int dev;         /* the device whose memory it is */
  int fd;          /* the memfd behind it, -1 for a mapping of another's */
  int mapped;      /* made by cuMemMap or cuIpcOpenMemHandle: reachable by `access` alone */
  unsigned access; /* bit d: device d may touch it */
  int imported;    /* another process's memory */
};

extern struct nn_fake_alloc nn_fake_allocs[MAX_ALLOCS];
extern pthread_mutex_t nn_fake_lock;
extern __thread struct nn_fake_ctx *nn_fake_current;
extern int nn_fake_gpus;

/* Whether NN_FAKECUDA is `m`; whether the mode hits the link between devices x and y. */
int nn_fake_is(const char *m);
int nn_fake_bad(int x, int y);

/* The allocation holding [p, p+bytes), or NULL (call with nn_fake_lock held). */
struct nn_fake_alloc *nn_fake_find(uint64_t p, size_t bytes);

/* The device owning [p, p+bytes) when ctx c may touch it, else -1 (the kernel faults);
 * *imported set when it is another process's memory. */
int nn_fake_reach(const struct nn_fake_ctx *c, uint64_t p, size_t bytes, int *imported);

/* A shared mapping of a new memfd of `bytes` for device dev: its address, or NULL. */
void *nn_fake_memfd(int dev, size_t bytes, int *fd);

#endif
