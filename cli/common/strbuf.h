/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * strbuf.h - a growing string for text built piece by piece (a rewritten config,
 * notes for the user). Writers never check each append: the first allocation failure
 * is remembered and nn_strbuf_take reports it once.
 */
#ifndef NCCL_NUMA_CLI_STRBUF_H
#define NCCL_NUMA_CLI_STRBUF_H

#include <stddef.h>

/* Zero-initialise before use; the text is always NUL-terminated once something was added. */
struct nn_strbuf {
  char *s;
  size_t len, cap;
  int oom; /* an append failed: the text is incomplete */
};

/* Appends printf-style; does nothing after an allocation failure. */
void nn_strbuf_printf(struct nn_strbuf *b, const char *fmt, ...)
  __attribute__((format(printf, 2, 3)));

/* Appends the n bytes at s (no NUL among them). */
void nn_strbuf_put(struct nn_strbuf *b, const char *s, size_t n);

/* Hands the text to the caller (free it) and resets b: "" when nothing was added, NULL
 * when an append ran out of memory. */
char *nn_strbuf_take(struct nn_strbuf *b);

#endif
