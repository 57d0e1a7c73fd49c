/* SPDX-License-Identifier: BSD-3-Clause */
/* atomicwrite.c - replacing a file through a mkstemp file next to it; see atomicwrite.h. */
#include "cli/common/atomicwrite.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "errbuf.h"
#include "fdio.h"

/* The mode open(2) gives a new file asked for 0666. */
static mode_t default_mode(void) {
  mode_t mask = umask(0);
  umask(mask);
  return 0666 & ~mask;
}

/* Gives fd `like`'s owner, group and mode, asking only for what differs (a file system
 * that fixes them itself, as Proxmox's /etc/pve, is asked for nothing); after a chown,
 * which may clear set-id bits, the mode is set again. */
static int take_owner_mode(int fd, const struct stat *like) {
  struct stat now;
  mode_t want = like ? like->st_mode & 07777 : default_mode();
  if (fstat(fd, &now)) return -1;
  int chown_it = like && (now.st_uid != like->st_uid || now.st_gid != like->st_gid);
  if (chown_it && fchown(fd, like->st_uid, like->st_gid)) return -1;
  if ((chown_it || (now.st_mode & 07777) != want) && fchmod(fd, want)) return -1;
  return 0;
}

int nn_atomicwrite_file(const char *path, const void *data, size_t len, const struct stat *like,
                        char *err, size_t errsz) {
  size_t n = strlen(path) + sizeof ".XXXXXX";
  char *tmp = malloc(n);
  if (!tmp) {
    nn_errbuf_set(err, errsz, "%s: out of memory", path);
    return -1;
  }
  snprintf(tmp, n, "%s.XXXXXX", path);
  int fd = mkostemp(tmp, O_CLOEXEC);
  if (fd < 0) {
    nn_errbuf_set(err, errsz, "%s: cannot create a temporary file next to it: %s", path,
                  strerror(errno));
    free(tmp);
    return -1;
  }
  int rc = 0;
  if (take_owner_mode(fd, like)) {
    rc = -1;
    nn_errbuf_set(
      err, errsz,
      "%s: cannot give the new file the owner %ld:%ld and mode %04o: %s; nothing written", path,
      (long)(like ? like->st_uid : geteuid()), (long)(like ? like->st_gid : getegid()),
      (unsigned)(like ? like->st_mode & 07777 : default_mode()), strerror(errno));
  } else if (nn_fdio_write_all(fd, data, len) || fsync(fd)) {
    rc = -1;
    nn_errbuf_set(err, errsz, "%s: cannot write: %s", path, strerror(errno));
  }
  if (close(fd) && !rc) {
    rc = -1;
    nn_errbuf_set(err, errsz, "%s: cannot write: %s", path, strerror(errno));
  }
  if (!rc && rename(tmp, path)) {
    rc = -1;
    nn_errbuf_set(err, errsz, "%s: cannot replace it: %s", path, strerror(errno));
  }
  if (rc) unlink(tmp);
  free(tmp);
  return rc;
}
