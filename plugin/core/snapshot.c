/* SPDX-License-Identifier: BSD-3-Clause */
/* snapshot.c - whole-file reads that notice a concurrent writer, and the record of them. */
#include "snapshot.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "errbuf.h"
#include "fileread.h"
#include "trust.h"

/* The thread's active recording. A pthread key rather than _Thread_local: TLS in a
 * dlopen'd library would make the plugin depend on the dynamic loader's __tls_get_addr. */
static pthread_key_t g_record_key;
static pthread_once_t g_record_once = PTHREAD_ONCE_INIT;
static int g_record_key_ok;

static void make_record_key(void) {
  g_record_key_ok = pthread_key_create(&g_record_key, NULL) == 0;
}

static struct nn_snapshot_record *active_record(void) {
  pthread_once(&g_record_once, make_record_key);
  return g_record_key_ok ? pthread_getspecific(g_record_key) : NULL;
}

static void key_from_stat(const struct stat *st, struct nn_file_key *k) {
  memset(k, 0, sizeof *k);
  k->dev = st->st_dev;
  k->ino = st->st_ino;
  k->size = st->st_size;
  k->mtime = st->st_mtim;
  k->ctime = st->st_ctim;
}

/* stat(path) as a key; from the directory `walk` remembers, when path lies in it. */
static void key_at(const struct nn_trust_walk *walk, const char *path, struct nn_file_key *k) {
  struct stat st;
  if (nn_trust_walk_stat(walk, path, &st) == 0) {
    key_from_stat(&st, k);
    return;
  }
  memset(k, 0, sizeof *k);
  k->err = errno ? errno : EIO;
}

void nn_snapshot_key_of(const char *path, struct nn_file_key *k) {
  struct nn_snapshot_record *r = active_record();
  key_at(r ? r->walk : NULL, path, k);
}

int nn_snapshot_key_equal(const struct nn_file_key *a, const struct nn_file_key *b) {
  return a->err == b->err && a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
         a->mtime.tv_sec == b->mtime.tv_sec && a->mtime.tv_nsec == b->mtime.tv_nsec &&
         a->ctime.tv_sec == b->ctime.tv_sec && a->ctime.tv_nsec == b->ctime.tv_nsec;
}

/* Reads up to want + 1 bytes: one byte more than fstat promised means the file grew. */
static ssize_t read_upto(int fd, char *buf, size_t want) {
  size_t got = 0;
  while (got <= want) {
    ssize_t r = read(fd, buf + got, want + 1 - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return -1;
    if (r == 0) break;
    got += (size_t)r;
  }
  return (ssize_t)got;
}

/* One attempt from an open descriptor: 1 whole, 0 changed during the read, -1 error. */
static int read_once(int fd, const char *path, size_t max, char **buf, size_t *len,
                     struct nn_file_key *key, char *err, size_t errsz) {
  struct stat st;
  if (fstat(fd, &st) != 0) {
    nn_errbuf_set(err, errsz, "%s: cannot open: %s", path, strerror(errno));
    return -1;
  }
  key_from_stat(&st, key);
  if (!S_ISREG(st.st_mode)) {
    nn_errbuf_set(err, errsz, "%s: cannot open: %s, not a regular file", path,
                  nn_file_kind(st.st_mode));
    return -1;
  }
  if ((uint64_t)st.st_size > max) {
    nn_errbuf_set(err, errsz, "%s: file is %lld bytes, over the %zu MiB limit", path,
                  (long long)st.st_size, max >> 20);
    return -1;
  }
  size_t size = (size_t)st.st_size;
  char *b = malloc(size + 2);
  if (!b) {
    nn_errbuf_set(err, errsz, "%s: cannot read: out of memory", path);
    return -1;
  }
  ssize_t got = lseek(fd, 0, SEEK_SET) == 0 ? read_upto(fd, b, size) : -1;
  if (got < 0) {
    nn_errbuf_set(err, errsz, "%s: cannot read: %s", path, strerror(errno));
    free(b);
    return -1;
  }
  struct stat after;
  struct nn_file_key after_key;
  int still = fstat(fd, &after) == 0;
  if (still) key_from_stat(&after, &after_key);
  if (!still || (size_t)got != size || !nn_snapshot_key_equal(key, &after_key)) {
    free(b);
    return 0;
  }
  b[size] = 0;
  *buf = b;
  *len = size;
  return 1;
}

/* FNV-1a over 8-byte little-endian words (the tail zero-padded): a byte at a time cost
 * 60 us for a 100 KB mapping, most of an init after a write. Names versions, not a secret. */
static uint64_t fnv1a(uint64_t h, const void *data, size_t n) {
  const unsigned char *p = data;
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t w;
    memcpy(&w, p, 8);
    h = (h ^ w) * 1099511628211ULL;
  }
  if (n) {
    uint64_t w = 0;
    memcpy(&w, p, n);
    h = (h ^ w) * 1099511628211ULL;
  }
  return h;
}

