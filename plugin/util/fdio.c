/* SPDX-License-Identifier: BSD-3-Clause */
/* fdio.c - whole-buffer I/O on file descriptors. */
#include "fdio.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Whether len bytes written at fd's position stay within RLIMIT_FSIZE: beyond it the
 * kernel writes what fits (a broken record), then fails with SIGXFSZ. */
static int fits_fsize_limit(int fd, size_t len) {
  struct rlimit rl;
  if (getrlimit(RLIMIT_FSIZE, &rl) || rl.rlim_cur == RLIM_INFINITY) return 1;
  struct stat st;
  if (fstat(fd, &st) || !S_ISREG(st.st_mode)) return 1; /* the limit is for regular files */
  int fl = fcntl(fd, F_GETFL);
  off_t at = fl >= 0 && (fl & O_APPEND) ? st.st_size : lseek(fd, 0, SEEK_CUR);
  if (at < 0) return 1;
  return (unsigned long long)at + len <= (unsigned long long)rl.rlim_cur;
}

static int write_loop(int fd, const char *p, size_t len) {
  while (len) {
    ssize_t w = write(fd, p, len);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return -1;
    p += w;
    len -= (size_t)w;
  }
  return 0;
}

int nn_fdio_write_all(int fd, const void *data, size_t len) {
  if (!fits_fsize_limit(fd, len)) {
    errno = EFBIG;
    return -1;
  }
  /* The check above can race with another writer of the same file: SIGXFSZ stays
   * blocked during the write, so it fails with EFBIG, and a SIGXFSZ the write raised
   * on this thread is taken off again before the old mask returns. */
  sigset_t xfsz, old, pending;
  sigemptyset(&xfsz);
  sigaddset(&xfsz, SIGXFSZ);
  int masked = pthread_sigmask(SIG_BLOCK, &xfsz, &old) == 0;
  int was_pending = masked && !sigpending(&pending) && sigismember(&pending, SIGXFSZ);
  int rc = write_loop(fd, data, len);
  int e = errno;
  if (masked) {
    if (!was_pending && !sigpending(&pending) && sigismember(&pending, SIGXFSZ)) {
      const struct timespec now = {0, 0};
      sigtimedwait(&xfsz, NULL, &now);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
  }
  errno = e;
  return rc;
}
