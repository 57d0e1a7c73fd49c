/* cache.c - one parsed config per file version, shared and reference counted. */
#include "cache.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "log.h"

struct nn_shape_policy {
  size_t n_ranks, n_nodes;
  struct nn_policy *policy;
};

struct nn_file_key {
  dev_t dev;
  ino_t ino;
  off_t size;
  struct timespec mtime;
  int err;                /* errno of stat, 0 when it worked */
};

struct nn_cfgver {
  int refs;               /* guarded by g_lock */
  char *path;
  struct nn_file_key key;
  int status;
  struct nn_config *cfg;
  struct nn_diag diag;
  uint64_t generation;
  int torn;               /* the file kept changing while it was read */
  int warned;             /* guarded by lock */
  pthread_mutex_t lock;   /* guards warned and policies */
  struct nn_shape_policy *policies;
  int n_policies, cap_policies;
};

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct nn_cfgver *g_current;
static uint64_t g_generation;

static struct nn_file_key key_of(const char *path) {
  struct nn_file_key k;
  memset(&k, 0, sizeof k);
  struct stat st;
  if (stat(path, &st) != 0) {
    k.err = errno ? errno : EIO;
    return k;
  }
  k.dev = st.st_dev;
  k.ino = st.st_ino;
  k.size = st.st_size;
  k.mtime = st.st_mtim;
  return k;
}

static int same_key(const struct nn_file_key *a, const struct nn_file_key *b) {
  return a->err == b->err && a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
         a->mtime.tv_sec == b->mtime.tv_sec && a->mtime.tv_nsec == b->mtime.tv_nsec;
}

static void free_version(struct nn_cfgver *v) {
  for (int i = 0; i < v->n_policies; i++) nn_policy_free(v->policies[i].policy);
  free(v->policies);
  nn_config_free(v->cfg);
  nn_diag_clear(&v->diag);
  pthread_mutex_destroy(&v->lock);
  free(v->path);
  free(v);
}

/* A file modified this recently may be in the middle of an in-place rewrite (truncate,
 * then several writes): while it settles, communicators keep the previous version of the
 * same path whole instead of reading half a file. Replacing the file by rename is the
 * documented way; this only keeps careless edits from being read half-way. */
#define NN_SETTLE_NS 250000000LL

static int still_settling(const struct nn_file_key *k) {
  struct timespec now;
  if (k->err || clock_gettime(CLOCK_REALTIME, &now) != 0) return 0;
  long long age = (long long)(now.tv_sec - k->mtime.tv_sec) * 1000000000LL + (now.tv_nsec - k->mtime.tv_nsec);
  return age >= 0 && age < NN_SETTLE_NS;   /* a future mtime (clock skew) counts as settled */
}

/* NCCL_TUNER_CONFIG_FILE (NVIDIA's example-tuner CSV) supplies the rules when the mapping
 * has none, or when there is no mapping at all; a bad CSV rejects the version whole. */
static void add_tuner_config_file(struct nn_cfgver *v) {
  const char *csv = getenv("NCCL_TUNER_CONFIG_FILE");
  if (!csv || !*csv || v->status == NN_CFG_INVALID) return;
  if (v->status == NN_CFG_ABSENT) {
    if (nn_config_parse(csv, "", 0, NULL, &v->cfg, &v->diag) != 0) return;
    v->status = NN_CFG_OK;
  }
  if (v->cfg->n_rules) return;
  if (nn_config_add_csv_rules(v->cfg, csv, &v->diag) != 0) {
    nn_config_free(v->cfg);
    v->cfg = NULL;
    v->status = NN_CFG_INVALID;
  }
}

/* Parses the file; re-reads when it changed while being read, so a version is never
 * built from a file caught half-way through a non-atomic rewrite we could notice. */
static void load_version(struct nn_cfgver *v, int explicit_path) {
  for (int attempt = 0; attempt < 3; attempt++) {
    nn_config_free(v->cfg);
    v->cfg = NULL;
    nn_diag_clear(&v->diag);
    if (v->key.err == ENOENT && !explicit_path) {
      v->status = NN_CFG_ABSENT;
      add_tuner_config_file(v);
      return;
    }
    int rc = nn_config_load(v->path, NULL, &v->cfg, &v->diag);
    struct nn_file_key after = key_of(v->path);
    v->status = rc == 0 ? NN_CFG_OK : NN_CFG_INVALID;
    /* Unchanged across the read and quiet for the settle time: nobody was writing it. */
    if (same_key(&after, &v->key) && !still_settling(&after)) {
      add_tuner_config_file(v);
      return;
    }
    v->key = after;
  }
  v->torn = 1;
}

static struct nn_cfgver *new_version(const char *path, const struct nn_file_key *key, int explicit_path) {
  struct nn_cfgver *v = calloc(1, sizeof *v);
  if (!v) return NULL;
  v->path = strdup(path);
  if (!v->path) { free(v); return NULL; }
  pthread_mutex_init(&v->lock, NULL);
  v->key = *key;
  v->refs = 1;
  load_version(v, explicit_path);
  v->generation = ++g_generation;
  return v;
}

/* A filesystem truncating a file (O_TRUNC) sets the new size before the new mtime: for
 * a moment stat shows the new size with the old time. */
static int mid_truncate(const struct nn_file_key *before, const struct nn_file_key *now) {
  return !before->err && !now->err && before->dev == now->dev && before->ino == now->ino &&
         before->size != now->size && before->mtime.tv_sec == now->mtime.tv_sec &&
         before->mtime.tv_nsec == now->mtime.tv_nsec;
}

/* First load of a path (nothing older to fall back on): give a file that is being
 * written a bounded time to settle rather than read it half-way. */
