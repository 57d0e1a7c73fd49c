/* SPDX-License-Identifier: BSD-3-Clause */
/* cache.c - one parsed config per file version, shared and reference counted. */
#include "cache.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "snapshot.h"
#include "visible.h"

struct nn_shape_policy {
  size_t n_ranks, n_nodes;
  struct nn_policy *policy;
};

struct nn_cache_version {
  int refs; /* guarded by g_lock */
  char *path;
  char *tuner_csv;                 /* NCCL_TUNER_CONFIG_FILE when read, or NULL */
  int culprit_is_csv;              /* rejected because of tuner_csv, not the mapping */
  struct nn_snapshot_record files; /* the version key */
  char hash[17];
  int status;
  struct nn_config *cfg;
  struct nn_diag diag;
  int warned;           /* guarded by lock */
  pthread_mutex_t lock; /* guards warned and policies; never held across compiling */
  struct nn_shape_policy *policies;
  int n_policies, cap_policies;
};

/* Guards g_current and every version's refs; held for a few instructions only. */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct nn_cache_version *g_current;
/* A WARN about a file that kept changing is given once per file until the next version is
 * published (guarded by g_lock). */
static char g_moving_told[4096];

static void free_version(struct nn_cache_version *v) {
  if (!v) return;
  for (int i = 0; i < v->n_policies; i++) nn_policy_free(v->policies[i].policy);
  free(v->policies);
  nn_config_free(v->cfg);
  nn_diag_clear(&v->diag);
  nn_snapshot_record_free(&v->files);
  pthread_mutex_destroy(&v->lock);
  free(v->tuner_csv);
  free(v->path);
  free(v);
}

static void put_ref(struct nn_cache_version *v) {
  if (!v) return;
  pthread_mutex_lock(&g_lock);
  int last = --v->refs == 0;
  pthread_mutex_unlock(&g_lock);
  if (last) free_version(v);
}

/* Reads and parses the mapping and what it pulls in, as nn_config_resolve does for every
 * command; nn_snapshot_read records every file (a missing default file too, so its creation
 * is noticed). */
static void load_version(struct nn_cache_version *v, int explicit_path) {
  struct nn_config_source src = {v->path, explicit_path ? "NCCL_NUMA_CONFIG" : "default",
                                 explicit_path, v->tuner_csv};
  const char *culprit = NULL;
  static const struct nn_parse_opts first_error = {.flags = NN_PARSE_FIRST_ERROR};
  v->status = nn_config_resolve(&src, &first_error, &v->cfg, &v->diag, &culprit);
  v->culprit_is_csv = v->status == NN_CFG_INVALID && culprit && culprit == v->tuner_csv;
}

static struct nn_cache_version *build_version(const struct nn_config_source *src) {
  struct nn_cache_version *v = calloc(1, sizeof *v);
  if (!v) return NULL;
  const char *csv = src->tuner_csv;
  v->path = strdup(src->path);
  v->tuner_csv = csv ? strdup(csv) : NULL;
  if (!v->path || (csv && !v->tuner_csv)) {
    free(v->tuner_csv);
    free(v->path);
    free(v);
    return NULL;
  }
  pthread_mutex_init(&v->lock, NULL);
  v->refs = 1;
  nn_snapshot_record_begin(&v->files);
  load_version(v, src->named);
  nn_snapshot_record_end(&v->files);
  if (v->files.moving) v->status = NN_CFG_MOVING;
  snprintf(v->hash, sizeof v->hash, "%08x", (unsigned)(v->files.hash ^ (v->files.hash >> 32)));
  return v;
}

static int same_tuner_csv(const struct nn_cache_version *v, const char *csv) {
  if (!csv) return v->tuner_csv == NULL;
  return v->tuner_csv && !strcmp(v->tuner_csv, csv);
}

/* `v` still describes the files on disk: one stat per file, no read. */
static int still_current(const struct nn_cache_version *v, const struct nn_config_source *src) {
  return v && !strcmp(v->path, src->path) && same_tuner_csv(v, src->tuner_csv) &&
         nn_snapshot_record_current(&v->files);
}

