/* SPDX-License-Identifier: BSD-3-Clause */
/* dlfn.c - see dlfn.h. */
#include "cli/common/dlfn.h"

#include <dlfcn.h>
#include <string.h>

int nn_dlfn(void *lib, const char *name, void *fn, size_t size) {
  void *sym = dlsym(lib, name);
  memset(fn, 0, size);
  if (!sym || size != sizeof sym) return -1;
  memcpy(fn, &sym, sizeof sym);
  return 0;
}
