/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ncclload.h - the NCCL this process loaded the plugin into: the release and the path of
 * that libnccl, from the loaded objects, not from the environment (torch's wheel pins one
 * nvidia-nccl release, an engine image installs another; which one a process really runs is
 * what its log and record say).
 *
 * The NCCL is the object holding the code that called the plugin's init (each ABI adapter
 * passes its return address), when that object exports ncclGetVersion; else the first loaded
 * object named libnccl.so* that does. Its release is what its own ncclGetVersion answers
 * (src/init.cc, 2.28.9: it only stores NCCL_VERSION_CODE). Found once, at the first init,
 * by walking the loaded objects (dynsym.h): nothing is opened or loaded, and nothing runs
 * on NCCL's collective path.
 */
#ifndef NCCL_NUMA_NCCLLOAD_H
#define NCCL_NUMA_NCCLLOAD_H

#include <limits.h>
#include <stddef.h>

struct nn_ncclload {
  int code;            /* NCCL_VERSION_CODE; 0 when no loaded NCCL was found */
  char path[PATH_MAX]; /* its file as the loader opened it (the program's, resolved) */
};

/* Notes the loaded NCCL at the first call; `caller` is an address in the code that called
 * the plugin. Later calls change nothing. Thread-safe. */
void nn_ncclload_note(const void *caller);

/* What the first nn_ncclload_note found (code 0 before it or when nothing was). */
const struct nn_ncclload *nn_ncclload_get(void);

/* "NCCL 2.28.9 (/usr/lib/libnccl.so.2)", or "no loaded NCCL found" (code 0), into buf. */
void nn_ncclload_describe(const struct nn_ncclload *l, char *buf, size_t size);

#endif
