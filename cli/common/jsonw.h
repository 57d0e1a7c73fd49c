/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * jsonw.h - the JSON the commands print with --json: one document on a stream, written as
 * it goes (objects and arrays nested up to NN_JSONW_DEPTH, commas placed by the writer).
 * Strings are escaped so any bytes from outside stay one valid string: '"', '\\' and
 * control characters as JSON escapes, bytes above 0x7e as the text "\xNN" (printable.h's
 * convention), so the output is ASCII.
 */
#ifndef NCCL_NUMA_CLI_JSONW_H
#define NCCL_NUMA_CLI_JSONW_H

#include <stdint.h>
#include <stdio.h>

#define NN_JSONW_DEPTH 16

struct nn_jsonw {
  FILE *out;
  int depth;
  int count[NN_JSONW_DEPTH];  /* values written so far at each level */
  char close[NN_JSONW_DEPTH]; /* the bracket that ends each level */
};

/* Starts a document on out. */
void nn_jsonw_begin(struct nn_jsonw *w, FILE *out);
/* Opens an object or an array as the next value; key is its member name inside an object,
 * NULL inside an array or at the top. */
void nn_jsonw_object(struct nn_jsonw *w, const char *key);
void nn_jsonw_array(struct nn_jsonw *w, const char *key);
/* Closes the innermost object or array. */
void nn_jsonw_end(struct nn_jsonw *w);
/* One value: a string (NULL writes null), an integer, a number (NaN and infinities write
 * null), a boolean, null. */
void nn_jsonw_str(struct nn_jsonw *w, const char *key, const char *value);
void nn_jsonw_int(struct nn_jsonw *w, const char *key, long long value);
void nn_jsonw_num(struct nn_jsonw *w, const char *key, double value);
void nn_jsonw_bool(struct nn_jsonw *w, const char *key, int value);
void nn_jsonw_null(struct nn_jsonw *w, const char *key);
/* Ends the document (a newline after it). */
void nn_jsonw_finish(struct nn_jsonw *w);

#endif
