/* SPDX-License-Identifier: BSD-3-Clause */
/* log.c - one formatting path for NCCL's logger and for stderr. */
#include "ascii.h"
#include "log.h"

#include "jsonstr.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "errbuf.h"
#include "fdio.h"
#include "fileread.h"
#include "printable.h"

/* Where a line was made. */
struct origin {
  const char *file;
  int line;
};

__attribute__((format(printf, 5, 0))) static void emit(const struct nn_logger *logger,
                                                       struct origin at, int level, unsigned subsys,
                                                       const char *fmt, va_list ap) {
  char raw[1024], msg[2048];
  vsnprintf(raw, sizeof raw, fmt, ap);
  /* Names and values from files reach here: no byte may reach NCCL's log or a terminal raw. */
  nn_printable(msg, sizeof msg, raw, NN_PRINTABLE_CSTR, NULL);
  if (logger && logger->line_at) {
    logger->line_at(logger, level, subsys, at.file, at.line, msg);
    return;
  }
  if (logger && logger->line) {
    logger->line(logger, level, subsys, msg);
    return;
  }
  const char *debug = getenv("NCCL_DEBUG");
  if (!debug || !*debug) return;
  if (level == NN_LOG_INFO && !nn_ascii_caseeq(debug, "INFO") && !nn_ascii_caseeq(debug, "TRACE"))
    return;
  /* the messages name the plugin for NCCL's log ("nccl-numa: ..."); a WARN's prefix here does
   * (INFO lines keep it: the GPU kit reads them after "nccl-numa INFO: ", test/gpu/nclog.c) */
  const char *text = level == NN_LOG_WARN && !strncmp(msg, "nccl-numa: ", 11) ? msg + 11 : msg;
  fprintf(stderr, "nccl-numa %s: %s\n", level == NN_LOG_WARN ? "WARN" : "INFO", text);
}

void nn_log_info_at(const struct nn_logger *logger, const char *file, int line, unsigned subsys,
                    const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  emit(logger, (struct origin){file, line}, NN_LOG_INFO, subsys, fmt, ap);
  va_end(ap);
}

void nn_log_warn_at(const struct nn_logger *logger, const char *file, int line, const char *fmt,
                    ...) {
  va_list ap;
  va_start(ap, fmt);
  emit(logger, (struct origin){file, line}, NN_LOG_WARN, NN_LOG_INIT, fmt, ap);
  va_end(ap);
}

/* The directory holding path's last component, reached from / (or the working directory)
 * one component at a time with O_NOFOLLOW|O_DIRECTORY, so no symbolic link is followed
 * anywhere: a parent that another user made a link (to root's home, say) is refused, not
 * walked. *leaf gets the last component, inside buf (a copy of path). Returns an O_PATH
 * descriptor, or -1 with "PATH: problem" in err. */
