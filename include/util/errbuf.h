/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * errbuf.h - the caller's error buffer, the project's one way to report a failure
 * (docs/dev/architecture.md, "How errors are reported"): a function that can fail takes
 * `char *err, size_t errsz` and describes the problem there instead of printing it,
 * naming the input and line when there is one ("PATH:LINE: problem"), without the
 * program's name or a newline. Libraries never print; the commands (cli/cmd_*.c)
 * print the text as "nccl-numa CMD: ..." and choose the exit code. A parser that
 * reports every problem of a file uses struct nn_diag (nn_config.h) instead.
 */
#ifndef NCCL_NUMA_ERRBUF_H
#define NCCL_NUMA_ERRBUF_H

#include <stddef.h>

/* Formats a message into err (at most errsz bytes, always terminated, cut
 * short when longer). Does nothing when err is NULL or errsz is 0. */
void nn_errbuf_set(char *err, size_t errsz, const char *fmt, ...)
  __attribute__((format(printf, 3, 4)));

#endif