#define NN_SETTLE_WAIT_STEPS 40
static void wait_until_settled(const char *path, struct nn_file_key *key) {
  const struct timespec step = {0, NN_SETTLE_NS / 10};
  for (int i = 0; i < NN_SETTLE_WAIT_STEPS && still_settling(key); i++) {
    nanosleep(&step, NULL);
    *key = key_of(path);
  }
}

/* Reads a new version, or returns NULL when `fallback` (the previous version of the same
 * path) should be kept: the file is settling, or it changed under every read. */
static struct nn_cfgver *read_version(const char *path, struct nn_file_key *key, int explicit_path,
                                      const struct nn_cfgver *fallback) {
  *key = key_of(path);   /* the caller's look may be stale after waiting for the lock */
  if (fallback && (same_key(&fallback->key, key) || still_settling(key) || mid_truncate(&fallback->key, key)))
    return NULL;
  if (!fallback) wait_until_settled(path, key);
  struct nn_cfgver *v = new_version(path, key, explicit_path);
  if (v && v->torn && fallback) {
    free_version(v);
    return NULL;
  }
  return v;
}

struct nn_cfgver *nn_cache_acquire_path(const char *path) {
  int explicit_path = 1;
  if (!path || !*path) {
    path = getenv("NCCL_NUMA_CONFIG");
    if (!path || !*path) { path = NN_DEFAULT_CONFIG_PATH; explicit_path = 0; }
  }
  struct nn_file_key key = key_of(path);
  pthread_mutex_lock(&g_lock);
  struct nn_cfgver *v = g_current;
  const struct nn_cfgver *same_path = v && !strcmp(v->path, path) ? v : NULL;
  if (!same_path || !same_key(&v->key, &key)) {
    struct nn_cfgver *fresh = read_version(path, &key, explicit_path, same_path);
    if (fresh) {
      if (g_current && --g_current->refs == 0) free_version(g_current);
      g_current = v = fresh;   /* the cache's own reference */
    } else if (!same_path) {
      v = NULL;                /* out of memory */
    }
  }
  if (v) v->refs++;
  pthread_mutex_unlock(&g_lock);
  return v;
}

struct nn_cfgver *nn_cache_acquire(void) { return nn_cache_acquire_path(NULL); }

void nn_cache_release(struct nn_cfgver *v) {
  if (!v) return;
  pthread_mutex_lock(&g_lock);
  int last = --v->refs == 0;
  pthread_mutex_unlock(&g_lock);
  if (last) free_version(v);
}

/* Frees the cache's own reference when the library is unloaded, so leak checkers see none. */
__attribute__((destructor)) static void nn_cache_unload(void) {
  pthread_mutex_lock(&g_lock);
  struct nn_cfgver *v = g_current;
  g_current = NULL;
  int last = v && --v->refs == 0;
  pthread_mutex_unlock(&g_lock);
  if (last) free_version(v);
}

const struct nn_config *nn_cfgver_config(const struct nn_cfgver *v) { return v ? v->cfg : NULL; }
const char *nn_cfgver_path(const struct nn_cfgver *v) { return v ? v->path : ""; }
int nn_cfgver_status(const struct nn_cfgver *v) { return v ? v->status : NN_CFG_ABSENT; }
const struct nn_diag *nn_cfgver_diag(const struct nn_cfgver *v) { return v ? &v->diag : NULL; }
uint64_t nn_cfgver_generation(const struct nn_cfgver *v) { return v ? v->generation : 0; }

int nn_cfgver_claim_warning(struct nn_cfgver *v) {
  if (!v) return 0;
  pthread_mutex_lock(&v->lock);
  int first = !v->warned;
  v->warned = 1;
  pthread_mutex_unlock(&v->lock);
  return first;
}

void nn_cfgver_warn_rejected(struct nn_cfgver *v, nn_ncclDebugLogger_t logger, const char *consequence) {
  if (nn_cfgver_status(v) != NN_CFG_INVALID || !nn_cfgver_claim_warning(v)) return;
  for (int i = 0; i < v->diag.n; i++) nn_log_warn(logger, "nccl-numa: %s", v->diag.msgs[i]);
  if (v->diag.dropped) nn_log_warn(logger, "nccl-numa: ... and %d more problems", v->diag.dropped);
  nn_log_warn(logger, "nccl-numa: config %s rejected: %s", v->path, consequence);
}

static struct nn_policy *find_policy(struct nn_cfgver *v, size_t n_ranks, size_t n_nodes) {
  for (int i = 0; i < v->n_policies; i++)
    if (v->policies[i].n_ranks == n_ranks && v->policies[i].n_nodes == n_nodes)
      return v->policies[i].policy;
  return NULL;
}

static struct nn_policy *add_policy(struct nn_cfgver *v, size_t n_ranks, size_t n_nodes) {
  if (v->n_policies == v->cap_policies) {
    int cap = v->cap_policies ? 2 * v->cap_policies : 8;
    struct nn_shape_policy *grown = realloc(v->policies, (size_t)cap * sizeof *grown);
    if (!grown) return NULL;
    v->policies = grown;
    v->cap_policies = cap;
  }
  struct nn_policy *p = nn_policy_compile(v->cfg, n_ranks, n_nodes);
  if (p) v->policies[v->n_policies++] = (struct nn_shape_policy){n_ranks, n_nodes, p};
  return p;
}

const struct nn_policy *nn_cfgver_policy(struct nn_cfgver *v, size_t n_ranks, size_t n_nodes) {
  if (!v) return NULL;
  pthread_mutex_lock(&v->lock);
  struct nn_policy *p = find_policy(v, n_ranks, n_nodes);
  if (!p) p = add_policy(v, n_ranks, n_nodes);
  pthread_mutex_unlock(&v->lock);
  return p;
}