static int log_open_parent(const char *path, char *buf, size_t bufsz, const char **leaf, char *err,
                           size_t errsz) {
  size_t n = strlen(path);
  if (!n || n >= bufsz || path[n - 1] == '/') {
    nn_errbuf_set(err, errsz, "%s: %s", path,
                  !n           ? "empty path"
                  : n >= bufsz ? "path too long"
                               : "names a directory");
    return -1;
  }
  memcpy(buf, path, n + 1);
  int dfd = open(buf[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
  char *p = buf;
  while (dfd >= 0) {
    while (*p == '/') p++;
    char *slash = strchr(p, '/');
    if (!slash) break;
    *slash = 0;
    int next = openat(dfd, p, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int e = errno;
    struct stat st;
    int is_link = next < 0 && !fstatat(dfd, p, &st, AT_SYMLINK_NOFOLLOW) && S_ISLNK(st.st_mode);
    close(dfd);
    if (next < 0) {
      nn_errbuf_set(
        err, errsz, "%s: %.*s %s", path, (int)(slash - buf), path,
        is_link ? "is a symbolic link: refused (name the file without links)" : strerror(e));
      return -1;
    }
    dfd = next;
    p = slash + 1;
  }
  if (dfd < 0) nn_errbuf_set(err, errsz, "%s: %s", path, strerror(errno));
  *leaf = p;
  return dfd;
}

/* Why an open log file must not get records, or NULL: only a regular file of ours that
 * nobody else can write (or has linked elsewhere) may hold what `check --compare` trusts. */
static const char *log_untrusted(const struct stat *st, char *why, size_t whysz) {
  if (!S_ISREG(st->st_mode))
    snprintf(why, whysz, "%s, not a regular file", nn_file_kind(st->st_mode));
  else if (st->st_uid != geteuid())
    snprintf(why, whysz, "owned by uid %u, not by uid %u", (unsigned)st->st_uid,
             (unsigned)geteuid());
  else if (st->st_mode & 022)
    snprintf(why, whysz, "mode %04o lets others write it", (unsigned)(st->st_mode & 07777));
  else if (st->st_nlink != 1) snprintf(why, whysz, "%lu hard links", (unsigned long)st->st_nlink);
  else return NULL;
  return why;
}

/* Opens dfd/leaf for appending: an existing file only when log_untrusted passes (a FIFO or
 * device is refused before it is opened), else created 0600. Returns the descriptor, -1
 * (errno, err) when it cannot be opened, or NN_LOG_REFUSED (err). */
static int log_open_leaf(int dfd, const char *leaf, const char *path, char *err, size_t errsz) {
  const int flags = O_WRONLY | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
  char why[128];
  struct stat st;
  int fd, created = 0;
  if (!fstatat(dfd, leaf, &st, AT_SYMLINK_NOFOLLOW)) {
    if (log_untrusted(&st, why, sizeof why)) {
      nn_errbuf_set(err, errsz, "%s: %s: refused", path, why);
      return NN_LOG_REFUSED;
    }
    fd = openat(dfd, leaf, flags);
  } else {
    fd = errno == ENOENT ? openat(dfd, leaf, flags | O_CREAT | O_EXCL, 0600) : -1;
    created = fd >= 0;
  }
  if (fd < 0) {
    nn_errbuf_set(err, errsz, "%s: %s", path, strerror(errno));
    return -1;
  }
  /* fchmod: the creation mode went through the umask; fstat: it may have been swapped. */
  const char *bad = (created && fchmod(fd, 0600)) || fstat(fd, &st)
                      ? strerror(errno)
                      : log_untrusted(&st, why, sizeof why);
  if (bad) {
    nn_errbuf_set(err, errsz, "%s: %s: refused", path, bad);
    close(fd);
    return NN_LOG_REFUSED;
  }
  return fd;
}

int nn_log_append_line(const char *path, const char *line, size_t len, char *err, size_t errsz) {
  if (len == 0 || line[len - 1] != '\n') {
    nn_errbuf_set(err, errsz, "%s: a record must end its line", path);
    return -1;
  }
  char buf[4096];
  const char *leaf = NULL;
  int dfd = log_open_parent(path, buf, sizeof buf, &leaf, err, errsz);
  if (dfd < 0) return NN_LOG_REFUSED;
  int fd = log_open_leaf(dfd, leaf, path, err, errsz);
  close(dfd);
  if (fd < 0) return fd;
  /* One write() per record: O_APPEND keeps records of concurrent processes whole; past the
   * file-size limit nothing is written (EFBIG), never a part of the line, never SIGXFSZ. */
  int rc = nn_fdio_write_all(fd, line, len);
  if (rc) nn_errbuf_set(err, errsz, "%s: %s", path, strerror(errno));
  close(fd);
  return rc;
}

void nn_log_appendf(char *buf, size_t size, size_t *len, const char *fmt, ...) {
  if (*len >= size) return;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf + *len, size - *len, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  *len += (size_t)n < size - *len ? (size_t)n : size - *len - 1;
}

struct log_buf {
  char *buf;
  size_t size, *len;
};

static void put_log(void *ctx, const char *bytes, size_t n) {
  struct log_buf *b = ctx;
  nn_log_appendf(b->buf, b->size, b->len, "%.*s", (int)n, bytes);
}

void nn_log_json_string(char *buf, size_t size, size_t *len, const char *s) {
  struct log_buf b = {buf, size, len};
  nn_json_string(put_log, &b, s);
}
