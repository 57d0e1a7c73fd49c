/* SPDX-License-Identifier: BSD-3-Clause */
/* trust.c - who may have written a configuration file (trust.h). */
#include "trust.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "errbuf.h"
#include "fileread.h"

/* For whom the check is made, and what of the file the directories' verdict depends on. */
struct who {
  uid_t euid;
  int owns_file;
  nlink_t links;
};

static const char *owners(const struct who *w, char *buf, size_t size) {
  if (w->euid == 0) return "root";
  snprintf(buf, size, "uid %u or root", (unsigned)w->euid);
  return buf;
}

static const char *writers(mode_t mode) {
  if ((mode & 022) == 022) return "group and others";
  return mode & 020 ? "group" : "others";
}

/* One directory on the way to the file (`parent`: the one holding it): 0, or -1 with the
 * reason in why. */
static int check_dir(const char *dir, int parent, const struct who *w, char *why, size_t whysz) {
  struct stat st;
  char who[48];
  if (stat(dir, &st) != 0) {
    nn_errbuf_set(why, whysz, "cannot check directory %s: %s", dir, strerror(errno));
    return -1;
  }
  if (!S_ISDIR(st.st_mode)) {
    nn_errbuf_set(why, whysz, "%s is not a directory", dir);
    return -1;
  }
  if (st.st_uid != w->euid && st.st_uid != 0) {
    nn_errbuf_set(why, whysz, "directory %s is owned by uid %u (only %s may own it)", dir,
                  (unsigned)st.st_uid, owners(w, who, sizeof who));
    return -1;
  }
  if (!(st.st_mode & 022)) return 0;
  /* Anyone may have made a second name there for a file of ours (a hard link, where
   * fs.protected_hardlinks is off): the name need not be the one we meant. */
  if ((st.st_mode & S_ISVTX) && w->owns_file && parent && w->links > 1) {
    nn_errbuf_set(why, whysz, "the file has %lu hard links and lies in directory %s, which others can "
                  "write (mode %04o)", (unsigned long)w->links, dir, (unsigned)(st.st_mode & 07777));
    return -1;
  }
  if ((st.st_mode & S_ISVTX) && w->owns_file) return 0;
  if (st.st_mode & S_ISVTX)
    nn_errbuf_set(why, whysz, "directory %s is writable by %s (mode %04o; sticky, which protects only a "
                  "file of uid %u there)", dir, writers(st.st_mode), (unsigned)(st.st_mode & 07777),
                  (unsigned)w->euid);
  else
    nn_errbuf_set(why, whysz, "directory %s is writable by %s (mode %04o)", dir, writers(st.st_mode),
                  (unsigned)(st.st_mode & 07777));
  return -1;
}

/* Every directory above the last component of the absolute path `abs`, from `/` down:
 * each prefix as open resolves it, so a link on the way is judged by where it leads and
 * the directory holding it by the prefix before. */
static int check_dirs(const char *abs, const struct who *w, char *why, size_t whysz) {
  char prefix[PATH_MAX];
  size_t n = strlen(abs);
  if (n >= sizeof prefix) {
    nn_errbuf_set(why, whysz, "path too long to check");
    return -1;
  }
  memcpy(prefix, abs, n + 1);
  if (check_dir("/", !strchr(abs + 1, '/'), w, why, whysz)) return -1;
  for (char *s = prefix + 1; (s = strchr(s, '/')); s++) {
    *s = 0;
    int rc = check_dir(prefix, !strchr(s + 1, '/'), w, why, whysz);
    *s = '/';
    if (rc) return -1;
  }
  return 0;
}

static int check_file(const struct stat *st, const struct who *w, char *why, size_t whysz) {
  char who[48];
  if (!S_ISREG(st->st_mode)) {
    nn_errbuf_set(why, whysz, "%s, not a regular file", nn_file_kind(st->st_mode));
    return -1;
  }
  if (!w->owns_file && st->st_uid != 0) {
    nn_errbuf_set(why, whysz, "owned by uid %u (only %s may own it)", (unsigned)st->st_uid,
                  owners(w, who, sizeof who));
    return -1;
  }
  if (st->st_mode & 022) {
    nn_errbuf_set(why, whysz, "writable by %s (mode %04o)", writers(st->st_mode),
                  (unsigned)(st->st_mode & 07777));
    return -1;
  }
  return 0;
}

/* The path as given, made absolute against the working directory. */
static int absolute(const char *path, char *buf, size_t size, char *why, size_t whysz) {
  char cwd[PATH_MAX];
  if (path[0] == '/') cwd[0] = 0;
  else if (!getcwd(cwd, sizeof cwd)) {
    nn_errbuf_set(why, whysz, "cannot find the working directory: %s", strerror(errno));
    return -1;
  }
  if (snprintf(buf, size, "%s%s%s", cwd, cwd[0] ? "/" : "", path) >= (int)size) {
    nn_errbuf_set(why, whysz, "path too long to check");
    return -1;
  }
  return 0;
}

/* 0 trusted, -1 with the reason in why, -2 when the path names another file than fd by now
 * (replaced, as by a rename, since the open: the directories checked are not the file's). The
 * identity is taken first, so that a replacement can only fall between the open and it. */
static int judge(int fd, const char *path, const struct who *base, char *why, size_t whysz) {
  struct stat st, named;
  char abs[PATH_MAX], real[PATH_MAX];
  struct who w = *base;
  if (fstat(fd, &st) != 0) {
    nn_errbuf_set(why, whysz, "cannot check the opened file: %s", strerror(errno));
    return -1;
  }
  if (!realpath(path, real) || stat(real, &named) != 0) {
    nn_errbuf_set(why, whysz, "cannot resolve the path: %s", strerror(errno));
    return errno == ENOENT ? -2 : -1;   /* renamed away, maybe to be replaced */
  }
  if (named.st_dev != st.st_dev || named.st_ino != st.st_ino) {
    nn_errbuf_set(why, whysz, "the path no longer names the file opened (it was replaced meanwhile)");
    return -2;
  }
  w.owns_file = st.st_uid == w.euid;
  w.links = st.st_nlink;
  if (check_file(&st, &w, why, whysz) || absolute(path, abs, sizeof abs, why, whysz) ||
      check_dirs(abs, &w, why, whysz))
    return -1;
  return strcmp(abs, real) ? check_dirs(real, &w, why, whysz) : 0;
}

int nn_trust_fd_as(int fd, const char *path, uid_t euid, char *err, size_t errsz) {
  char why[PATH_MAX + 160];
  struct who w = {.euid = euid};
  if (err && errsz) err[0] = 0;
  int verdict = judge(fd, path, &w, why, sizeof why);
  if (verdict == 0) return NN_TRUST_OK;
  if (verdict == -2) {
    nn_errbuf_set(err, errsz, "%s: %s", path, why);
    return NN_TRUST_REPLACED;
  }
  const char *optout = getenv(NN_TRUST_OPTOUT_ENV);
  if (optout && !strcmp(optout, "1")) {
    nn_errbuf_set(err, errsz, "%s: not trusted: %s; read anyway because %s=1 is set (for development "
                  "only)", path, why, NN_TRUST_OPTOUT_ENV);
    return NN_TRUST_OPTED_OUT;
  }
  nn_errbuf_set(err, errsz, "%s: not trusted: %s", path, why);
  return NN_TRUST_REFUSED;
}

int nn_trust_fd(int fd, const char *path, char *err, size_t errsz) {
  return nn_trust_fd_as(fd, path, geteuid(), err, errsz);
}