static void record(const char *path, const struct nn_file_key *key, const char *buf, size_t len,
                   int moving) {
  struct nn_snapshot_record *r = active_record();
  if (!r) return;
  uint64_t n = buf ? (uint64_t)len : UINT64_MAX; /* an unreadable file hashes unlike an empty one */
  r->hash = fnv1a(r->hash, &n, sizeof n);
  if (buf) r->hash = fnv1a(r->hash, buf, len);
  if (r->n == r->cap) {
    int cap = r->cap ? 2 * r->cap : 4;
    struct nn_snapshot_file *grown = realloc(r->files, (size_t)cap * sizeof *grown);
    if (!grown) {
      r->incomplete = 1;
      r->moving |= moving;
      return;
    }
    r->files = grown;
    r->cap = cap;
  }
  char *copy = strdup(path);
  if (!copy) {
    r->incomplete = 1;
    r->moving |= moving;
    return;
  }
  r->files[r->n++] = (struct nn_snapshot_file){copy, *key};
  if (moving && !r->moving) r->moving = r->n;
  /* the record owns the copy now (freed with the record; cppcheck loses it in the array) */
  // cppcheck-suppress memleak
}

/* Opens path when trust.h trusts it, walking again when an entry was replaced during the
 * walk (at most NN_SNAP_READS times). Returns the descriptor, or -1 with err and *key set
 * (*moving 1 when it was replaced during every walk). Nothing but a regular file is opened. */
static int open_trusted(const char *path, struct nn_file_key *key, int *moving, char *err,
                        size_t errsz) {
  struct nn_snapshot_record *r = active_record();
  *moving = 0;
  for (int i = 0; i < NN_SNAP_READS; i++) {
    int fd;
    int trust = nn_trust_open(r ? r->walk : NULL, path, &fd, err, errsz);
    if (trust == NN_TRUST_OK || trust == NN_TRUST_OPTED_OUT) return fd;
    if (trust != NN_TRUST_REPLACED) {
      nn_snapshot_key_of(path,
                         key); /* what the next look compares: a chmod or chown is a new version */
      return -1;
    }
  }
  nn_errbuf_set(err, errsz, "%s: changed while being read, %d times in a row", path, NN_SNAP_READS);
  nn_snapshot_key_of(path, key);
  *moving = 1;
  return -1;
}

int nn_snapshot_read(const char *path, size_t max, char **buf, size_t *len, char *err,
                     size_t errsz) {
  *buf = NULL;
  *len = 0;
  if (err && errsz) err[0] = 0;
  struct nn_file_key key;
  memset(&key, 0, sizeof key);
  int moving;
  int fd = open_trusted(path, &key, &moving, err, errsz);
  if (fd < 0) {
    record(path, &key, NULL, 0, moving);
    return moving ? NN_SNAP_MOVING : NN_SNAP_ERROR;
  }
  int rc = 0;
  for (int i = 0; i < NN_SNAP_READS && rc == 0; i++)
    rc = read_once(fd, path, max, buf, len, &key, err, errsz);
  close(fd);
  if (rc == 0)
    nn_errbuf_set(err, errsz, "%s: changed while being read, %d times in a row", path,
                  NN_SNAP_READS);
  record(path, &key, *buf, *len, rc == 0);
  return rc == 1 ? NN_SNAP_OK : rc == 0 ? NN_SNAP_MOVING : NN_SNAP_ERROR;
}

void nn_snapshot_record_begin(struct nn_snapshot_record *r) {
  memset(r, 0, sizeof *r);
  r->hash = 14695981039346656037ULL;
  r->walk = malloc(sizeof *r->walk);
  if (r->walk) nn_trust_walk_init(r->walk, geteuid(), NN_SNAP_WALK_BUDGET);
  pthread_once(&g_record_once, make_record_key);
  if (!g_record_key_ok || pthread_setspecific(g_record_key, r) != 0) r->incomplete = 1;
}

static void end_walk(struct nn_snapshot_record *r) {
  if (!r->walk) return;
  nn_trust_walk_end(r->walk);
  free(r->walk);
  r->walk = NULL;
}

int nn_snapshot_record_if_none(struct nn_snapshot_record *r) {
  if (active_record()) return 0;
  nn_snapshot_record_begin(r);
  return 1;
}

void nn_snapshot_record_close(struct nn_snapshot_record *r, int began) {
  if (!began) return;
  nn_snapshot_record_end(r);
  nn_snapshot_record_free(r);
}

void nn_snapshot_record_end(struct nn_snapshot_record *r) {
  if (active_record() == r) pthread_setspecific(g_record_key, NULL);
}

/* The first file (the mapping) is looked up by its whole path, so that a directory on its
 * way replaced (a release directory switched by a link) is noticed; the others beside it
 * from the directory the walk remembers, one step each instead of one per directory. */
int nn_snapshot_record_current(const struct nn_snapshot_record *r) {
  for (int i = 0; i < r->n; i++) {
    struct nn_file_key now;
    key_at(i ? r->walk : NULL, r->files[i].path, &now);
    if (!nn_snapshot_key_equal(&now, &r->files[i].key)) return 0;
  }
  return !r->incomplete;
}

int nn_snapshot_record_equal(const struct nn_snapshot_record *a,
                             const struct nn_snapshot_record *b) {
  if (a->n != b->n || a->incomplete || b->incomplete) return 0;
  for (int i = 0; i < a->n; i++)
    if (strcmp(a->files[i].path, b->files[i].path) ||
        !nn_snapshot_key_equal(&a->files[i].key, &b->files[i].key))
      return 0;
  return 1;
}

void nn_snapshot_record_free(struct nn_snapshot_record *r) {
  end_walk(r);
  for (int i = 0; i < r->n; i++) free(r->files[i].path);
  free(r->files);
  r->files = NULL;
  r->n = r->cap = 0;
}
