/* SPDX-License-Identifier: BSD-3-Clause */
/* fakecuda_mem.c - the stand-in driver's memory: allocations, cuMem's shareable handles and
 * legacy CUDA IPC, each a memfd another process can map (see fakecuda.h). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fakecuda.h"
#include "numparse.h"

#define GRANULARITY (2u << 20)
#define MAX_HANDLES 64
#define IPC_MAGIC 0x4b46464eu /* "NFFK" */

API int cuMemAlloc_v2(uint64_t *p, size_t bytes);
API int cuMemFree_v2(uint64_t p);
API int cuMemGetAllocationGranularity(size_t *gran, const void *prop, int option);
API int cuMemCreate(unsigned long long *handle, size_t size, const void *prop,
                    unsigned long long flags);
API int cuMemExportToShareableHandle(void *shareable, unsigned long long handle, int type,
                                     unsigned long long flags);
API int cuMemImportFromShareableHandle(unsigned long long *handle, void *os_handle, int type);
API int cuMemAddressReserve(uint64_t *ptr, size_t size, size_t align, uint64_t addr,
                            unsigned long long flags);
API int cuMemMap(uint64_t ptr, size_t size, size_t offset, unsigned long long handle,
                 unsigned long long flags);
API int cuMemSetAccess(uint64_t ptr, size_t size, const void *desc, size_t count);
API int cuMemUnmap(uint64_t ptr, size_t size);
API int cuMemRelease(unsigned long long handle);
API int cuMemAddressFree(uint64_t ptr, size_t size);
API int cuIpcGetMemHandle(void *handle, uint64_t ptr);
struct ipc_bytes {
  char b[64];
}; /* CUipcMemHandle, passed by value */
API int cuIpcOpenMemHandle_v2(uint64_t *ptr, struct ipc_bytes handle, unsigned flags);
API int cuIpcCloseMemHandle(uint64_t ptr);

struct nn_fake_alloc nn_fake_allocs[MAX_ALLOCS];
pthread_mutex_t nn_fake_lock = PTHREAD_MUTEX_INITIALIZER;

/* cuMemCreate's handles: a memfd, its size and device; 0 is no handle */
static struct {
  int fd;
  size_t size;
  int dev;
  int imported;
} handles[MAX_HANDLES + 1];

struct ipc {
  unsigned magic;
  int pid, fd, dev;
  uint64_t size;
};

struct nn_fake_alloc *nn_fake_find(uint64_t p, size_t bytes) {
  for (int i = 0; i < MAX_ALLOCS; i++) {
    struct nn_fake_alloc *a = &nn_fake_allocs[i];
    if (a->base && p >= a->base && p + bytes <= a->base + a->size) return a;
  }
  return NULL;
}

int nn_fake_reach(const struct nn_fake_ctx *c, uint64_t p, size_t bytes, int *imported) {
  pthread_mutex_lock(&nn_fake_lock);
  struct nn_fake_alloc *a = nn_fake_find(p, bytes);
  int owner = a ? a->dev : -1, ok = 0;
  if (a) ok = a->mapped ? (a->access >> c->dev & 1) != 0 : owner == c->dev || c->peer[owner];
  if (imported) *imported = a && a->imported;
  pthread_mutex_unlock(&nn_fake_lock);
  return ok ? owner : -1;
}

/* A memfd of `bytes` named for device dev (memfd_device reads the name back), or -1. */
static int make_memfd(int dev, size_t bytes) {
  char name[32];
  snprintf(name, sizeof name, "nn-fake-dev%d", dev);
  int fd = memfd_create(name, MFD_CLOEXEC);
  if (fd >= 0 && ftruncate(fd, (off_t)bytes)) {
    close(fd);
    fd = -1;
  }
  return fd;
}

void *nn_fake_memfd(int dev, size_t bytes, int *fd) {
  *fd = make_memfd(dev, bytes);
  if (*fd < 0) return NULL;
  void *mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
  if (mem == MAP_FAILED) {
    close(*fd);
    *fd = -1;
    return NULL;
  }
  return mem;
}