/* Makes `fresh` current unless another thread published the same files meanwhile; returns
 * the version the caller holds a reference to. */
static struct nn_cache_version *publish(struct nn_cache_version *fresh) {
  struct nn_cache_version *drop = NULL, *held;
  pthread_mutex_lock(&g_lock);
  if (g_current && nn_snapshot_record_equal(&g_current->files, &fresh->files) &&
      !strcmp(g_current->path, fresh->path)) {
    held = g_current;
    held->refs++;
    drop = fresh;
  } else {
    if (g_current && --g_current->refs == 0) drop = g_current;
    g_current = held = fresh;
    fresh->refs++; /* the cache's own reference */
    g_moving_told[0] = 0;
  }
  pthread_mutex_unlock(&g_lock);
  free_version(drop);
  return held;
}

static void warn_moving(const struct nn_logger *logger, const struct nn_cache_version *fresh,
                        const struct nn_cache_version *kept) {
  int at = fresh->files.moving - 1;
  const char *what = at >= 0 && at < fresh->files.n ? fresh->files.files[at].path : fresh->path;
  pthread_mutex_lock(&g_lock);
  int told = !strcmp(g_moving_told, what);
  if (!told) snprintf(g_moving_told, sizeof g_moving_told, "%s", what);
  pthread_mutex_unlock(&g_lock);
  if (told) return;
  if (kept)
    nn_log_warn(logger,
                "nccl-numa: %s changed while being read, %d times in a row: new communicators keep "
                "config version %s until it is still (replace files by rename)",
                what, NN_SNAP_READS, kept->hash);
  else
    nn_log_warn(logger,
                "nccl-numa: %s changed while being read, %d times in a row: pass-through until it "
                "is still (replace files by rename)",
                what, NN_SNAP_READS);
}

struct nn_cache_version *nn_cache_acquire(const struct nn_logger *logger) {
  struct nn_config_source src;
  nn_config_source_find(NULL, &src);
  pthread_mutex_lock(&g_lock);
  struct nn_cache_version *cur = g_current;
  if (cur) cur->refs++;
  pthread_mutex_unlock(&g_lock);
  if (still_current(cur, &src)) return cur;

  struct nn_cache_version *fresh = build_version(&src);
  int same_path = cur && !strcmp(cur->path, src.path);
  if (!fresh || fresh->status == NN_CFG_MOVING) {
    if (fresh) warn_moving(logger, fresh, same_path ? cur : NULL);
    if (same_path ||
        !fresh) { /* keep the previous version whole (or, out of memory, what there is) */
      free_version(fresh);
      return cur;
    }
    put_ref(cur);
    return fresh; /* a pass-through of its own, never published */
  }
  put_ref(cur);
  return publish(fresh);
}

struct nn_cache_version *nn_cache_ref(struct nn_cache_version *v) {
  if (!v) return NULL;
  pthread_mutex_lock(&g_lock);
  v->refs++;
  pthread_mutex_unlock(&g_lock);
  return v;
}

void nn_cache_release(struct nn_cache_version *v) { put_ref(v); }

/* Frees the cache's own reference when the library is unloaded, so leak checkers see none. */
__attribute__((destructor)) static void nn_cache_unload(void) {
  pthread_mutex_lock(&g_lock);
  struct nn_cache_version *v = g_current;
  g_current = NULL;
  int last = v && --v->refs == 0;
  pthread_mutex_unlock(&g_lock);
  if (last) free_version(v);
}

const struct nn_config *nn_cache_config(const struct nn_cache_version *v) {
  return v ? v->cfg : NULL;
}
const char *nn_cache_path(const struct nn_cache_version *v) { return v ? v->path : ""; }
int nn_cache_status(const struct nn_cache_version *v) { return v ? v->status : NN_CFG_ABSENT; }
const char *nn_cache_hash(const struct nn_cache_version *v) { return v ? v->hash : "-"; }

