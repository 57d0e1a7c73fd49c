/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * atomicwrite.h - the CLI's one way to replace a file it writes (topo -o, proxmox-numa
 * --write): readers see the old file or the whole new one, never half of it, and nothing
 * another user planted in the directory is opened or written through.
 *
 * The new content goes into a file mkstemp makes next to the target (same directory, so
 * the rename is atomic; an unpredictable name created with O_EXCL, so a file, FIFO, link or
 * hard link planted under a guessed name is never opened), gets its owner, group and mode,
 * is synced, and is renamed over the target.
 */
#ifndef NCCL_NUMA_CLI_ATOMICWRITE_H
#define NCCL_NUMA_CLI_ATOMICWRITE_H

#include <stddef.h>
#include <sys/stat.h>

/* Replaces (or creates) `path` with `len` bytes of `data`. The new file gets the owner,
 * group and mode of `like` (the file it replaces, as read before), or, with like NULL, the
 * caller's owner and mode 0666 less the umask, as open(2) would give it. Returns 0, or -1
 * with the reason in err ("PATH: ..."); on failure the target is unchanged and no
 * temporary file is left. */
int nn_atomicwrite_file(const char *path, const void *data, size_t len, const struct stat *like,
                        char *err, size_t errsz);

#endif
