/* SPDX-License-Identifier: BSD-3-Clause */
/* privdir.c - the private per-user directory and atomic content-addressed files. */
#include "privdir.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "errbuf.h"
#include "fdio.h"

uint64_t nn_privdir_hash(const void *data, size_t len) {
  const unsigned char *p = data;
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < len; i++) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

/* An environment value usable as a base directory: set and absolute. */
static const char *nn_pd_abs_env(const char *name) {
  const char *v = getenv(name);
  return v && v[0] == '/' ? v : NULL;
}

/* Length of `dir` without trailing slashes (but "/" stays "/"). */
static size_t nn_pd_trim(const char *dir) {
  size_t n = strlen(dir);
  while (n > 1 && dir[n - 1] == '/') n--;
  return n;
}

int nn_privdir_path(char *buf, size_t size, char *err, size_t errsz) {
  const char *xdg = nn_pd_abs_env("XDG_RUNTIME_DIR");
  int w;
  if (xdg) {
    size_t n = nn_pd_trim(xdg);
    w = snprintf(buf, size, "%.*s/nccl-numa", (int)(n == 1 ? 0 : n), xdg);
  } else {
    const char *tmp = nn_pd_abs_env("TMPDIR");
    if (!tmp) tmp = "/tmp";
    size_t n = nn_pd_trim(tmp);
    w = snprintf(buf, size, "%.*s/nccl-numa-%u", (int)(n == 1 ? 0 : n), tmp, (unsigned)geteuid());
  }
  if (w < 0 || (size_t)w >= size) {
    nn_errbuf_set(err, errsz, "private directory path too long");
    return -1;
  }
  return 0;
}

/* Refuses a directory that someone else could write into or swap; gives our own
 * directory exactly 0700 (mkdir's mode went through the umask: 0277 made it 0500, and
 * such a directory of ours is repaired rather than failing every later run). */
static int nn_pd_check_dir(int fd, const char *dir, char *err, size_t errsz) {
  struct stat st;
  if (fstat(fd, &st)) {
    nn_errbuf_set(err, errsz, "%s: cannot stat: %s", dir, strerror(errno));
    return -1;
  }
  if (!S_ISDIR(st.st_mode)) {
    nn_errbuf_set(err, errsz, "%s: not a directory: refused", dir);
    return -1;
  }
  if (st.st_uid != geteuid()) {
    nn_errbuf_set(err, errsz, "%s: owned by uid %u, not by uid %u: refused", dir,
                  (unsigned)st.st_uid, (unsigned)geteuid());
    return -1;
  }
  if (st.st_mode & 077) {
    nn_errbuf_set(err, errsz, "%s: mode %04o gives group/other access (must be 0700): refused", dir,
                  (unsigned)(st.st_mode & 07777));
    return -1;
  }
  if ((st.st_mode & 07777) != 0700 &&
      (fchmod(fd, 0700) || fstat(fd, &st) || (st.st_mode & 07777) != 0700)) {
    nn_errbuf_set(err, errsz, "%s: mode %04o, and it cannot be made 0700: %s", dir,
                  (unsigned)(st.st_mode & 07777), strerror(errno));
    return -1;
  }
  return 0;
}

int nn_privdir_open(const char *dir, char *err, size_t errsz) {
  if (!dir || dir[0] != '/') {
    nn_errbuf_set(err, errsz, "private directory '%s' is not an absolute path", dir ? dir : "");
    return -1;
  }
  if (mkdir(dir, 0700) && errno != EEXIST) {
    nn_errbuf_set(err, errsz, "%s: cannot create: %s", dir, strerror(errno));
    return -1;
  }
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    struct stat st;
    if (e == ELOOP || (!lstat(dir, &st) && S_ISLNK(st.st_mode)))
      nn_errbuf_set(err, errsz, "%s: is a symbolic link: refused", dir);
    else if (e == ENOTDIR) nn_errbuf_set(err, errsz, "%s: not a directory: refused", dir);
    else nn_errbuf_set(err, errsz, "%s: cannot open: %s", dir, strerror(e));
    return -1;
  }
  if (nn_pd_check_dir(fd, dir, err, errsz)) {
    close(fd);
    return -1;
  }
  return fd;
}