int nn_cache_claim_warning(struct nn_cache_version *v) {
  if (!v) return 0;
  pthread_mutex_lock(&v->lock);
  int first = !v->warned;
  v->warned = 1;
  pthread_mutex_unlock(&v->lock);
  return first;
}

void nn_cache_warn_rejected(struct nn_cache_version *v, const struct nn_logger *logger,
                            const char *consequence) {
  if (nn_cache_status(v) != NN_CFG_INVALID || !nn_cache_claim_warning(v)) return;
  for (int i = 0; i < v->diag.n; i++) nn_log_warn(logger, "nccl-numa: %s", v->diag.msgs[i]);
  if (v->diag.dropped) nn_log_warn(logger, "nccl-numa: ... and %d more problems", v->diag.dropped);
  struct nn_config_source src = {v->path, "", 1, v->tuner_csv};
  char what[2 * 4096 + 64];
  nn_config_rejected_name(&src, v->culprit_is_csv ? v->tuner_csv : v->path, what, sizeof what);
  nn_log_warn(logger, "nccl-numa: %s rejected: %s", what, consequence);
}

void nn_cache_warn_refused(struct nn_cache_version *v, const struct nn_logger *logger) {
  const struct nn_config *cfg = nn_cache_config(v);
  if (!cfg || (!cfg->refused.n && !cfg->notes.n) || !nn_cache_claim_warning(v)) return;
  for (int i = 0; i < cfg->refused.n; i++)
    nn_log_warn(logger, "nccl-numa: %s: the rest of the file applies", cfg->refused.msgs[i]);
  if (cfg->refused.dropped)
    nn_log_warn(logger, "nccl-numa: ... and %d more env lines refused", cfg->refused.dropped);
  for (int i = 0; i < cfg->notes.n; i++) nn_log_warn(logger, "nccl-numa: %s", cfg->notes.msgs[i]);
}

static struct nn_policy *find_policy(struct nn_cache_version *v, size_t n_ranks, size_t n_nodes) {
  for (int i = 0; i < v->n_policies; i++)
    if (v->policies[i].n_ranks == n_ranks && v->policies[i].n_nodes == n_nodes)
      return v->policies[i].policy;
  return NULL;
}

/* Keeps `p` for the shape, unless out of memory (then the caller frees it). */
static int add_policy(struct nn_cache_version *v, size_t n_ranks, size_t n_nodes,
                      struct nn_policy *p) {
  if (v->n_policies == v->cap_policies) {
    int cap = v->cap_policies ? 2 * v->cap_policies : 8;
    struct nn_shape_policy *grown = realloc(v->policies, (size_t)cap * sizeof *grown);
    if (!grown) return -1;
    v->policies = grown;
    v->cap_policies = cap;
  }
  v->policies[v->n_policies++] = (struct nn_shape_policy){n_ranks, n_nodes, p};
  return 0;
}

const struct nn_policy *nn_cache_policy(struct nn_cache_version *v, size_t n_ranks,
                                        size_t n_nodes) {
  if (!v || !v->cfg) return NULL;
  pthread_mutex_lock(&v->lock);
  struct nn_policy *p = find_policy(v, n_ranks, n_nodes);
  pthread_mutex_unlock(&v->lock);
  if (p) return p;
  /* scope on the GPUs this process can use (visible.h); the set is the process's, fixed */
  struct nn_visible vis;
  struct nn_gpu own[NN_VISIBLE_MAX];
  struct nn_config view;
  nn_visible_of_process(v->cfg, &vis);
  const struct nn_config *scoped = nn_visible_for_comm(v->cfg, &vis, n_ranks, n_nodes, own, &view);
  struct nn_policy *compiled = nn_policy_compile(scoped, n_ranks, n_nodes); /* no lock held */
  if (!compiled) return NULL;
  pthread_mutex_lock(&v->lock);
  p = find_policy(v, n_ranks, n_nodes); /* another communicator of the shape may have won */
  int keep = !p && add_policy(v, n_ranks, n_nodes, compiled) == 0;
  if (keep) p = compiled;
  pthread_mutex_unlock(&v->lock);
  if (!keep) nn_policy_free(compiled);
  return p;
}
