/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * jsonstr.h - the one JSON string writer of the plugin's records (NCCL_NUMA_LOG_FILE) and
 * the commands' JSON output: valid JSON in valid UTF-8 for any byte string. '"' and '\' are
 * escaped, newline and tab as \n and \t, every other control byte and DEL as \u00XX; a
 * well-formed UTF-8 sequence (no overlong form, no surrogate, at most U+10FFFF) as the
 * \uXXXX of its code point (a surrogate pair above U+FFFF), and every other byte of 0x80 or
 * above as \u00XX (its Latin-1 reading): the result is ASCII, a strict parser accepts it,
 * and no character is lost.
 */
#ifndef NCCL_NUMA_JSONSTR_H
#define NCCL_NUMA_JSONSTR_H

#include <stddef.h>

/* Writes s (NULL: "") as a quoted JSON string through put(ctx, bytes, n). */
void nn_json_string(void (*put)(void *ctx, const char *bytes, size_t n), void *ctx, const char *s);

#endif
