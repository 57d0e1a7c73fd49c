/*
 * errbuf.h - the caller's error buffer: functions that fail take `char *err,
 * size_t errsz` and describe the problem there instead of printing it.
 */
#ifndef NCCL_NUMA_ERRBUF_H
#define NCCL_NUMA_ERRBUF_H

#include <stddef.h>

/* Formats a message into err (at most errsz bytes, always terminated, cut
 * short when longer). Does nothing when err is NULL or errsz is 0. */
void nn_errbuf_set(char *err, size_t errsz, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
