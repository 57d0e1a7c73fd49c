/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * trust.h - whether a file may configure this process: the one check of every file the
 * configuration comes from (the mapping, each `include-csv`, NCCL_TUNER_CONFIG_FILE), made
 * by the plugin and by every command alike (the core calls it from nn_snapshot_read).
 *
 * The plugin runs inside other people's processes, often root's, and a mapping decides
 * what NCCL is served; so, as OpenSSH's StrictModes and sudo do, a file is trusted only
 * when nobody but the effective user and root can have written it or chosen it. The path
 * is judged before anything is opened: it is walked from `/` (a relative path from the
 * working directory's absolute path), one entry at a time with openat(O_PATH|O_NOFOLLOW),
 * and each entry is judged by its own owner and mode:
 *  - every directory is owned by the effective uid or root and not writable by group or
 *    others, unless it is sticky (/tmp, a projected Kubernetes volume) or lies on a
 *    read-only mount (fstatvfs ST_RDONLY on the walked descriptor: a Kubernetes configMap
 *    volume is a 0777 emptyDir mounted read-only; nobody can change its entries through that
 *    mount, and making it writable takes root). A directory that is sticky and writable on
 *    its mount is "shared": each entry in it must be owned by root or the effective uid;
 *  - a symbolic link in a shared directory must be owned by root or the effective uid (as
 *    fs.protected_symlinks); links are followed as open follows them, at most
 *    NN_TRUST_MAX_LINKS of them. (A link of root's that another user renamed into a shared
 *    directory from one of theirs passes: the link's owner is all a walk can see. A
 *    projected volume reaches its file by such links, so they are kept.)
 *  - the file is a regular file owned by the effective uid or root, not writable by group
 *    or others. In a shared directory anyone may have renamed a file of root's or the
 *    user's there (rename(2) is bound neither by the target's sticky bit nor by
 *    fs.protected_regular), so a file is read there only when the user is not root, the
 *    directory is the user's own, and the file is the user's with one hard link.
 * Only then is it opened (through the walked directory, O_NOFOLLOW | O_NONBLOCK) and
 * checked to be the entry judged: a FIFO, a device or a directory is never opened. The
 * walk costs O(depth): one openat and one fstat per entry. POSIX ACLs are not consulted.
 *
 * For development only, NCCL_NUMA_ALLOW_UNTRUSTED=1 in the real environment reads an
 * untrusted file anyway; it is never the default, and every use is reported. It never
 * opens anything but a regular file.
 */
#ifndef NCCL_NUMA_TRUST_H
#define NCCL_NUMA_TRUST_H

#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

/* The development opt-out: exactly "1" in the real environment. */
#define NN_TRUST_OPTOUT_ENV "NCCL_NUMA_ALLOW_UNTRUSTED"

/* Symbolic links followed in one walk at most (the kernel's MAXSYMLINKS). */
#define NN_TRUST_MAX_LINKS 40

enum nn_trust_result {
  NN_TRUST_OK = 0,        /* trusted and opened; err is "" */
  NN_TRUST_OPTED_OUT = 1, /* not trusted, opened only because of NN_TRUST_OPTOUT_ENV:
                           * err holds "PATH: not trusted: REASON; read anyway because ..." */
  NN_TRUST_REFUSED = -1,  /* err holds "PATH: not trusted: REASON"; nothing opened */
  NN_TRUST_REPLACED = -2, /* the entry judged was replaced before it was opened: walk
                           * again; err says so */
  NN_TRUST_ERROR = -3     /* cannot open: missing, unreadable, not a regular file, ...:
                           * err holds "PATH: cannot open: REASON", errno is set */
};

/* What a walk remembers for the next one on the same thread (the directory of the last
 * file and its descriptor, so the files of one configuration, which mostly share a
 * directory, cost one step each), and how much it may still walk. */
struct nn_trust_walk {
  uid_t euid;
  char *dir;      /* the lexical absolute directory of the last file, or NULL */
  int dirfd;      /* its O_PATH descriptor (-1: none) */
  int dir_shared; /* that directory is writable by others (sticky) */
  uid_t dir_uid;  /* and its owner */
  long budget;    /* entries the walks may still visit (< 0: unbounded) */
};

/* A walk for `euid`, allowed to visit `budget` entries in all (< 0: no bound). */
void nn_trust_walk_init(struct nn_trust_walk *w, uid_t euid, long budget);

/* Closes what the walk holds. */
void nn_trust_walk_end(struct nn_trust_walk *w);

/* Judges `path` as above for w->euid (w NULL: a one-off walk for the effective uid) and, when
 * it is trusted (or the opt-out applies), opens it read-only (O_NONBLOCK, close-on-exec)
 * into *fd. Returns an enum nn_trust_result; *fd is -1 unless OK or OPTED_OUT. */
int nn_trust_open(struct nn_trust_walk *w, const char *path, int *fd, char *err, size_t errsz);

/* For a descriptor the caller opened already by `path` (prefer nn_trust_open, which opens
 * nothing untrusted): the verdict of nn_trust_open on path, and NN_TRUST_REPLACED when what
 * it opens is not the file behind fd. */
int nn_trust_fd(int fd, const char *path, char *err, size_t errsz);

/* stat(path), from the walk's remembered directory when path lies in it (w may be NULL):
 * one step instead of a lookup of every directory on the way. */
int nn_trust_walk_stat(const struct nn_trust_walk *w, const char *path, struct stat *st);

/* nn_trust_open for the user `euid` (tests ask for another user than the caller). */
int nn_trust_open_as(const char *path, uid_t euid, int *fd, char *err, size_t errsz);

#endif
