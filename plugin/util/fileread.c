/* SPDX-License-Identifier: BSD-3-Clause */
/* fileread.c - the one bounded, non-blocking file reader. */
#include "fileread.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "errbuf.h"

#define NN_OPEN_FLAGS (O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)

const char *nn_file_kind(mode_t m) {
  if (S_ISREG(m)) return "a regular file";
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISSOCK(m)) return "a socket";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISLNK(m)) return "a symbolic link";
  return "not a regular file";
}

static void limit_text(size_t cap, char *buf, size_t size) {
  if (cap >= (1u << 20) && cap % (1u << 20) == 0) nn_errbuf_set(buf, size, "%zu MiB", cap >> 20);
  else nn_errbuf_set(buf, size, "%zu bytes", cap);
}

/* Walks `path` below dirfd one component at a time, never following a link. */
static int open_beneath(int dirfd, const char *path) {
  if (!path[0] || path[0] == '/') {
    errno = EXDEV;
    return -1;
  }
  int cur = dirfd, fd = -1;
  const char *p = path;
  for (;;) {
    size_t n = strcspn(p, "/");
    char comp[256];
    if (n == 0 || n >= sizeof comp || (n == 2 && !strncmp(p, "..", 2))) {
      if (cur != dirfd) close(cur);
      errno = n >= sizeof comp ? ENAMETOOLONG : EXDEV;
      return -1;
    }
    memcpy(comp, p, n);
    comp[n] = 0;
    int last = !p[n];
    fd = openat(cur, comp, NN_OPEN_FLAGS | O_NOFOLLOW | (last ? 0 : O_DIRECTORY));
    if (cur != dirfd) {
      int e = errno;
      close(cur);
      errno = e;
    }
    if (fd < 0 || last) break;
    cur = fd;
    p += n + 1;
  }
  return fd;
}

/* Why open failed, in words: a link is named as such. */
static void open_error(int dirfd, const char *path, int flags, int e, char *err, size_t errsz) {
  struct stat st;
  if (e == ENOTDIR && (flags & NN_FILE_BENEATH))
    nn_errbuf_set(err, errsz,
                  "%s: cannot open: a component on the way is a symbolic link or not a "
                  "directory: refused",
                  path);
  else if (e == ELOOP || ((flags & NN_FILE_NOFOLLOW) &&
                          !fstatat(dirfd, path, &st, AT_SYMLINK_NOFOLLOW) && S_ISLNK(st.st_mode)))
    nn_errbuf_set(err, errsz, "%s: cannot open: a symbolic link (or a path through one): refused",
                  path);
  else if (e == EXDEV)
    nn_errbuf_set(err, errsz, "%s: cannot open: leaves its directory: refused", path);
  else nn_errbuf_set(err, errsz, "%s: cannot open: %s", path, strerror(e));
}

int nn_file_open(int dirfd, const char *path, int flags, size_t cap, char *err, size_t errsz) {
  if (!path || !*path) {
    nn_errbuf_set(err, errsz, "(empty path): cannot open: no file name");
    errno = ENOENT;
    return -1;
  }
  int fd = flags & NN_FILE_BENEATH
             ? open_beneath(dirfd, path)
             : openat(dirfd, path, NN_OPEN_FLAGS | (flags & NN_FILE_NOFOLLOW ? O_NOFOLLOW : 0));
  if (fd < 0) {
    int e = errno;
    if (!(e == ENOENT && (flags & NN_FILE_MISSING_OK)))
      open_error(dirfd, path, flags, e, err, errsz);
    errno = e;
    return -1;
  }
  struct stat st;
  int e = 0;
  if (fstat(fd, &st)) {
    e = errno;
    nn_errbuf_set(err, errsz, "%s: cannot open: %s", path, strerror(e));
  } else if (!S_ISREG(st.st_mode)) {
    e = EINVAL;
    nn_errbuf_set(err, errsz, "%s: cannot open: %s, not a regular file: refused", path,
                  nn_file_kind(st.st_mode));
  } else if ((unsigned long long)st.st_size > (unsigned long long)cap) {
    char lim[32];
    limit_text(cap, lim, sizeof lim);
    e = EFBIG;
    nn_errbuf_set(err, errsz, "%s: file is %lld bytes, over the %s limit: refused", path,
                  (long long)st.st_size, lim);
  }
  if (e) {
    close(fd);
    errno = e;
    return -1;
  }
  return fd;
}

int nn_file_read_fd(int fd, const char *name, size_t cap, char **buf, size_t *len, char *err,
                    size_t errsz) {
  *buf = NULL;
  *len = 0;
  struct stat st;
  /* The size is a hint only: /proc files say 0, and the file may grow. */
  size_t alloc =
    !fstat(fd, &st) && st.st_size > 0 && (size_t)st.st_size < cap ? (size_t)st.st_size + 1 : 4096;
  if (alloc > cap + 1) alloc = cap + 1;
  size_t n = 0;
  char *b = malloc(alloc + 1);
  for (;;) {
    if (b && n == alloc && alloc < cap + 1) {
      size_t na = alloc > (cap + 1) / 2 ? cap + 1 : alloc * 2;
      char *g = realloc(b, na + 1);
      if (!g) {
        free(b);
        b = NULL;
      } else {
        b = g;
        alloc = na;
      }
    }
    if (!b) {
      nn_errbuf_set(err, errsz, "%s: cannot read: out of memory", name);
      errno = ENOMEM;
      return -1;
    }
    if (n == alloc) break; /* cap + 1 bytes: too large */
    ssize_t r = read(fd, b + n, alloc - n);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      int e = errno;
      nn_errbuf_set(err, errsz, "%s: cannot read: %s", name, strerror(e));
      free(b);
      errno = e;
      return -1;
    }
    if (r == 0) {
      b[n] = 0;
      *buf = b;
      *len = n;
      return 0;
    }
    n += (size_t)r;
  }
  char lim[32];
  limit_text(cap, lim, sizeof lim);
  nn_errbuf_set(err, errsz, "%s: more than %s: refused", name, lim);
  free(b);
  errno = EFBIG;
  return -1;
}

/* Drops the leading "PATH: " of a message for NN_FILE_BARE. */
static void strip_name(const char *path, int flags, char *err, size_t errsz) {
  size_t n = strlen(path);
  if (!(flags & NN_FILE_BARE) || !err || !errsz || strncmp(err, path, n) ||
      strncmp(err + n, ": ", 2))
    return;
  memmove(err, err + n + 2, strlen(err + n + 2) + 1);
}

int nn_file_read(int dirfd, const char *path, int flags, size_t cap, char **buf, size_t *len,
                 char *err, size_t errsz) {
  *buf = NULL;
  *len = 0;
  int fd = nn_file_open(dirfd, path, flags, cap, err, errsz);
  int rc = fd < 0 ? (errno == ENOENT && (flags & NN_FILE_MISSING_OK) ? 1 : -1)
                  : nn_file_read_fd(fd, path ? path : "", cap, buf, len, err, errsz);
  int e = errno;
  if (fd >= 0) close(fd);
  if (rc < 0 && path) strip_name(path, flags, err, errsz);
  errno = e;
  return rc;
}

FILE *nn_file_fopen(const char *path, int flags, size_t cap) {
  int fd = nn_file_open(AT_FDCWD, path, flags, cap, NULL, 0);
  FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
  if (!f && fd >= 0) {
    int e = errno;
    close(fd);
    errno = e;
  }
  return f;
}
