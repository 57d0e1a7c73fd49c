/* SPDX-License-Identifier: BSD-3-Clause */
/* trust.c - who may have written a configuration file, judged before it is opened (trust.h). */
#include "trust.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "errbuf.h"
#include "fileread.h"

#define WHY_MAX (PATH_MAX + 256)

/* Where a walk stands, and what it has found so far. */
struct walk {
  uid_t euid;
  int fd;                  /* O_PATH descriptor of the current directory */
  int fd_borrowed;         /* fd is the cache's: never closed here */
  int shared;              /* the current directory is writable by others (sticky) */
  uid_t dir_uid;           /* the current directory's owner */
  char shown[PATH_MAX];    /* its path as resolved, for messages */
  char rest[2 * PATH_MAX]; /* what is left to walk */
  int links;
  long *budget;
  int optout;    /* NCCL_NUMA_ALLOW_UNTRUSTED=1 */
  int untrusted; /* a reason is in why (only ever read on with optout) */
  char why[WHY_MAX];
  int err;              /* errno of a failure to walk or open (0: none) */
  char errwhy[WHY_MAX]; /* its words, when not strerror(err) */
};

static const char *owners(uid_t euid, char *buf, size_t size) {
  if (euid == 0) return "root";
  snprintf(buf, size, "uid %u or root", (unsigned)euid);
  return buf;
}

static const char *writers(mode_t mode) {
  if ((mode & 022) == 022) return "group and others";
  return mode & 020 ? "group" : "others";
}

static int ours(const struct walk *s, uid_t uid) { return uid == 0 || uid == s->euid; }

/* Records a reason not to trust; returns 0 to walk on (opted out), -1 to stop. */
__attribute__((format(printf, 2, 3))) static int distrust(struct walk *s, const char *fmt, ...) {
  if (!s->untrusted) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->why, sizeof s->why, fmt, ap);
    va_end(ap);
    s->untrusted = 1;
  }
  return s->optout ? 0 : -1;
}

/* A failure to walk or open; always stops. */
static int fail(struct walk *s, int e, const char *words) {
  s->err = e ? e : EIO;
  snprintf(s->errwhy, sizeof s->errwhy, "%s", words ? words : strerror(s->err));
  return -1;
}

/* A directory on a read-only mount: nobody can add, rename or remove an entry in it through
 * this mount, whatever its mode (a Kubernetes configMap volume: an emptyDir of mode 0777,
 * mounted read-only). Making it writable again takes root. */
static int read_only_mount(int fd) {
  struct statvfs vfs;
  return fstatvfs(fd, &vfs) == 0 && (vfs.f_flag & ST_RDONLY);
}

static int judge_dir(struct walk *s, const struct stat *st) {
  char who[48];
  s->shared = (st->st_mode & 022) != 0 && !read_only_mount(s->fd);
  s->dir_uid = st->st_uid;
  if (!ours(s, st->st_uid))
    return distrust(s, "directory %s is owned by uid %u (only %s may own it)", s->shown,
                    (unsigned)st->st_uid, owners(s->euid, who, sizeof who));
  if (s->shared && !(st->st_mode & S_ISVTX))
    return distrust(s, "directory %s is writable by %s (mode %04o)", s->shown, writers(st->st_mode),
                    (unsigned)(st->st_mode & 07777));
  return 0;
}

/* A link or file in a directory others can write is safe only when its owner alone (or
 * root) can replace it there: root's or the user's. */
static int judge_link(struct walk *s, const char *name, const struct stat *st) {
  char who[48];
  if (!s->shared || ours(s, st->st_uid)) return 0;
  return distrust(
    s,
    "symbolic link %s/%s is owned by uid %u and lies in directory %s, which others can write "
    "(only a link of %s is followed there)",
    strcmp(s->shown, "/") ? s->shown : "", name, (unsigned)st->st_uid, s->shown,
    owners(s->euid, who, sizeof who));
}

/* A file in a directory others can write may have been renamed there by any of them, from
 * a directory of theirs holding a file of root's or the user's (rename(2) is not bound by
 * the sticky bit at the target, nor by fs.protected_regular): only a directory of the user's
 * own and a file of the user's own (no other user has it to move) are taken. For root no
 * such directory counts: root's files lie in everybody's directories. */
