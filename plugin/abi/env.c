/* SPDX-License-Identifier: BSD-3-Clause */
/* env.c - serves NCCL_TOPO_FILE and `env` defaults; forwards everything else to getenv. */
#include "env.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache.h"
#include "cudrv.h"
#include "log.h"
#include "nccl_model.h"
#include "nccl_log.h"
#include "nn_version.h"
#include "privdir.h"
#include "topo_xml.h"
#include "topology.h"

/* The topology served: NCCL gets /proc/self/fd/N of a descriptor the plugin keeps on
 * the file it wrote and read back. The private directory's parent may belong to someone
 * else (XDG_RUNTIME_DIR after `sudo -E`, a sticky /tmp after a cleaner ran): a path by
 * name could be swapped before NCCL opens it; the descriptor cannot. NCCL opens the
 * name with fopen (graph/xml.cc, ncclTopoGetXmlFromFile, 2.28.9 and 2.30.7), which reopens
 * the very file behind the descriptor, at offset 0, for every communicator. */
struct nn_topo {
  char *path;               /* "/proc/self/fd/N"; NULL: no topology served */
  int fd;                   /* -1 when none */
  dev_t dev;                /* what fd was, to notice the host closing it behind us */
  ino_t ino;
};

/* A config version the plugin has served from, kept alive until finalize. */
struct nn_served {
  struct nn_cfgver *version;
  int topo_done;
  struct nn_topo topo;
};

static struct {
  pthread_mutex_t lock;
  int initialized;
  nn_ncclDebugLogger_t logger;
  struct nn_served *held;   /* held[n_held - 1] is the current version */
  char **retired;           /* paths handed out before their descriptor was lost: NCCL may */
  int n_retired;            /* still be reading the string, so it lives until finalize */
  int n_held, cap_held;
  int told_user_topo;
  int version;              /* NCCL_VERSION_CODE from init */
} g_env = {.lock = PTHREAD_MUTEX_INITIALIZER};

static struct nn_served *current(void) {
  return g_env.n_held ? &g_env.held[g_env.n_held - 1] : NULL;
}

/* Takes over the reference `v`: becomes current, or is dropped when already current.
 * Called with g_env.lock held: no I/O, no logging. */
static void hold_version(struct nn_cfgver *v) {
  struct nn_served *cur = current();
  if (!v || (cur && cur->version == v)) { nn_cache_release(v); return; }
  if (g_env.n_held == g_env.cap_held) {
    int cap = g_env.cap_held ? 2 * g_env.cap_held : 4;
    struct nn_served *grown = realloc(g_env.held, (size_t)cap * sizeof *grown);
    if (!grown) { nn_cache_release(v); return; }
    g_env.held = grown;
    g_env.cap_held = cap;
  }
  /* The analyzer assumes held == NULL with n_held > 0, which no path makes (held, n_held and
   * cap_held are set together, and n_held < cap_held here). */
  g_env.held[g_env.n_held++] = (struct nn_served){.version = v, .topo.fd = -1};  // NOLINT(clang-analyzer-core.NullDereference)
}

/* The served entry of `v`, or NULL (out of memory, or finalized meanwhile). */
static struct nn_served *served_of(const struct nn_cfgver *v) {
  for (int i = g_env.n_held - 1; i >= 0; i--)
    if (g_env.held[i].version == v) return &g_env.held[i];
  return NULL;
}

static int runtime_sm_if_needed(const struct nn_config *cfg) {
  if (cfg->topo_mode != NN_TOPO_AUTO || nn_topology_declared_sm(cfg) != 0) return 0;
  if (nn_config_numa_count(cfg) < 2) return 0;
  return nn_cudrv_current_sm();
}

/* The name NCCL opens for a stored file's descriptor; NULL (fd closed) when /proc does not
 * lead back to it: the file is then not served at all rather than served by a name. */
static int serve_descriptor(int fd, const char *stored, struct nn_topo *t, const struct nn_logger *logger) {
  char proc[64];
  snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
  struct stat a, b;
  if (fstat(fd, &a) || stat(proc, &b) || a.st_dev != b.st_dev || a.st_ino != b.st_ino ||
      !(t->path = strdup(proc))) {
    nn_log_warn(logger, "nccl-numa: %s does not lead to %s (no /proc?): no topology served, since a "
                "path by name could be swapped before NCCL opens it", proc, stored);
    close(fd);
    return -1;
  }
  t->fd = fd;
  t->dev = a.st_dev;
  t->ino = a.st_ino;
  return 0;
}

