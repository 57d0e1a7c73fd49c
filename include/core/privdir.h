/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * privdir.h - the private per-user directory and atomic, content-addressed files
 * in it: every rank of a job writes the same content to the same name, so they all
 * converge on one file, and no other user can plant or swap it.
 *
 * The directory is $XDG_RUNTIME_DIR/nccl-numa when XDG_RUNTIME_DIR is set and
 * absolute, else ${TMPDIR:-/tmp}/nccl-numa-<euid> (TMPDIR only when absolute). It
 * is created 0700 and used only when it is a real directory (not a symbolic link)
 * owned by the effective user with no group or other permission bits. Anyone can
 * create that predictable name first in a shared /tmp: the plugin then stores into
 * a fresh mkdtemp directory instead (nn_privdir_store_topo).
 *
 * A file is named by a hash of its content, written to a unique temporary name in
 * the same directory and renamed into place, so any number of ranks writing the
 * same content concurrently converge on one complete file; a file already there
 * with the same content is reused as is.
 */
#ifndef NCCL_NUMA_PRIVDIR_H
#define NCCL_NUMA_PRIVDIR_H

#include <stddef.h>
#include <stdint.h>

/* 64-bit FNV-1a hash of `len` bytes. */
uint64_t nn_privdir_hash(const void *data, size_t len);

/* The directory's path from the environment, into buf. Returns 0, or -1 with
 * the reason in err (buffer too small). Creates nothing. */
int nn_privdir_path(char *buf, size_t size, char *err, size_t errsz);

/* Creates `dir` (an existing one is fine) and opens it with
 * O_NOFOLLOW|O_DIRECTORY|O_CLOEXEC; our own directory gets exactly mode 0700
 * whatever the umask (fchmod, re-checked: an existing 0500 one is repaired).
 * Returns the descriptor (caller closes), or -1 with the reason in err: a
 * symbolic link, not a directory, owned by another user, group/other permission
 * bits set, or a mode that cannot be made 0700. */
int nn_privdir_open(const char *dir, char *err, size_t errsz);

/* Stores `len` bytes of `data` in `dir` (checked as by nn_privdir_open) as
 * <prefix><16 hex digits of nn_privdir_hash><suffix>, mode 0600, and writes the
 * full path into out. With fd_out, *fd_out gets a read-only close-on-exec
 * descriptor of the stored file, opened inside the checked directory and read
 * back to hold exactly `data` (caller closes; -1 on failure): the file stays that
 * content whatever later happens to the path. Returns 0, or -1 with the reason in
 * err (out is then ""). */
int nn_privdir_store(const char *dir, const char *prefix, const char *suffix, const void *data,
                     size_t len, char *out, size_t outsz, int *fd_out, char *err, size_t errsz);

/* nn_privdir_store into the directory of nn_privdir_path as topo-<hash>.xml. When that
 * directory is refused (another user's, a symbolic link, a bad mode: see nn_privdir_open),
 * the file goes into a fresh directory made by mkdtemp next to it (<dir>.XXXXXX, 0700),
 * and that file and directory are removed again once the descriptor is open (out names
 * the removed file; with fd_out NULL nothing of it is left). The first time this happens
 * in the process, note (when not NULL) gets one sentence for the user naming the refused
 * directory and why; otherwise note is "". Returns 0, or -1 with the reason in err. */
int nn_privdir_store_topo(const char *xml, size_t len, char *out, size_t outsz, int *fd_out,
                          char *note, size_t notesz, char *err, size_t errsz);

#endif
