/* SPDX-License-Identifier: BSD-3-Clause */
/* log.c - one formatting path for NCCL's logger and for stderr. */
#include "ascii.h"
#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fdio.h"

__attribute__((format(printf, 4, 0)))
static void emit(const struct nn_logger *logger, int level, unsigned subsys, const char *fmt, va_list ap) {
  char msg[1024];
  vsnprintf(msg, sizeof msg, fmt, ap);
  if (logger && logger->line) {
    logger->line(logger, level, subsys, msg);
    return;
  }
  const char *debug = getenv("NCCL_DEBUG");
  if (!debug || !*debug) return;
  if (level == NN_LOG_INFO && !nn_ascii_caseeq(debug, "INFO") && !nn_ascii_caseeq(debug, "TRACE")) return;
  fprintf(stderr, "nccl-numa %s: %s\n", level == NN_LOG_WARN ? "WARN" : "INFO", msg);
}

void nn_log_info(const struct nn_logger *logger, unsigned subsys, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  emit(logger, NN_LOG_INFO, subsys, fmt, ap);
  va_end(ap);
}

void nn_log_warn(const struct nn_logger *logger, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  emit(logger, NN_LOG_WARN, NN_LOG_INIT, fmt, ap);
  va_end(ap);
}

int nn_log_append_line(const char *path, const char *line) {
  int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0600);
  if (fd < 0) return -1;
  size_t n = strlen(line);
  char *buf = malloc(n + 1);
  if (!buf) { close(fd); errno = ENOMEM; return -1; }
  memcpy(buf, line, n);
  buf[n] = '\n';
  /* One write() per record: O_APPEND keeps records of concurrent processes whole; past the
   * file-size limit nothing is written (EFBIG), never a part of the line, never SIGXFSZ. */
  int rc = nn_fd_write_all(fd, buf, n + 1);
  int saved = errno;
  free(buf);
  close(fd);
  errno = saved;
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

void nn_log_json_string(char *buf, size_t size, size_t *len, const char *s) {
  nn_log_appendf(buf, size, len, "\"");
  for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
    if (*p == '"' || *p == '\\') nn_log_appendf(buf, size, len, "\\%c", *p);
    else if (*p < 0x20) nn_log_appendf(buf, size, len, "\\u%04x", *p);
    else nn_log_appendf(buf, size, len, "%c", *p);
  }
  nn_log_appendf(buf, size, len, "\"");
}