/* Whether the descriptor behind a served topology is still the file it was (a host that
 * closes descriptors it does not own could have let the number go to another file). */
static int topo_intact(const struct nn_topo *t) {
  struct stat st;
  return t->fd < 0 || (!fstat(t->fd, &st) && st.st_dev == t->dev && st.st_ino == t->ino);
}

/* Runs without g_env.lock: it reads sysfs and cpuinfo and writes the topology file.
 * Fills t (path NULL: nothing served). */
static void generate_topo(const struct nn_config *cfg, const char *cfg_path, const struct nn_logger *logger,
                          struct nn_topo *t) {
  char err[512] = "";
  struct nn_cpu_kind cpu;
  *t = (struct nn_topo){.fd = -1};
  if (cfg->n_gpus == 0) return;
  if (nn_topology_cpu_kind(cfg, NULL, &cpu, err, sizeof err) != 0) {
    nn_log_warn(logger, "nccl-numa: %s: no topology served", err);
    return;
  }
  /* the links' maximum (stable = 1): equal on every rank, whatever power state a GPU is in */
  struct nn_topo_verdict verdict;
  struct nn_verdict_facts facts;
  nn_topology_gather(cfg, nn_nccl_loaded_version(), runtime_sm_if_needed(cfg), NULL, NULL, 1, &facts);
  facts.in.decide_only = 1;
  nn_topology_verdict(cfg, &cpu, &facts.in, &verdict);
  if (!verdict.serve) {
    if (verdict.mode == NN_TOPO_OFF) nn_log_info(logger, NN_LOG_INIT | NN_LOG_ENV, "nccl-numa: %s", verdict.reason);
    else nn_log_warn(logger, "nccl-numa: %s", verdict.reason);
    return;
  }
  char *xml = NULL;
  size_t len = 0;
  if (nn_topo_xml_generate(cfg, &cpu, NULL, &xml, &len, err, sizeof err) != 0) {
    nn_log_warn(logger, "nccl-numa: cannot generate the topology from %s: %s", cfg_path, err);
    return;
  }
  if (err[0]) nn_log_info(logger, NN_LOG_INIT | NN_LOG_ENV, "nccl-numa: %s", err);
  char path[4096];
  int fd = -1;
  int rc = nn_privdir_store_topo(xml, len, path, sizeof path, &fd, err, sizeof err);
  free(xml);
  if (rc != 0) {
    nn_log_warn(logger, "nccl-numa: cannot write the topology file: %s", err);
    return;
  }
  if (serve_descriptor(fd, path, t, logger) == 0)
    nn_log_info(logger, NN_LOG_INIT | NN_LOG_ENV, "nccl-numa: NCCL_TOPO_FILE=%s (a descriptor of %s; %s)",
                t->path, path, verdict.reason);
}

static void topo_free(struct nn_topo *t) {
  if (t->fd >= 0) close(t->fd);
  free(t->path);
  *t = (struct nn_topo){.fd = -1};
}

/* Forgets a topology whose descriptor number now names another file (not ours to close),
 * so the next lookup serves a fresh one. Called with g_env.lock held. */
static void retire_topo(struct nn_topo *t, int *done) {
  char **grown = realloc(g_env.retired, (size_t)(g_env.n_retired + 1) * sizeof *grown);
  if (!grown) return;   /* keep serving the old name: better than freeing a string in use */
  g_env.retired = grown;
  g_env.retired[g_env.n_retired++] = t->path;
  *t = (struct nn_topo){.fd = -1};
  *done = 0;
}

/* NCCL_TOPO_FILE: the user's, or one generated for the current version (an `env` line
 * cannot name it: env_names.h).
 * Called without g_env.lock; takes it only around the bookkeeping. */
