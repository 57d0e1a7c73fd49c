/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stress_common.h - what the stress programs share: loading the plugin as NCCL does,
 * a quiet logger, NCCL-like cost tables and small file helpers. Header-only; every
 * function is static so each program stays one translation unit.
 */
#ifndef NCCL_NUMA_STRESS_COMMON_H
#define NCCL_NUMA_STRESS_COMMON_H

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "nccl_abi.h"

#define ST_NA NN_NCCL_NUM_ALGORITHMS
#define ST_NP NN_NCCL_NUM_PROTOCOLS

/* The plugin's exported objects, resolved from one dlopen. */
struct st_plugin {
  void *handle;
  const nn_ncclTuner_v5_t *tuner;
  const nn_ncclEnv_v2_t *env;
};

static inline int st_load(const char *lib, struct st_plugin *p) {
  p->handle = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
  if (!p->handle) {
    fprintf(stderr, "stress: dlopen %s: %s\n", lib, dlerror());
    return -1;
  }
  p->tuner = dlsym(p->handle, "ncclTunerPlugin_v5");
  p->env = dlsym(p->handle, "ncclEnvPlugin_v2");
  if (!p->tuner || !p->env) {
    fprintf(stderr, "stress: %s lacks ncclTunerPlugin_v5 or ncclEnvPlugin_v2\n", lib);
    return -1;
  }
  return 0;
}

/* Formats every message, as NCCL's logger does when NCCL_DEBUG is set, and prints WARNs
 * only when STRESS_VERBOSE is set; counts them either way. */
static int st_warns;      /* atomic */
static int st_numa_warns; /* atomic: the expected mode=numa WARNs (st_logger) */
__attribute__((format(printf, 5, 6))) static inline void st_logger(int level, unsigned long flags,
                                                                   const char *file, int line,
                                                                   const char *fmt, ...) {
  (void)flags;
  (void)file;
  (void)line;
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (level != NN_NCCL_LOG_WARN) return;
  /* the stress mappings force `topology mode=numa` on a two-socket AMD file on purpose (so the
   * file is written and served every cycle); the plugin's WARN that NCCL's model rates that
   * file slower is then expected, and not a misbehaviour */
  if (strstr(buf, "topology mode=numa serves a file NCCL's model rates worse")) {
    __atomic_add_fetch(&st_numa_warns, 1, __ATOMIC_RELAXED);
    return;
  }
  __atomic_add_fetch(&st_warns, 1, __ATOMIC_RELAXED);
  if (getenv("STRESS_VERBOSE")) fprintf(stderr, "WARN %s\n", buf);
}

/* A PCIe-only table: tree/ring x ll/simple enabled (distinct costs), the rest -1. */
static inline void st_fill_table(float t[ST_NA][ST_NP]) {
  for (int a = 0; a < ST_NA; a++)
    for (int p = 0; p < ST_NP; p++) t[a][p] = -1.0f;
  t[0][0] = 12.0f;
  t[0][2] = 14.0f;
  t[1][0] = 10.0f;
  t[1][2] = 11.0f;
}

/* The entry a call chose (0.0) as a * ST_NP + p, -1 when none; -2 when a disabled entry
 * was enabled (a contract breach). */
static inline int st_choice(float t[ST_NA][ST_NP]) {
  int chosen = -1;
  for (int a = 0; a < ST_NA; a++)
    for (int p = 0; p < ST_NP; p++) {
      int was_enabled = a < 2 && p != 1;
      if (!was_enabled && t[a][p] >= 0.0f) return -2;
      if (t[a][p] == 0.0f) chosen = a * ST_NP + p;
    }
  return chosen;
}

/* argv[i] as a number in [lo, hi], or `def` when absent; exits on anything else. */
static inline long st_arg(int argc, char **argv, int i, long def, long lo, long hi) {
  if (i >= argc) return def;
  char *end = NULL;
  errno = 0;
  long v = strtol(argv[i], &end, 10);
  if (errno || end == argv[i] || *end || v < lo || v > hi) {
    fprintf(stderr, "stress: argument %d '%s': expected a number in %ld..%ld\n", i, argv[i], lo,
            hi);
    exit(2);
  }
  return v;
}

/* Writes `len` bytes to a new file and renames it over `path` (atomic replacement). */
static inline int st_write_atomic(const char *path, const char *buf, size_t len) {
  char tmp[4200];
  snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return -1;
  ssize_t w = write(fd, buf, len);
  if (close(fd) != 0 || w != (ssize_t)len) return -1;
  return rename(tmp, path);
}

/* Gives `path` a new mtime (ns resolution), so the plugin sees a new version. */
static inline void st_touch(const char *path) {
  struct timespec ts[2];
  clock_gettime(CLOCK_REALTIME, &ts[0]);
  ts[1] = ts[0];
  utimensat(AT_FDCWD, path, ts, 0);
}

#endif