/* Records an allocation; 0, or -1 when the table is full. */
static int record(struct nn_fake_alloc a) {
  pthread_mutex_lock(&nn_fake_lock);
  int i = 0;
  while (i < MAX_ALLOCS && nn_fake_allocs[i].base) i++;
  if (i < MAX_ALLOCS) nn_fake_allocs[i] = a;
  pthread_mutex_unlock(&nn_fake_lock);
  return i < MAX_ALLOCS ? 0 : -1;
}

int cuMemAlloc_v2(uint64_t *p, size_t bytes) {
  if (!nn_fake_current) return E_INVALID_CONTEXT;
  int fd;
  void *mem = nn_fake_memfd(nn_fake_current->dev, bytes, &fd);
  if (!mem) return E_OUT_OF_MEMORY;
  if (record((struct nn_fake_alloc){(uint64_t)(uintptr_t)mem, bytes, nn_fake_current->dev, fd, 0, 0,
                                    0})) {
    munmap(mem, bytes);
    close(fd);
    return E_OUT_OF_MEMORY;
  }
  *p = (uint64_t)(uintptr_t)mem;
  return OK;
}

static int release(uint64_t p) {
  pthread_mutex_lock(&nn_fake_lock);
  struct nn_fake_alloc *a = nn_fake_find(p, 1);
  int found = a && a->base == p;
  if (found) {
    munmap((void *)(uintptr_t)p, a->size);
    if (a->fd >= 0) close(a->fd);
    a->base = 0;
  }
  pthread_mutex_unlock(&nn_fake_lock);
  return found ? OK : E_INVALID_VALUE;
}

int cuMemFree_v2(uint64_t p) { return release(p); }

/* ---------- cuMem ---------- */

int cuMemGetAllocationGranularity(size_t *gran, const void *prop, int option) {
  (void)prop, (void)option;
  *gran = GRANULARITY;
  return OK;
}

/* CUmemAllocationProp's location.id (an int at byte 12) */
static int prop_device(const void *prop) {
  int id;
  memcpy(&id, (const char *)prop + 12, sizeof id);
  return id;
}

static int new_handle(int fd, size_t size, int dev, int imported, unsigned long long *handle) {
  for (int h = 1; h <= MAX_HANDLES; h++)
    if (!handles[h].size) {
      handles[h].fd = fd;
      handles[h].size = size;
      handles[h].dev = dev;
      handles[h].imported = imported;
      *handle = (unsigned long long)h;
      return OK;
    }
  return E_OUT_OF_MEMORY;
}

static int valid(unsigned long long h) { return h >= 1 && h <= MAX_HANDLES && handles[h].size; }

int cuMemCreate(unsigned long long *handle, size_t size, const void *prop,
                unsigned long long flags) {
  (void)flags;
  int dev = prop_device(prop), fd;
  if (dev < 0 || dev >= nn_fake_gpus || size % GRANULARITY) return E_INVALID_VALUE;
  if ((fd = make_memfd(dev, size)) < 0) return E_OUT_OF_MEMORY;
  return new_handle(fd, size, dev, 0, handle);
}

int cuMemExportToShareableHandle(void *shareable, unsigned long long handle, int type,
                                 unsigned long long flags) {
  (void)flags;
  if (type != 1 || !valid(handle)) return E_INVALID_VALUE;
  int fd = fcntl(handles[handle].fd, F_DUPFD_CLOEXEC, 0);
  if (fd < 0) return E_OUT_OF_MEMORY;
  memcpy(shareable, &fd, sizeof fd);
  return OK;
}

/* The device of a memfd made by this stand-in, from its name ("/memfd:nn-fake-dev3 (deleted)") */
static int memfd_device(int fd) {
  char link[64], target[128];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, target, sizeof target - 1);
  if (n <= 0) return -1;
  target[n] = '\0';
  const char *d = strstr(target, "nn-fake-dev"), *end;
  int dev;
  return d && nn_int_parse_prefix(d + 11, 0, MAX_GPUS - 1, &dev, &end) == 0 ? dev : -1;
}

int cuMemImportFromShareableHandle(unsigned long long *handle, void *os_handle, int type) {
  struct stat st;
  int fd = (int)(uintptr_t)os_handle, dev = memfd_device(fd);
  if (type != 1 || fstat(fd, &st) || dev < 0) return E_INVALID_HANDLE;
  int own = fcntl(fd, F_DUPFD_CLOEXEC, 0);
  return own < 0 ? E_OUT_OF_MEMORY : new_handle(own, (size_t)st.st_size, dev, 1, handle);
}

