/* SPDX-License-Identifier: BSD-3-Clause */
/* p2pshare.c - GPU memory shared across processes, and the sockets between them; see p2pshare.h. */
#include "cli/p2p/p2pshare.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cli/common/monotonic.h"

static void device_prop(const struct nn_p2pgpu *g, struct nn_cu_mem_prop *prop) {
  memset(prop, 0, sizeof *prop);
  prop->type = NN_CU_MEM_ALLOCATION_TYPE_PINNED;
  prop->requested_handle_types = NN_CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  prop->location.type = NN_CU_MEM_LOCATION_TYPE_DEVICE;
  prop->location.id = g->dev;
}

/* Reserves and maps `handle` (size bytes) with read-write access for g: *ptr. */
static int map_for(struct nn_p2pcall *c, const struct nn_p2pgpu *g, unsigned long long handle,
                   size_t size, nn_cu_ptr *ptr) {
  struct nn_cu_mem_access access = {{NN_CU_MEM_LOCATION_TYPE_DEVICE, g->dev},
                                    NN_CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
  return nn_p2pcall_ok(c, c->cu.mem_reserve(ptr, size, 0, 0, 0), "cuMemAddressReserve") ||
         nn_p2pcall_ok(c, c->cu.mem_map(*ptr, size, 0, handle, 0), "cuMemMap") ||
         nn_p2pcall_ok(c, c->cu.mem_set_access(*ptr, size, &access, 1), "cuMemSetAccess");
}

int nn_p2pshare_create(struct nn_p2pcall *c, const struct nn_p2pgpu *g, size_t bytes,
                       struct nn_p2pshare_buf *b) {
  struct nn_cu_mem_prop prop;
  size_t gran = 0;
  memset(b, 0, sizeof *b);
  b->fd = -1;
  device_prop(g, &prop);
  if (nn_p2pgpu_current(c, g) ||
      nn_p2pcall_ok(c, c->cu.mem_granularity(&gran, &prop, NN_CU_MEM_ALLOC_GRANULARITY_MINIMUM),
                    "cuMemGetAllocationGranularity"))
    return -1;
  b->size = gran ? (bytes + gran - 1) / gran * gran : bytes;
  if (nn_p2pcall_ok(c, c->cu.mem_create(&b->handle, b->size, &prop, 0),
                    "cuMemCreate (POSIX fd shareable)") ||
      map_for(c, g, b->handle, b->size, &b->ptr))
    return -1;
  return nn_p2pcall_ok(
    c, c->cu.mem_export(&b->fd, b->handle, NN_CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
    "cuMemExportToShareableHandle");
}

int nn_p2pshare_import(struct nn_p2pcall *c, const struct nn_p2pgpu *g, int fd, size_t size,
                       nn_cu_ptr *ptr) {
  unsigned long long handle = 0;
  int rc = nn_p2pgpu_current(c, g) ||
           nn_p2pcall_ok(c,
                         c->cu.mem_import(&handle, (void *)(uintptr_t)fd,
                                          NN_CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
                         "cuMemImportFromShareableHandle") ||
           map_for(c, g, handle, size, ptr);
  close(fd);
  return rc ? -1 : 0;
}

/* A descriptor's room beside one message. */
union fd_room {
  struct cmsghdr h;
  char buf[CMSG_SPACE(sizeof(int))];
};

/* mh for the one buffer iov, with room (NULL: none) for a descriptor. */
static void one_message(struct msghdr *mh, struct iovec *iov, union fd_room *room) {
  memset(mh, 0, sizeof *mh);
  mh->msg_iov = iov;
  mh->msg_iovlen = 1;
  if (!room) return;
  memset(room, 0, sizeof *room);
  mh->msg_control = room->buf;
  mh->msg_controllen = sizeof room->buf;
}

int nn_p2pshare_send(int sock, const void *msg, size_t len, int fd) {
  struct iovec iov = {(void *)msg, len};
  union fd_room room;
  struct msghdr mh;
  one_message(&mh, &iov, fd >= 0 ? &room : NULL);
  if (fd >= 0) {
    struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(cm), &fd, sizeof fd);
  }
  ssize_t n;
  while ((n = sendmsg(sock, &mh, MSG_NOSIGNAL)) < 0 && errno == EINTR) {}
  return n == (ssize_t)len ? 0 : -1;
}

/* Whether sock has something to read within timeout_s seconds. */
static int readable(int sock, double timeout_s) {
  double deadline = nn_monotonic_s() + timeout_s;
  for (;;) {
    double left = deadline - nn_monotonic_s();
    struct pollfd p = {sock, POLLIN, 0};
    if (left <= 0) return 0;
    int r = poll(&p, 1, left > 1 ? 1000 : (int)(left * 1000) + 1);
    if (r < 0 && errno != EINTR) return 0;
    if (r > 0) return 1;
  }
}

int nn_p2pshare_recv(int sock, void *msg, size_t len, int *fd, double timeout_s) {
  if (fd) *fd = -1;
  if (!readable(sock, timeout_s)) return -1;
  struct iovec iov = {msg, len};
  union fd_room room;
  struct msghdr mh;
  one_message(&mh, &iov, &room);
  ssize_t n;
  while ((n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) {}
  for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); n > 0 && cm; cm = CMSG_NXTHDR(&mh, cm)) {
    if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS) continue;
    int got;
    memcpy(&got, CMSG_DATA(cm), sizeof got);
    if (fd) *fd = got;
    else close(got);
  }
  return n == (ssize_t)len ? 0 : -1;
}
