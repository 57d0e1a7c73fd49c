/* SPDX-License-Identifier: BSD-3-Clause */
/* dlfn.h - a function of a dlopen'd library, stored into a function pointer without an
 * object-to-function cast (ISO C has none). */
#ifndef NCCL_NUMA_CLI_DLFN_H
#define NCCL_NUMA_CLI_DLFN_H

#include <stddef.h>

/* dlsym(lib, name) into the function pointer at fn (of `size` bytes), NULL when absent.
 * Returns 0 when found, -1 when not. */
int nn_dlfn(void *lib, const char *name, void *fn, size_t size);

#endif