static int judge_shared_file(struct walk *s, const struct stat *st) {
  if (!s->shared || (s->euid != 0 && s->dir_uid == s->euid && st->st_uid == s->euid)) return 0;
  if (s->euid != 0 && s->dir_uid == s->euid)
    return distrust(
      s,
      "owned by uid %u and lies in directory %s, which others can write (only a file of "
      "uid %u is read there)",
      (unsigned)st->st_uid, s->shown, (unsigned)s->euid);
  return distrust(s,
                  "lies in directory %s, which others can write, so another user may have put it "
                  "there (keep it in a directory only %s can write)",
                  s->shown, s->euid == 0 ? "root" : "you or root");
}

static int judge_file(struct walk *s, const struct stat *st) {
  char who[48];
  if (!ours(s, st->st_uid))
    return distrust(s, "owned by uid %u (only %s may own it)", (unsigned)st->st_uid,
                    owners(s->euid, who, sizeof who));
  if (st->st_mode & 022)
    return distrust(s, "writable by %s (mode %04o)", writers(st->st_mode),
                    (unsigned)(st->st_mode & 07777));
  if (s->shared && st->st_nlink > 1)
    return distrust(s,
                    "the file has %lu hard links and lies in directory %s, which others can write",
                    (unsigned long)st->st_nlink, s->shown);
  return judge_shared_file(s, st);
}

static int budget_spent(struct walk *s) {
  if (!s->budget || *s->budget < 0) return 0;
  if (*s->budget == 0) return 1;
  --*s->budget;
  return 0;
}

static void enter(struct walk *s, int fd) {
  if (!s->fd_borrowed && s->fd >= 0) close(s->fd);
  s->fd = fd;
  s->fd_borrowed = 0;
}

static void shown_push(struct walk *s, const char *name) {
  size_t n = strlen(s->shown);
  if (!strcmp(name, "..")) {
    char *slash = strrchr(s->shown, '/');
    if (slash && slash != s->shown) *slash = 0;
    else strcpy(s->shown, "/");
  } else if (n + 1 + strlen(name) < sizeof s->shown) {
    snprintf(s->shown + n, sizeof s->shown - n, "%s%s", n > 1 ? "/" : "", name);
  }
}

static int go_to_root(struct walk *s) {
  int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) {
    int e = errno;
    if (fd >= 0) close(fd);
    return fail(s, e, NULL);
  }
  enter(s, fd);
  strcpy(s->shown, "/");
  return judge_dir(s, &st);
}

/* Puts the link's target before what is left to walk. */
static int follow(struct walk *s, int linkfd) {
  char target[PATH_MAX], joined[sizeof s->rest];
  ssize_t n = readlinkat(linkfd, "", target, sizeof target - 1);
  if (n <= 0) return fail(s, n < 0 ? errno : ENOENT, NULL);
  target[n] = 0;
  if (++s->links > NN_TRUST_MAX_LINKS) return fail(s, ELOOP, NULL);
  int w = snprintf(joined, sizeof joined, "%s%s%s", target, s->rest[0] ? "/" : "", s->rest);
  if (w < 0 || (size_t)w >= sizeof joined) return fail(s, ENAMETOOLONG, NULL);
  memcpy(s->rest, joined, (size_t)w + 1);
  return target[0] == '/' ? go_to_root(s) : 0;
}

/* Opens the judged regular file `name` of the current directory; -2 when the entry is
 * another file by now. */
