/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * printable.h - text from outside (a file, hwloc, a log record, a VM config) made safe to
 * print on a terminal, to put in a log line and to write into a mapping comment.
 *
 * Only printable ASCII (0x20-0x7e) passes; every other byte is written as \xNN. That covers
 * newline and CR (a new line in a mapping or a log record), ESC and the C1 controls
 * (terminal sequences), BEL, DEL and NUL, and invalid UTF-8. Valid UTF-8 is escaped too:
 * the reader's locale is unknown, and Unicode has invisible and direction-changing
 * characters that make a line read as something else. Already-escaped text passes unchanged
 * (so a sink may escape again), unless `also` names the backslash.
 */
#ifndef NCCL_NUMA_PRINTABLE_H
#define NCCL_NUMA_PRINTABLE_H

#include <stddef.h>

/* The `len` of nn_printable for a NUL-terminated string. */
#define NN_PRINTABLE_CSTR ((size_t)-1)

/* Writes s[0..len) (up to its NUL when len is NN_PRINTABLE_CSTR; NULL: nothing) into out, escaped
 * as above, plus each byte of `also` (NULL: none) as \xNN: "\\" makes the result read back
 * unambiguously, "#" keeps a mapping comment from holding a marker. Never writes more than
 * outsz bytes and always terminates when outsz > 0; text that does not fit is cut at a whole
 * escape and ends in "...". Never fails, allocates nothing. Returns out. */
char *nn_printable(char *out, size_t outsz, const char *s, size_t len, const char *also);

#endif