int cuMemAddressReserve(uint64_t *ptr, size_t size, size_t align, uint64_t addr,
                        unsigned long long flags) {
  (void)align, (void)addr, (void)flags;
  void *p = mmap(NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return E_OUT_OF_MEMORY;
  *ptr = (uint64_t)(uintptr_t)p;
  return OK;
}

int cuMemMap(uint64_t ptr, size_t size, size_t offset, unsigned long long handle,
             unsigned long long flags) {
  (void)flags;
  if (!valid(handle) || offset || size > handles[handle].size) return E_INVALID_VALUE;
  void *p = mmap((void *)(uintptr_t)ptr, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
                 handles[handle].fd, 0);
  if (p == MAP_FAILED) return E_OUT_OF_MEMORY;
  int imported = handles[handle].imported;
  return record((struct nn_fake_alloc){ptr, size, handles[handle].dev, -1, 1, 0, imported})
           ? E_OUT_OF_MEMORY
           : OK;
}

int cuMemSetAccess(uint64_t ptr, size_t size, const void *desc, size_t count) {
  pthread_mutex_lock(&nn_fake_lock);
  struct nn_fake_alloc *a = nn_fake_find(ptr, size);
  for (size_t i = 0; a && i < count; i++) {
    int type, id; /* CUmemAccessDesc: {location {type, id}, flags}, 12 bytes */
    memcpy(&type, (const char *)desc + 12 * i, sizeof type);
    memcpy(&id, (const char *)desc + 12 * i + 4, sizeof id);
    if (type == 1 && id >= 0 && id < MAX_GPUS) a->access |= 1u << id;
  }
  pthread_mutex_unlock(&nn_fake_lock);
  return a ? OK : E_INVALID_VALUE;
}

int cuMemUnmap(uint64_t ptr, size_t size) {
  (void)size;
  return release(ptr);
}

int cuMemRelease(unsigned long long handle) {
  if (!valid(handle)) return E_INVALID_VALUE;
  close(handles[handle].fd);
  handles[handle].size = 0;
  return OK;
}

int cuMemAddressFree(uint64_t ptr, size_t size) {
  return munmap((void *)(uintptr_t)ptr, size) ? E_INVALID_VALUE : OK;
}

/* ---------- legacy CUDA IPC ---------- */

int cuIpcGetMemHandle(void *handle, uint64_t ptr) {
  pthread_mutex_lock(&nn_fake_lock);
  struct nn_fake_alloc *a = nn_fake_find(ptr, 1);
  struct ipc h = {IPC_MAGIC, (int)getpid(), a && a->base == ptr ? a->fd : -1, a ? a->dev : -1,
                  a ? a->size : 0};
  pthread_mutex_unlock(&nn_fake_lock);
  if (h.fd < 0) return E_INVALID_VALUE;
  memset(handle, 0, 64);
  memcpy(handle, &h, sizeof h);
  return OK;
}

int cuIpcOpenMemHandle_v2(uint64_t *ptr, struct ipc_bytes handle, unsigned flags) {
  (void)flags;
  struct ipc h;
  char path[64];
  memcpy(&h, handle.b, sizeof h);
  if (!nn_fake_current) return E_INVALID_CONTEXT;
  if (h.magic != IPC_MAGIC || h.pid == (int)getpid())
    return E_INVALID_VALUE; /* as CUDA: not in its own process */
  snprintf(path, sizeof path, "/proc/%d/fd/%d", h.pid, h.fd);
  int fd = open(path, O_RDWR | O_CLOEXEC);
  if (fd < 0) return E_INVALID_HANDLE;
  void *p = mmap(NULL, (size_t)h.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (p == MAP_FAILED) return E_OUT_OF_MEMORY;
  unsigned access = 1u << nn_fake_current->dev;
  if (record(
        (struct nn_fake_alloc){(uint64_t)(uintptr_t)p, (size_t)h.size, h.dev, -1, 1, access, 1})) {
    munmap(p, (size_t)h.size);
    return E_OUT_OF_MEMORY;
  }
  *ptr = (uint64_t)(uintptr_t)p;
  return OK;
}

int cuIpcCloseMemHandle(uint64_t ptr) { return release(ptr); }
