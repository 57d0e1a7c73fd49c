/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * log.h - messages of the plugin, through the core's own logger type: the front ends
 * adapt NCCL's logger to it (plugin/abi/nccl_log.h), so the core knows no NCCL ABI.
 * Without a logger (env plugin v1 has none) messages go to stderr, only when NCCL_DEBUG
 * is set. Never call these per collective: NCCL's logger takes a global mutex.
 */
#ifndef NCCL_NUMA_LOG_H
#define NCCL_NUMA_LOG_H

#include <stddef.h>

/* How serious a line is. */
enum nn_log_level { NN_LOG_WARN = 1, NN_LOG_INFO = 2 };

/* Which part of the plugin speaks (a set of these; NCCL_DEBUG_SUBSYS filters INFO lines). */
enum nn_log_subsys { NN_LOG_INIT = 0x1, NN_LOG_ENV = 0x2, NN_LOG_TUNING = 0x4 };

/* Where lines go: `line` gets one finished message (no newline) with its level and
 * subsystems; `line_at`, when set, is called instead and also gets the file and line of the
 * nn_log_info / nn_log_warn that made it (NCCL prints them on WARN and TRACE lines). */
struct nn_logger {
  void (*line)(const struct nn_logger *self, int level, unsigned subsys, const char *msg);
  void (*line_at)(const struct nn_logger *self, int level, unsigned subsys, const char *file,
                  int line, const char *msg);
};

/* One INFO line for the given subsystems (NN_LOG_INIT, NN_LOG_TUNING, ...). NULL logger:
 * stderr when NCCL_DEBUG is INFO or TRACE. The caller's file and line go with it. */
#define nn_log_info(logger, subsys, ...) \
  nn_log_info_at((logger), __FILE__, __LINE__, (subsys), __VA_ARGS__)
void nn_log_info_at(const struct nn_logger *logger, const char *file, int line, unsigned subsys,
                    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* One WARN line (subsystem INIT). NULL logger: stderr when NCCL_DEBUG is set. */
#define nn_log_warn(logger, ...) nn_log_warn_at((logger), __FILE__, __LINE__, __VA_ARGS__)
void nn_log_warn_at(const struct nn_logger *logger, const char *file, int line, const char *fmt,
                    ...) __attribute__((format(printf, 4, 5)));

/* nn_log_append_line's answer for a path it will not write to. */
#define NN_LOG_REFUSED (-2)

/* Appends one line, the `len` bytes at `line` ending with its '\n' (a JSON object and its
 * newline, written where the caller formatted it: nothing is copied), to `path` in one
 * write: whole or not at all (past RLIMIT_FSIZE: EFBIG, no SIGXFSZ). The path is walked one
 * component at a time without following any symbolic link; the file must be a regular file owned by
 * the effective uid, not writable by group or others, with one link, or is created new
 * with mode 0600 (a FIFO or device is refused without being opened, so nothing blocks).
 * Returns 0; NN_LOG_REFUSED when the path or file is refused; -1 when it cannot be
 * opened or written (or the record does not end with '\n'); either way "PATH: reason" is in err. */
int nn_log_append_line(const char *path, const char *line, size_t len, char *err, size_t errsz);

/* Appends `s` to the buffer at *len as a JSON string literal (quoted, escaped; every
 * control character, DEL included, as \uNNNN, so a record stays one printable line),
 * truncating safely at `size`. */
void nn_log_json_string(char *buf, size_t size, size_t *len, const char *s);

/* snprintf that appends at *len and never overflows. */
void nn_log_appendf(char *buf, size_t size, size_t *len, const char *fmt, ...)
  __attribute__((format(printf, 4, 5)));

#endif
