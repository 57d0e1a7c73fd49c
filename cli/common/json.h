/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * json.h - a small JSON reader for what the CLI reads: nccl-tests' -J output and
 * the plugin's NCCL_NUMA_LOG_FILE records. The whole document becomes an array of
 * values; containers list their children by index (first, next; -1 ends). Depth
 * and value count are bounded; strings are decoded (\u escapes outside ASCII
 * become '?').
 */
#ifndef NCCL_NUMA_CLI_JSON_H
#define NCCL_NUMA_CLI_JSON_H

#include <stddef.h>

enum { NN_JV_NULL, NN_JV_BOOL, NN_JV_NUM, NN_JV_STR, NN_JV_ARR, NN_JV_OBJ };

struct nn_jv {
  int type;
  double num;
  const char *str; /* NN_JV_STR: decoded, NUL-terminated */
  const char *key; /* member name when inside an object */
  int first, next; /* children list, -1 terminated */
};

struct nn_json {
  const char *s;
  size_t len, pos;
  struct nn_jv *v;
  int n, cap;
  char *strbuf; /* decoded strings; never longer than the input */
  size_t strpos;
  char *err;
  size_t errsz;
};

/* Parses buf[0..len) as one JSON document (nothing but blanks after it). Returns
 * the index of the root value in p->v, or -1 with a message in err. Free with
 * nn_json_free either way. */
int nn_json_parse(struct nn_json *p, const char *buf, size_t len, char *err, size_t errsz);
void nn_json_free(struct nn_json *p);
/* The member `key` of obj (an object), or NULL. */
const struct nn_jv *nn_json_get(const struct nn_json *p, const struct nn_jv *obj, const char *key);
/* A number, or a string holding one ("nan", "    -1"); NAN otherwise (also for NULL). */
double nn_json_num(const struct nn_jv *v);

#endif
