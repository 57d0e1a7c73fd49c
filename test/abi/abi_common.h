/* SPDX-License-Identifier: BSD-3-Clause */
/* abi_common.h - helpers for the programs that load the built plugin as NCCL does. */
#ifndef NCCL_NUMA_ABI_COMMON_H
#define NCCL_NUMA_ABI_COMMON_H

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nccl_abi.h"

/* The checks made and failed by every file of a program (abi_common.c). */
extern _Atomic int nn_failures, nn_checks;

#define CHECK(cond, ...) \
  do { \
    nn_checks++; \
    if (!(cond)) { \
      nn_failures++; \
      fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__); \
      fputc('\n', stderr); \
    } \
  } while (0)

/* Loads the plugin with the flags NCCL 2.26+ uses; exits 1 when that fails. */
static inline void *nn_abi_load(const char *path) {
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    fprintf(stderr, "dlopen(%s): %s\n", path, dlerror());
    exit(1);
  }
  return h;
}

static inline void *nn_abi_symbol(void *h, const char *name) {
  void *s = dlsym(h, name);
  if (!s) {
    fprintf(stderr, "missing symbol %s\n", name);
    exit(1);
  }
  return s;
}

/* Writes a config into dir/name and returns the path (static buffer per call site). */
static inline const char *nn_abi_write_config(const char *dir, const char *name, const char *text,
                                              char *path, size_t size) {
  snprintf(path, size, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  if (!f) {
    perror(path);
    exit(1);
  }
  fputs(text, f);
  fclose(f);
  return path;
}

#endif