static int open_file(struct walk *s, const char *name, const struct stat *judged, int *out) {
  int fd = openat(s->fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  struct stat st;
  if (fd < 0) return errno == ELOOP || errno == ENOENT ? -2 : fail(s, errno, NULL);
  if (fstat(fd, &st) != 0 || st.st_dev != judged->st_dev || st.st_ino != judged->st_ino) {
    close(fd);
    return -2;
  }
  *out = fd;
  return 0;
}

/* The last entry: a regular file, judged, then opened. */
static int last_entry(struct walk *s, const char *name, const struct stat *st, int *out) {
  if (!S_ISREG(st->st_mode)) {
    char words[64];
    snprintf(words, sizeof words, "%s, not a regular file", nn_file_kind(st->st_mode));
    return fail(s, S_ISDIR(st->st_mode) ? EISDIR : EINVAL, words);
  }
  if (judge_file(s, st)) return -1;
  return open_file(s, name, st, out);
}

/* Walks one entry `name` of the current directory (the last of the path when `last`). */
static int step(struct walk *s, const char *name, int last, int *out) {
  if (budget_spent(s))
    return fail(s, E2BIG, "too many directories and links to check for one configuration");
  int fd = openat(s->fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) {
    int e = errno;
    if (fd >= 0) close(fd);
    return fail(s, e, NULL);
  }
  if (S_ISLNK(st.st_mode)) {
    int rc = judge_link(s, name, &st);
    if (!rc) rc = follow(s, fd);
    close(fd);
    return rc;
  }
  if (!S_ISDIR(st.st_mode) || (last && !s->rest[0])) {
    close(fd);
    if (!last || s->rest[0]) return fail(s, ENOTDIR, NULL);
    return last_entry(s, name, &st, out);
  }
  enter(s, fd);
  shown_push(s, name);
  return judge_dir(s, &st);
}

/* Takes the next entry off s->rest into name (skipping "" and "."); 0 when none is left. */
static int next_name(struct walk *s, char *name, size_t size) {
  for (;;) {
    char *r = s->rest;
    size_t n = strcspn(r, "/");
    if (!n && !*r) return 0;
    int keep = n && !(n == 1 && r[0] == '.') && n < size;
    if (n >= size) return fail(s, ENAMETOOLONG, NULL), -1;
    if (keep) memcpy(name, r, n), name[n] = 0;
    memmove(r, r + n + (r[n] == '/'), strlen(r + n + (r[n] == '/')) + 1);
    if (keep) return 1;
  }
}

/* Walks all of s->rest; `last`: its final entry is the file to open. 0, -1, or -2 (replaced). */
static int walk_rest(struct walk *s, int last, int *out) {
  char name[NAME_MAX + 1];
  int more;
  while ((more = next_name(s, name, sizeof name)) == 1) {
    int rc = step(s, name, last, out);
    if (rc) return rc;
    if (*out >= 0) return 0;
  }
  if (more < 0) return -1;
  if (last) { /* the path named a directory ("dir/", "dir/.") */
    char words[64];
    snprintf(words, sizeof words, "%s, not a regular file", nn_file_kind(S_IFDIR));
    return fail(s, EISDIR, words);
  }
  return 0;
}

/* path made absolute against the working directory, then split at its last '/'. */
static int split_path(const char *path, char *dir, size_t dsize, char *base, size_t bsize) {
  char cwd[PATH_MAX];
  if (path[0] == '/') cwd[0] = 0;
  else if (!getcwd(cwd, sizeof cwd)) return -1;
  int n = snprintf(dir, dsize, "%s%s%s", cwd, cwd[0] && strcmp(cwd, "/") ? "/" : "", path);
  if (n < 0 || (size_t)n >= dsize) {
    errno = ENAMETOOLONG;
    return -1;
  }
  char *slash = strrchr(dir, '/');
  if (snprintf(base, bsize, "%s", slash + 1) >= (int)bsize) {
    errno = ENAMETOOLONG;
    return -1;
  }
  if (slash == dir) slash[1] = 0;
  else *slash = 0;
  return 0;
}

/* Starts at the cached directory when it is the one asked for; else walks `dir` from `/`
 * and caches it (when it was trusted on its own). */
static int walk_dir(struct walk *s, struct nn_trust_walk *w, const char *dir) {
  if (w->dir && w->dirfd >= 0 && !strcmp(w->dir, dir)) {
    s->fd = w->dirfd;
    s->fd_borrowed = 1;
    s->shared = w->dir_shared;
    s->dir_uid = w->dir_uid;
    snprintf(s->shown, sizeof s->shown, "%s", dir);
    return 0;
  }
  snprintf(s->rest, sizeof s->rest, "%s", dir + 1);
  int unused = -1;
  if (go_to_root(s) || walk_rest(s, 0, &unused)) return -1;
  if (s->untrusted) return 0;
  char *copy = strdup(dir);
  int fd = copy ? dup(s->fd) : -1;
  if (fd < 0) {
    free(copy);
    return 0;
  }
  if (w->dirfd >= 0) close(w->dirfd);
  free(w->dir);
  w->dir = copy;
  w->dirfd = fd;
  w->dir_shared = s->shared;
  w->dir_uid = s->dir_uid;
  return 0;
}

void nn_trust_walk_init(struct nn_trust_walk *w, uid_t euid, long budget) {
  *w = (struct nn_trust_walk){.euid = euid, .dirfd = -1, .budget = budget};
}

void nn_trust_walk_end(struct nn_trust_walk *w) {
  if (w->dirfd >= 0) close(w->dirfd);
  free(w->dir);
  w->dir = NULL;
  w->dirfd = -1;
}

static int walk_path(struct walk *s, struct nn_trust_walk *w, const char *path, int *fd) {
  char dir[PATH_MAX], base[NAME_MAX + 1];
  if (split_path(path, dir, sizeof dir, base, sizeof base)) return fail(s, errno, NULL);
  if (walk_dir(s, w, dir)) return -1;
  snprintf(s->rest, sizeof s->rest, "%s", base);
  return walk_rest(s, 1, fd);
}

static int verdict(struct walk *s, const char *path, int rc, int fd, char *err, size_t errsz) {
  if (rc == -2) {
    nn_errbuf_set(err, errsz, "%s: replaced while being checked", path);
    return NN_TRUST_REPLACED;
  }
  if (s->err) {
    nn_errbuf_set(err, errsz, "%s: cannot open: %s", path, s->errwhy);
    errno = s->err;
    return NN_TRUST_ERROR;
  }
  if (s->untrusted && s->optout && fd >= 0) {
    nn_errbuf_set(err, errsz,
                  "%s: not trusted: %s; read anyway because %s=1 is set (for development only)",
                  path, s->why, NN_TRUST_OPTOUT_ENV);
    return NN_TRUST_OPTED_OUT;
  }
  if (s->untrusted) {
    nn_errbuf_set(err, errsz, "%s: not trusted: %s", path, s->why);
    return NN_TRUST_REFUSED;
  }
  return NN_TRUST_OK;
}

int nn_trust_open(struct nn_trust_walk *w, const char *path, int *fd, char *err, size_t errsz) {
  struct nn_trust_walk own = {.dirfd = -1}; /* set by nn_trust_walk_init when used */
  struct walk *s = calloc(1, sizeof *s);
  *fd = -1;
  if (err && errsz) err[0] = 0;
  if (!s) {
    nn_errbuf_set(err, errsz, "%s: cannot open: out of memory", path);
    errno = ENOMEM;
    return NN_TRUST_ERROR;
  }
  if (!w) nn_trust_walk_init(w = &own, geteuid(), -1);
  const char *optout = getenv(NN_TRUST_OPTOUT_ENV);
  *s = (struct walk){
    .euid = w->euid, .fd = -1, .budget = &w->budget, .optout = optout && !strcmp(optout, "1")};
  int rc = path && *path ? walk_path(s, w, path, fd) : fail(s, ENOENT, "no file name");
  if (rc && *fd >= 0) {
    close(*fd);
    *fd = -1;
  }
  int result = verdict(s, path && *path ? path : "(empty path)", rc, *fd, err, errsz);
  if (result != NN_TRUST_OK && result != NN_TRUST_OPTED_OUT && *fd >= 0) {
    close(*fd);
    *fd = -1;
  }
  int e = errno;
  enter(s, -1);
  free(s);
  if (w == &own) nn_trust_walk_end(&own);
  errno = e;
  return result;
}

int nn_trust_walk_stat(const struct nn_trust_walk *w, const char *path, struct stat *st) {
  char dir[PATH_MAX], base[NAME_MAX + 1];
  if (w && w->dir && w->dirfd >= 0 && !split_path(path, dir, sizeof dir, base, sizeof base) &&
      base[0] && !strcmp(dir, w->dir))
    return fstatat(w->dirfd, base, st, 0);
  return stat(path, st);
}

int nn_trust_open_as(const char *path, uid_t euid, int *fd, char *err, size_t errsz) {
  struct nn_trust_walk w;
  nn_trust_walk_init(&w, euid, -1);
  int rc = nn_trust_open(&w, path, fd, err, errsz);
  nn_trust_walk_end(&w);
  return rc;
}

int nn_trust_fd(int fd, const char *path, char *err, size_t errsz) {
  int mine;
  int rc = nn_trust_open(NULL, path, &mine, err, errsz);
  if (rc != NN_TRUST_OK && rc != NN_TRUST_OPTED_OUT) return rc;
  struct stat a, b;
  int same =
    fstat(fd, &a) == 0 && fstat(mine, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
  close(mine);
  if (same) return rc;
  nn_errbuf_set(err, errsz,
                "%s: the path no longer names the file opened (it was replaced meanwhile)", path);
  return NN_TRUST_REPLACED;
}
