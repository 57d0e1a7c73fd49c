/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * p2pupdate.h - `nccl-numa p2p --update FILE`: the mapping's p2p line replaced by the new
 * verdict's (or added at its end), every other byte kept, the file replaced atomically.
 *
 * FILE is read only when trust.h trusts it (as the plugin reads a mapping), the new text must
 * parse as a mapping before anything is written, and it is written as `topo -o` writes
 * (atomicwrite.h: a mkstemp file next to it, renamed over it), keeping the file's owner,
 * group and mode.
 */
#ifndef NCCL_NUMA_CLI_P2PUPDATE_H
#define NCCL_NUMA_CLI_P2PUPDATE_H

#include <stddef.h>

/* The text of `old` (len bytes) with its p2p lines replaced by `line` (the first in place, any
 * other dropped), or `line` added at the end; malloc'd, NUL-terminated, *out_len its length.
 * *replaced: how many p2p lines there were. NULL when out of memory. */
char *nn_p2pupdate_text(const char *old, size_t len, const char *line, size_t *out_len,
                        int *replaced);

/* Rewrites `path` with `line`. Returns 0, or -1 with the reason in err (the mapping's own
 * problems printed on stderr as check-config prints them). */
int nn_p2pupdate_file(const char *path, const char *line, int *replaced, char *err, size_t errsz);

#endif
