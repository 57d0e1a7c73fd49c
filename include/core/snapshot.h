/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * snapshot.h - reading a config file whole or not at all, and recording what was read.
 *
 * A file is read from one open descriptor; the read counts only when fstat gives the same
 * identity (device, inode, size, mtime, ctime) before and after and exactly `size` bytes
 * came back. A file that keeps changing is re-read a bounded number of times, never with
 * a sleep: the caller falls back on what it had. A writer that pauses between two writes
 * of an in-place rewrite leaves a file that is still, and such a read cannot be told from
 * a finished file; replacing a file by rename is the way to change it safely.
 *
 * While a recording is active on a thread, every file read by nn_snapshot_read on that thread
 * (the mapping, each `include-csv`, NCCL_TUNER_CONFIG_FILE) adds its path and identity to
 * the recording and its bytes to the recording's content hash: together they are the
 * version key of a parsed config.
 */
#ifndef NCCL_NUMA_SNAPSHOT_H
#define NCCL_NUMA_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

struct nn_trust_walk;

/* What stat says of a path; two equal keys mean the file was not changed in between
 * (to the filesystem's timestamp granularity). */
struct nn_file_key {
  dev_t dev;
  ino_t ino;
  off_t size;
  struct timespec mtime, ctime;
  int err; /* errno of stat, 0 when it worked */
};

/* stat(path) as a key. */
void nn_snapshot_key_of(const char *path, struct nn_file_key *k);

/* 1 when both keys describe the same file contents. */
int nn_snapshot_key_equal(const struct nn_file_key *a, const struct nn_file_key *b);

/* How many times a file that changed during the read is read again before giving up. */
#define NN_SNAP_READS 4

enum nn_snapshot_result {
  NN_SNAP_OK = 0,     /* *buf holds the whole file */
  NN_SNAP_ERROR = -1, /* cannot open, not a regular file, too large, read error */
  NN_SNAP_MOVING = -2 /* changed during each of NN_SNAP_READS reads */
};

/* Reads the regular file `path` (at most `max` bytes, O_NONBLOCK so a FIFO never blocks)
 * into a malloc'd, NUL-terminated *buf of *len bytes, when the opened file is trusted
 * (trust.h; an untrusted one is NN_SNAP_ERROR, "PATH: not trusted: REASON"). On
 * NN_SNAP_ERROR and NN_SNAP_MOVING, writes "PATH: problem" to err and sets *buf = NULL; on
 * NN_SNAP_OK err is "", or the note to pass on that the file was read only because of
 * trust.h's opt-out. Records into the thread's active recording, if any, on every outcome. */
int nn_snapshot_read(const char *path, size_t max, char **buf, size_t *len, char *err,
                     size_t errsz);

/* One file of a recording. */
struct nn_snapshot_file {
  char *path;
  struct nn_file_key key;
};

/* Entries (directories and links) the trust walks of one recording may visit in all: the
 * files of a configuration mostly share a directory, walked once (trust.h), so a mapping
 * near PATH_MAX deep with 256 includes beside it takes about 2,300; 256 includes each in
 * its own tree that deep would take 512k steps on NCCL's thread (about 3 s here). */
#define NN_SNAP_WALK_BUDGET 8192

/* The files read while building one config version. */
struct nn_snapshot_record {
  struct nn_trust_walk *walk; /* the trust walk shared by the recording's reads */
  struct nn_snapshot_file *files;
  int n, cap;
  int moving;     /* some file changed under every read: 1 + its index in files */
  int incomplete; /* out of memory while recording: the key cannot be trusted */
  uint64_t hash;  /* FNV-1a (8-byte words) over the lengths and contents of the files, in order */
};

/* Starts recording on this thread (one recording at a time). */
void nn_snapshot_record_begin(struct nn_snapshot_record *r);

/* Stops recording; the record stays valid until nn_snapshot_record_free. */
void nn_snapshot_record_end(struct nn_snapshot_record *r);

/* A recording on r unless one is active on this thread (a command's load, outside the
 * plugin's): 1 when it began one. nn_snapshot_record_close ends and frees it then. */
int nn_snapshot_record_if_none(struct nn_snapshot_record *r);
void nn_snapshot_record_close(struct nn_snapshot_record *r, int began);

/* 1 when every recorded file still has its recorded key (one stat per file). */
int nn_snapshot_record_current(const struct nn_snapshot_record *r);

/* 1 when both recordings name the same files with the same keys. */
int nn_snapshot_record_equal(const struct nn_snapshot_record *a,
                             const struct nn_snapshot_record *b);

void nn_snapshot_record_free(struct nn_snapshot_record *r);

#endif