/* A read-only descriptor of dfd/name when it is our own regular 0600-style file
 * holding exactly data, else -1. */
static int nn_pd_open_same(int dfd, const char *name, const void *data, size_t len) {
  int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return -1;
  struct stat st;
  int same = !fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
             !(st.st_mode & 077) && (uintmax_t)st.st_size == (uintmax_t)len;
  const unsigned char *p = data;
  size_t off = 0;
  char chunk[8192];
  while (same && off < len) {
    size_t want = len - off < sizeof chunk ? len - off : sizeof chunk;
    ssize_t r = read(fd, chunk, want);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0 || memcmp(chunk, p + off, (size_t)r)) same = 0;
    else off += (size_t)r;
  }
  if (!same || lseek(fd, 0, SEEK_SET) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

/* Creates a fresh temporary file next to `name`; its name goes into tmp. */
static int nn_pd_open_temp(int dfd, const char *name, char *tmp, size_t tmpsz) {
  static atomic_uint seq;
  for (int tries = 0; tries < 1000; tries++) {
    unsigned n = atomic_fetch_add(&seq, 1u);
    int w = snprintf(tmp, tmpsz, ".%s.%ld.%u.tmp", name, (long)getpid(), n);
    if (w < 0 || (size_t)w >= tmpsz) return -1;
    int fd = openat(dfd, tmp, O_CREAT | O_EXCL | O_NOFOLLOW | O_WRONLY | O_CLOEXEC, 0600);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  errno = EEXIST;
  return -1;
}

/* Writes data under a temporary name and renames it to `name`. */
static int nn_pd_replace(int dfd, const char *dir, const char *name, const void *data, size_t len,
                         char *err, size_t errsz) {
  char tmp[NAME_MAX + 1];
  int fd = nn_pd_open_temp(dfd, name, tmp, sizeof tmp);
  if (fd < 0) {
    nn_errbuf_set(err, errsz, "%s: cannot create a temporary file: %s", dir, strerror(errno));
    return -1;
  }
  /* fchmod: the creation mode went through the umask, which may be odd. */
  int bad = nn_fdio_write_all(fd, data, len) || fchmod(fd, 0600);
  int e = errno;
  if (close(fd) && !bad) {
    bad = 1;
    e = errno;
  }
  if (!bad && renameat(dfd, tmp, dfd, name)) {
    bad = 1;
    e = errno;
  }
  if (bad) {
    unlinkat(dfd, tmp, 0);
    nn_errbuf_set(err, errsz, "%s/%s: cannot write: %s", dir, name, strerror(e));
    return -1;
  }
  return 0;
}

static int nn_pd_name_ok(const char *s) { return s && !strchr(s, '/') && strlen(s) <= 64; }

/* Stores into the open directory dfd (named dir): the content-addressed name, reused when
 * it already holds exactly data, else written and renamed into place. */
static int nn_pd_store_at(int dfd, const char *dir, const char *name, const void *data, size_t len,
                          int *fd_out, char *err, size_t errsz) {
  int fd = nn_pd_open_same(dfd, name, data, len);
  if (fd < 0) {
    if (nn_pd_replace(dfd, dir, name, data, len, err, errsz)) return -1;
    /* Read back what was written: the descriptor handed out is checked content. */
    if ((fd = nn_pd_open_same(dfd, name, data, len)) < 0) {
      nn_errbuf_set(err, errsz, "%s/%s: changed right after it was written", dir, name);
      return -1;
    }
  }
  if (fd_out) *fd_out = fd;
  else close(fd);
  return 0;
}

/* <prefix><hash><suffix> into name, and dir/name into out. */
static int nn_pd_names(const char *dir, const char *prefix, const char *suffix, const void *data,
                       size_t len, char *name, size_t namesz, char *out, size_t outsz, char *err,
                       size_t errsz) {
  if (!nn_pd_name_ok(prefix) || !nn_pd_name_ok(suffix) || (!data && len)) {
    nn_errbuf_set(err, errsz, "invalid file name parts");
    return -1;
  }
  snprintf(name, namesz, "%s%016" PRIx64 "%s", prefix, nn_privdir_hash(data, len), suffix);
  size_t dl = dir ? nn_pd_trim(dir) : 0;
  int w = snprintf(out, outsz, "%.*s/%s", (int)(dl == 1 ? 0 : dl), dir ? dir : "", name);
  if (w < 0 || (size_t)w >= outsz) {
    nn_errbuf_set(err, errsz, "path of %s too long", name);
    return -1;
  }
  return 0;
}

int nn_privdir_store(const char *dir, const char *prefix, const char *suffix, const void *data,
                     size_t len, char *out, size_t outsz, int *fd_out, char *err, size_t errsz) {
  if (fd_out) *fd_out = -1;
  char name[NAME_MAX + 1];
  int dfd = -1,
      rc = nn_pd_names(dir, prefix, suffix, data, len, name, sizeof name, out, outsz, err, errsz);
  if (!rc) rc = (dfd = nn_privdir_open(dir, err, errsz)) < 0 ? -1 : 0;
  if (!rc) rc = nn_pd_store_at(dfd, dir, name, data, len, fd_out, err, errsz);
  if (dfd >= 0) close(dfd);
  if (rc) out[0] = 0;
  return rc;
}

/* Whether the fallback has been announced in this process (one WARN, not one per store). */
static atomic_int g_pd_fallback_told;

/* The predictable directory was refused (someone else made it, a link, a bad mode): the
 * file goes into a fresh directory mkdtemp makes next to it, which nobody can have
 * prepared. The file and the directory are removed once the descriptor is open (it alone
 * is served), so a process leaves nothing behind however often this happens. */
static int nn_pd_store_fallback(const char *dir, const char *why, const void *data, size_t len,
                                char *out, size_t outsz, int *fd_out, char *note, size_t notesz,
                                char *err, size_t errsz) {
  char tmpl[PATH_MAX], name[NAME_MAX + 1];
  int w = snprintf(tmpl, sizeof tmpl, "%.*s.XXXXXX", (int)nn_pd_trim(dir), dir);
  if (w < 0 || (size_t)w >= sizeof tmpl || !mkdtemp(tmpl)) {
    nn_errbuf_set(err, errsz, "%s; and no fallback directory: %s", why,
                  w < 0 || (size_t)w >= sizeof tmpl ? "path too long" : strerror(errno));
    return -1;
  }
  int dfd = -1, fd = -1;
  int rc = nn_pd_names(tmpl, "topo-", ".xml", data, len, name, sizeof name, out, outsz, err, errsz);
  if (!rc) rc = (dfd = nn_privdir_open(tmpl, err, errsz)) < 0 ? -1 : 0;
  if (!rc) rc = nn_pd_store_at(dfd, tmpl, name, data, len, &fd, err, errsz);
  if (dfd >= 0) {
    unlinkat(dfd, name, 0);
    close(dfd);
  }
  rmdir(tmpl);
  if (rc) {
    out[0] = 0;
    return -1;
  }
  if (fd_out) *fd_out = fd;
  else close(fd);
  if (note && notesz && !atomic_exchange(&g_pd_fallback_told, 1))
    nn_errbuf_set(note, notesz,
                  "%s; this process writes its topology into a fresh unguessable "
                  "directory (%s.XXXXXX, 0700) instead, removed once the descriptor is open",
                  why, dir);
  return 0;
}

int nn_privdir_store_topo(const char *xml, size_t len, char *out, size_t outsz, int *fd_out,
                          char *note, size_t notesz, char *err, size_t errsz) {
  char dir[PATH_MAX], name[NAME_MAX + 1], why[PATH_MAX + 128];
  if (fd_out) *fd_out = -1;
  if (note && notesz) note[0] = 0;
  if (nn_privdir_path(dir, sizeof dir, err, errsz) ||
      nn_pd_names(dir, "topo-", ".xml", xml, len, name, sizeof name, out, outsz, err, errsz))
    return -1;
  int dfd = nn_privdir_open(dir, why, sizeof why);
  if (dfd < 0)
    return nn_pd_store_fallback(dir, why, xml, len, out, outsz, fd_out, note, notesz, err, errsz);
  int rc = nn_pd_store_at(dfd, dir, name, xml, len, fd_out, err, errsz);
  close(dfd);
  if (rc) out[0] = 0;
  return rc;
}
