/* SPDX-License-Identifier: BSD-3-Clause */
/* ncclload.c - the NCCL this process loaded the plugin into; see ncclload.h. */
#include "ncclload.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "dynsym.h"
#include "nccl_model.h"

typedef int (*nn_get_version_fn)(int *version);

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static const void *g_caller;
static struct nn_ncclload g_found;

/* The object's release when it exports ncclGetVersion (filling out), else 0. */
static int take(const struct nn_dynsym_object *o, struct nn_ncclload *out) {
  nn_get_version_fn get = (nn_get_version_fn)nn_dynsym_lookup(o, "ncclGetVersion");
  int code = 0;
  if (!get || get(&code) != 0 || code <= 0) return 0;
  out->code = code;
  if (o->name[0]) snprintf(out->path, sizeof out->path, "%s", o->name);
  else {
    ssize_t n = readlink("/proc/self/exe", out->path, sizeof out->path - 1); /* the program */
    out->path[n > 0 ? n : 0] = 0;
  }
  return code;
}

static int is_libnccl(const char *name) {
  const char *base = strrchr(name, '/');
  return !strncmp(base ? base + 1 : name, "libnccl.so", 10);
}

static int visit_named(const struct nn_dynsym_object *o, void *arg) {
  return is_libnccl(o->name) && take(o, arg) != 0;
}

static void find_once(void) {
  struct nn_dynsym_object caller = {0};
  if (nn_dynsym_owner(g_caller, &caller) && take(&caller, &g_found)) return;
  nn_dynsym_each(visit_named, &g_found);
}

void nn_ncclload_note(const void *caller) {
  static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  pthread_mutex_lock(&lock);
  if (!g_caller) g_caller = caller;
  pthread_mutex_unlock(&lock);
  pthread_once(&g_once, find_once);
}

const struct nn_ncclload *nn_ncclload_get(void) { return &g_found; }

void nn_ncclload_describe(const struct nn_ncclload *l, char *buf, size_t size) {
  char release[32];
  if (!l->code) {
    snprintf(buf, size, "no loaded NCCL found");
    return;
  }
  nn_nccl_version_format(l->code, release, sizeof release);
  snprintf(buf, size, "NCCL %s (%s)", release, l->path[0] ? l->path : "?");
}
