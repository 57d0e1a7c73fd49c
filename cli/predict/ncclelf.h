/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ncclelf.h - a libnccl.so.2's release read as data, never loaded: every NCCL release keeps
 * its version banner ("NCCL version 2.28.9+cuda13.0", NCCL's VERSION_STRING in src/init.cc)
 * as a string in .rodata. Reading it runs none of the library's code, so a library another
 * user could have written is safe to read where dlopen would run their constructors as the
 * caller (root, often).
 */
#ifndef NCCL_NUMA_CLI_NCCLELF_H
#define NCCL_NUMA_CLI_NCCLELF_H

#include <stddef.h>

/* The largest .rodata read (NCCL 2.28.9's is 217 KB). */
#define NN_NCCLELF_MAX_RODATA (64u << 20)

/* The NCCL_VERSION_CODE of the banner in the .rodata of the ELF64 file `path` (a regular
 * file; opened without blocking, never through a FIFO or a device). Returns the code, or -1
 * with "PATH: problem" in err (not ELF64, no .rodata, no banner, cannot read). */
int nn_ncclelf_version(const char *path, char *err, size_t errsz);

/* The libnccl.so.2 the dynamic loader would find for a program without a RUNPATH: the
 * first in LD_LIBRARY_PATH's absolute directories, then in /etc/ld.so.conf's (with its
 * include lines), then /lib and /usr/lib, into out. Returns 1 when found, else 0. */
int nn_ncclelf_find(char *out, size_t size);

#endif
