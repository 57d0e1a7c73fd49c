/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * trust.h - whether a file may configure this process: the one check of every file the
 * configuration comes from (the mapping, each `include-csv`, NCCL_TUNER_CONFIG_FILE), made
 * by the plugin and by every command alike (the core calls it from nn_snapshot_read).
 *
 * The plugin runs inside other people's processes, often root's, and a mapping decides
 * what NCCL is served; so, as OpenSSH's StrictModes and sudo do, a file is trusted only
 * when nobody but the effective user and root can have written it:
 *  - the opened file (checked on its descriptor, so it cannot be swapped after the check)
 *    is a regular file owned by the effective uid or root, not writable by group or others;
 *  - every directory from `/` down to it, along the path as given (each prefix, with its
 *    symbolic links followed as open follows them) and along the path with every link
 *    resolved, is owned by the effective uid or root and not writable by group or others;
 *    a sticky directory writable by group or others (/tmp) is accepted only when the file
 *    is owned by the effective uid, since only then its owner alone can replace it there,
 *    and, when it holds the file, only for a file of one hard link (anyone may have linked
 *    a file of ours under the name we open, where fs.protected_hardlinks is off);
 *  - the resolved path still names the opened file.
 * POSIX ACLs are not consulted.
 *
 * For development only, NCCL_NUMA_ALLOW_UNTRUSTED=1 in the real environment reads an
 * untrusted file anyway; it is never the default, and every use is reported (see
 * nn_trust_fd).
 */
#ifndef NCCL_NUMA_TRUST_H
#define NCCL_NUMA_TRUST_H

#include <stddef.h>
#include <sys/types.h>

/* The development opt-out: exactly "1" in the real environment. */
#define NN_TRUST_OPTOUT_ENV "NCCL_NUMA_ALLOW_UNTRUSTED"

enum nn_trust_result {
  NN_TRUST_OK = 0,          /* trusted; err is "" */
  NN_TRUST_OPTED_OUT = 1,   /* not trusted, accepted only because of NN_TRUST_OPTOUT_ENV:
                             * err holds "PATH: not trusted: REASON; read anyway because ..." */
  NN_TRUST_REFUSED = -1,    /* err holds "PATH: not trusted: REASON" */
  NN_TRUST_REPLACED = -2    /* the path names another file by now (replaced by a rename since
                             * the open, or gone): open it again; err says so. Never waived by
                             * the opt-out. */
};

/* Checks the open descriptor fd, opened by the name `path`, as above for the effective
 * uid. Returns an enum nn_trust_result. */
int nn_trust_fd(int fd, const char *path, char *err, size_t errsz);

/* nn_trust_fd for the user `euid` (tests ask for another user than the caller). */
int nn_trust_fd_as(int fd, const char *path, uid_t euid, char *err, size_t errsz);

#endif
