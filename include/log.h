/*
 * log.h - messages of the plugin: through NCCL's logger when NCCL gave one, else to
 * stderr only when NCCL_DEBUG is set (env plugin v1 has no logger). Never call these
 * per collective: NCCL's logger takes a global mutex.
 */
#ifndef NCCL_NUMA_LOG_H
#define NCCL_NUMA_LOG_H

#include "nccl_abi.h"

/* One INFO line with the given NCCL subsystem flags (NN_NCCL_INIT, NN_NCCL_TUNING, ...). */
void nn_log_info(nn_ncclDebugLogger_t logger, unsigned long flags, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* One WARN line. */
void nn_log_warn(nn_ncclDebugLogger_t logger, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Appends one line (a JSON object, newline added) to `path`, opened O_APPEND without
 * following a final symlink, created 0600, in one write: whole or not at all (past
 * RLIMIT_FSIZE: EFBIG, no SIGXFSZ). Returns 0 or -1 with errno. */
int nn_log_append_line(const char *path, const char *line);

/* Appends `s` to the buffer at *len as a JSON string literal (quoted, escaped),
 * truncating safely at `size`. */
void nn_log_json_string(char *buf, size_t size, size_t *len, const char *s);

/* snprintf that appends at *len and never overflows. */
void nn_log_appendf(char *buf, size_t size, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