static const char *served_topo_file(void) {
  pthread_mutex_lock(&g_env.lock);
  struct nn_nccl_logger nl;
  const struct nn_logger *logger = nn_nccl_logger(&nl, g_env.logger);
  const char *real = getenv("NCCL_TOPO_FILE");
  int tell = real && !g_env.told_user_topo;
  if (real) g_env.told_user_topo = 1;
  pthread_mutex_unlock(&g_env.lock);
  if (real) {
    if (tell)
      nn_log_info(logger, NN_LOG_INIT | NN_LOG_ENV,
                  "nccl-numa: NCCL_TOPO_FILE is set in the environment (%s): the user's file wins", real);
    return real;
  }
  /* Topology detection runs once per communicator: the place to notice a new config. */
  struct nn_cfgver *v = nn_cache_acquire(logger);
  const struct nn_config *cfg = nn_cfgver_config(v);
  pthread_mutex_lock(&g_env.lock);
  hold_version(nn_cfgver_ref(v));
  struct nn_served *s = served_of(v);
  const char *out = NULL;
  if (s && s->topo_done && !topo_intact(&s->topo)) retire_topo(&s->topo, &s->topo_done);
  int generate = s && cfg && !s->topo_done;
  if (s && cfg && s->topo_done) out = s->topo.path;
  pthread_mutex_unlock(&g_env.lock);
  nn_cfgver_warn_rejected(v, logger, "no topology and no env defaults served");
  nn_cfgver_warn_refused(v, logger);
  if (generate) {
    struct nn_topo made;
    generate_topo(cfg, nn_cfgver_path(v), logger, &made);
    pthread_mutex_lock(&g_env.lock);
    s = served_of(v);
    if (s && !s->topo_done) { s->topo = made; s->topo_done = 1; made = (struct nn_topo){.fd = -1}; }
    out = s ? s->topo.path : NULL;
    pthread_mutex_unlock(&g_env.lock);
    topo_free(&made);
  }
  nn_cache_release(v);     /* the served entry keeps its own reference */
  return out;
}

/* The user's environment, else the mapping's default (only a name env_names.h allows: the
 * parser keeps no other), else NULL. */
static const char *served_value(const char *name) {
  const char *real = getenv(name);
  if (real) return real;
  struct nn_served *s = current();
  return s ? nn_config_env(nn_cfgver_config(s->version), name) : NULL;
}

nn_ncclResult_t nn_env_init(uint8_t major, uint8_t minor, uint8_t patch, const char *suffix,
                            nn_ncclDebugLogger_t nccl_logger, int abi_version) {
  struct nn_nccl_logger nl;
  const struct nn_logger *logger = nn_nccl_logger(&nl, nccl_logger);
  struct nn_cfgver *v = nn_cache_acquire(logger);   /* reads files: before taking the lock */
  const struct nn_config *cfg = nn_cfgver_config(v);
  int status = nn_cfgver_status(v);
  pthread_mutex_lock(&g_env.lock);
  g_env.logger = nccl_logger;
  g_env.initialized = 1;
  g_env.version = NN_NCCL_VERSION(major, minor, patch);
  nn_nccl_set_loaded_version(g_env.version);
  hold_version(nn_cfgver_ref(v));
  pthread_mutex_unlock(&g_env.lock);
  nn_cfgver_warn_rejected(v, logger, "no topology and no env defaults served");
  nn_cfgver_warn_refused(v, logger);
  nn_log_info(logger, NN_LOG_INIT | NN_LOG_ENV,
              "nccl-numa " NN_VERSION ": env plugin v%d on NCCL %u.%u.%u%s, config %s (%s), hash %s, %d env defaults",
              abi_version, major, minor, patch, suffix ? suffix : "", v ? nn_cfgver_path(v) : "-",
              cfg ? "ok" : status == NN_CFG_INVALID ? "rejected" : status == NN_CFG_MOVING ? "changing" : "absent",
              nn_cfgver_hash(v), cfg ? cfg->n_envs : 0);
  nn_cache_release(v);
  return nn_ncclSuccess;
}

nn_ncclResult_t nn_env_finalize(void) {
  pthread_mutex_lock(&g_env.lock);
  for (int i = 0; i < g_env.n_held; i++) {
    topo_free(&g_env.held[i].topo);
    nn_cache_release(g_env.held[i].version);
  }
  free(g_env.held);
  g_env.held = NULL;
  for (int i = 0; i < g_env.n_retired; i++) free(g_env.retired[i]);
  free(g_env.retired);
  g_env.retired = NULL;
  g_env.n_retired = 0;
  g_env.n_held = g_env.cap_held = 0;
  g_env.initialized = 0;
  g_env.told_user_topo = 0;
  pthread_mutex_unlock(&g_env.lock);
  return nn_ncclSuccess;
}

const char *nn_env_get(const char *name) {
  if (!name) return NULL;
  if (strncmp(name, "NCCL_", 5) != 0) return getenv(name);
  pthread_mutex_lock(&g_env.lock);
  int initialized = g_env.initialized;
  pthread_mutex_unlock(&g_env.lock);
  if (initialized && !strcmp(name, "NCCL_TOPO_FILE")) return served_topo_file();
  pthread_mutex_lock(&g_env.lock);
  const char *value = g_env.initialized ? served_value(name) : getenv(name);
  pthread_mutex_unlock(&g_env.lock);
  return value;
}
