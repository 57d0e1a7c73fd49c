/* env.c - serves NCCL_TOPO_FILE and `env` defaults; forwards everything else to getenv. */
#include "env.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "cudrv.h"
#include "log.h"
#include "nn_version.h"
#include "privdir.h"
#include "topo_xml.h"
#include "topology.h"

/* A config version the plugin has served from, kept alive until finalize. */
struct nn_served {
  struct nn_cfgver *version;
  int topo_done;
  char *topo_path;          /* NULL: no topology served for this version */
};

static struct {
  pthread_mutex_t lock;
  int initialized;
  nn_ncclDebugLogger_t logger;
  struct nn_served *held;   /* held[n_held - 1] is the current version */
  int n_held, cap_held;
  int told_user_topo;
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
  g_env.held[g_env.n_held++] = (struct nn_served){.version = v};  // NOLINT(clang-analyzer-core.NullDereference)
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

/* Runs without g_env.lock: it reads sysfs and cpuinfo and writes the topology file. */
static char *generate_topo(const struct nn_config *cfg, const char *cfg_path, nn_ncclDebugLogger_t logger) {
  char err[512] = "";
  struct nn_cpu_kind cpu;
  if (cfg->n_gpus == 0) return NULL;
  if (nn_topology_cpu_kind(cfg, NULL, &cpu, err, sizeof err) != 0) {
    nn_log_warn(logger, "nccl-numa: %s: no topology served", err);
    return NULL;
  }
  struct nn_topo_verdict verdict;
  nn_topology_verdict(cfg, &cpu, runtime_sm_if_needed(cfg), &verdict);
  if (!verdict.serve) {
    if (verdict.mode == NN_TOPO_OFF) nn_log_info(logger, NN_NCCL_INIT | NN_NCCL_ENV, "nccl-numa: %s", verdict.reason);
    else nn_log_warn(logger, "nccl-numa: %s", verdict.reason);
    return NULL;
  }
  char *xml = NULL;
  size_t len = 0;
  if (nn_topo_xml_generate(cfg, &cpu, NULL, &xml, &len, err, sizeof err) != 0) {
    nn_log_warn(logger, "nccl-numa: cannot generate the topology from %s: %s", cfg_path, err);
    return NULL;
  }
  if (err[0]) nn_log_info(logger, NN_NCCL_INIT | NN_NCCL_ENV, "nccl-numa: %s", err);
  char path[4096];
  int rc = nn_privdir_store_topo(xml, len, path, sizeof path, err, sizeof err);
  free(xml);
  if (rc != 0) {
    nn_log_warn(logger, "nccl-numa: cannot write the topology file: %s", err);
    return NULL;
  }
  nn_log_info(logger, NN_NCCL_INIT | NN_NCCL_ENV, "nccl-numa: NCCL_TOPO_FILE=%s (%s)", path, verdict.reason);
  return strdup(path);
}

/* NCCL_TOPO_FILE: the user's, an `env` line's, or one generated for the current version.
 * Called without g_env.lock; takes it only around the bookkeeping. */
static const char *served_topo_file(void) {
  pthread_mutex_lock(&g_env.lock);
  nn_ncclDebugLogger_t logger = g_env.logger;
  const char *real = getenv("NCCL_TOPO_FILE");
  int tell = real && !g_env.told_user_topo;
  if (real) g_env.told_user_topo = 1;
  pthread_mutex_unlock(&g_env.lock);
  if (real) {
    if (tell)
      nn_log_info(logger, NN_NCCL_INIT | NN_NCCL_ENV,
                  "nccl-numa: NCCL_TOPO_FILE is set in the environment (%s): the user's file wins", real);
    return real;
  }
  /* Topology detection runs once per communicator: the place to notice a new config. */
  struct nn_cfgver *v = nn_cache_acquire(logger);
  const struct nn_config *cfg = nn_cfgver_config(v);
  pthread_mutex_lock(&g_env.lock);
  hold_version(nn_cfgver_ref(v));
  struct nn_served *s = served_of(v);
  const char *out = s && cfg ? nn_config_env(cfg, "NCCL_TOPO_FILE") : NULL;
  int generate = s && cfg && !out && !s->topo_done;
  if (s && cfg && !out && s->topo_done) out = s->topo_path;
  pthread_mutex_unlock(&g_env.lock);
  nn_cfgver_warn_rejected(v, logger, "no topology and no env defaults served");
  if (generate) {
    char *made = generate_topo(cfg, nn_cfgver_path(v), logger);
    pthread_mutex_lock(&g_env.lock);
    s = served_of(v);
    if (s && !s->topo_done) { s->topo_path = made; s->topo_done = 1; made = NULL; }
    out = s ? s->topo_path : NULL;
    pthread_mutex_unlock(&g_env.lock);
    free(made);
  }
  nn_cache_release(v);     /* the served entry keeps its own reference */
  return out;
}

/* The user's environment, else the mapping's default, else NULL. */
static const char *served_value(const char *name) {
  const char *real = getenv(name);
  if (real) return real;
  struct nn_served *s = current();
  return s ? nn_config_env(nn_cfgver_config(s->version), name) : NULL;
}

nn_ncclResult_t nn_env_init(uint8_t major, uint8_t minor, uint8_t patch, const char *suffix,
                            nn_ncclDebugLogger_t logger, int abi_version) {
  struct nn_cfgver *v = nn_cache_acquire(logger);   /* reads files: before taking the lock */
  const struct nn_config *cfg = nn_cfgver_config(v);
  int status = nn_cfgver_status(v);
  pthread_mutex_lock(&g_env.lock);
  g_env.logger = logger;
  g_env.initialized = 1;
  hold_version(nn_cfgver_ref(v));
  pthread_mutex_unlock(&g_env.lock);
  nn_cfgver_warn_rejected(v, logger, "no topology and no env defaults served");
  nn_log_info(logger, NN_NCCL_INIT | NN_NCCL_ENV,
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
    free(g_env.held[i].topo_path);
    nn_cache_release(g_env.held[i].version);
  }
  free(g_env.held);
  g_env.held = NULL;
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
