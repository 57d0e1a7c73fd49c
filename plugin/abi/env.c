/* SPDX-License-Identifier: BSD-3-Clause */
/* env.c - serves NCCL_TOPO_FILE and `env` defaults; forwards everything else to getenv. */
#include "env.h"
#include "env_text.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "allocconf.h"
#include "cache.h"
#include "cudrv.h"
#include "env_names.h"
#include "log.h"
#include "nccl_model.h"
#include "nccl_log.h"
#include "ncclload.h"
#include "nn_version.h"
#include "privdir.h"
#include "topo_xml.h"
#include "topology.h"
#include "visible.h"

/* The topology served: NCCL gets /proc/self/fd/N of a descriptor the plugin keeps on
 * the file it wrote and read back. The private directory's parent may belong to someone
 * else (XDG_RUNTIME_DIR after `sudo -E`, a sticky /tmp after a cleaner ran): a path by
 * name could be swapped before NCCL opens it; the descriptor cannot. NCCL opens the
 * name with fopen (graph/xml.cc, ncclTopoGetXmlFromFile, 2.28.9 and 2.30.7), which reopens
 * the very file behind the descriptor, at offset 0, for every communicator.
 *
 * One descriptor per distinct content, not per config version: a `touch` of the mapping
 * makes a new version with the same XML, which is served the same descriptor. At most
 * NN_TOPO_SLOTS are open; a new content takes the slot handed out least recently. That is
 * safe for NCCL's use: NCCL looks NCCL_TOPO_FILE up in ncclTopoGetSystem during one
 * communicator's init and passes it straight to ncclTopoGetXmlFromFile, which opens it
 * (graph/topo.cc and graph/xml.cc, 2.28.9): once opened, NCCL holds its own open file and
 * no longer needs ours. A slot is closed only when NN_TOPO_SLOTS - 1 other contents were
 * handed out since its last hand-out and yet another content was made, which takes config
 * rewrites, parses and an XML generation: far longer than a lookup-to-fopen on another
 * thread. A content served again after its slot was closed is stored and opened anew. */
#define NN_TOPO_SLOTS 4

struct nn_topo_slot {
  char *xml; /* the content, compared whole; NULL: the slot is free */
  size_t len;
  int fd;
  dev_t dev; /* what fd was, to notice the host closing it behind us */
  ino_t ino;
  const char *path;    /* interned "/proc/self/fd/N" */
  unsigned long stamp; /* g_env.stamp at the last hand-out */
  unsigned gen;        /* bumped whenever the slot is emptied */
};

/* A path string handed to NCCL: NCCL may still be reading it after the descriptor it
 * names is closed, so each "/proc/self/fd/N" (one per descriptor number ever used, which
 * the kernel keeps low) lives until finalize. */
struct nn_fd_name {
  int fd;
  char *path;
};

/* The config version the plugin serves from (the newest it saw): its topology's slot. */
struct nn_served {
  struct nn_cache_version *version;
  struct nn_p2p_serving p2p; /* what its p2p line gives this process */
  int topo_done;             /* looked for a topology: slot < 0 means none is served */
  int slot;
  unsigned gen; /* the slot's gen when it was filled for this version */
};

static struct {
  pthread_mutex_t lock;
  int initialized;
  nn_ncclDebugLogger_t logger;
  struct nn_served cur; /* cur.version NULL: none yet */
  struct nn_topo_slot slots[NN_TOPO_SLOTS];
  unsigned long stamp;
  struct nn_fd_name *names;
  int n_names;
  char **values; /* `env` values handed out: each distinct one once, kept until */
  int n_values;  /* finalize, so no old version needs to stay alive for them */
  int told_user_topo;
  int told_visible;      /* the visible set's decision was logged */
  int told_p2p;          /* the current version's p2p line was explained */
  int told_graph;        /* the current version's NCCL_GRAPH_REGISTER was explained */
  int version;           /* NCCL_VERSION_CODE from init */
  char release[16];      /* the same as "2.30.7", for messages */
  char release_told[17]; /* the hash of the version whose release notes were WARNed */
} g_env = {.lock = PTHREAD_MUTEX_INITIALIZER};

static struct nn_served *current(void) { return g_env.cur.version ? &g_env.cur : NULL; }

/* What `cfg`'s p2p line gives this process: its GPUs as the mapping numbers them, and the
 * running driver. Reads /proc: called without g_env.lock, where a version is acquired. */
static void p2p_for_process(const struct nn_config *cfg, struct nn_p2p_serving *out) {
  memset(out, 0, sizeof *out);
  if (!cfg || cfg->p2p.state != NN_P2P_OK) {
    nn_config_p2p_serve(cfg, NULL, 0, NULL, out);
    return;
  }
  struct nn_visible vis;
  int pos[NN_VISIBLE_MAX], gpus[NN_VISIBLE_MAX];
  char driver[NN_P2P_DRIVER_CHARS];
  nn_visible_of_process(cfg, &vis);
  int n = nn_visible_order(cfg, &vis, pos, NN_VISIBLE_MAX);
  for (int i = 0; i < n; i++) gpus[i] = cfg->gpus[pos[i]].index;
  nn_visible_driver_version(nn_visible_driver_root(), driver, sizeof driver);
  nn_config_p2p_serve(cfg, gpus, n, driver, out);
}

/* Takes over the reference `v`, whose p2p line gives this process `p2p`: it becomes current
 * and the previous one is dropped (what a caller got from it was copied: values, slots).
 * Called with g_env.lock held. */
static void hold_version(struct nn_cache_version *v, const struct nn_p2p_serving *p2p) {
  struct nn_cache_version *old = g_env.cur.version;
  if (!v || old == v) {
    nn_cache_release(v);
    return;
  }
  g_env.cur = (struct nn_served){.version = v, .p2p = *p2p, .slot = -1};
  g_env.told_p2p = 0;
  g_env.told_graph = 0;
  nn_cache_release(old);
}

/* The served entry of `v`, or NULL (another version became current meanwhile). */
static struct nn_served *served_of(const struct nn_cache_version *v) {
  return v && g_env.cur.version == v ? &g_env.cur : NULL;
}

/* A copy of `s` that lives until finalize, shared by equal strings; NULL when out of
 * memory. Called with g_env.lock held. */
static const char *intern_value(const char *s) {
  if (!s) return NULL;
  for (int i = 0; i < g_env.n_values; i++)
    if (!strcmp(g_env.values[i], s)) return g_env.values[i];
  char **grown = realloc(g_env.values, (size_t)(g_env.n_values + 1) * sizeof *grown);
  if (!grown) return NULL;
  g_env.values = grown;
  if (!(grown[g_env.n_values] = strdup(s))) return NULL;
  return grown[g_env.n_values++];
}

/* "/proc/self/fd/N", the same string for the same N until finalize; NULL when out of
 * memory. Called with g_env.lock held. */
static const char *fd_name(int fd) {
  for (int i = 0; i < g_env.n_names; i++)
    if (g_env.names[i].fd == fd) return g_env.names[i].path;
  char proc[64];
  snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
  struct nn_fd_name *grown = realloc(g_env.names, (size_t)(g_env.n_names + 1) * sizeof *grown);
  if (!grown) return NULL;
  g_env.names = grown;
  char *copy = strdup(proc);
  if (!copy) return NULL;
  grown[g_env.n_names++] = (struct nn_fd_name){fd, copy};
  return copy;
}

/* Empties slot i; returns its descriptor for the caller to close after unlocking, or -1
 * when it must not be closed (`ours` 0: the number names someone else's file now). */
static int slot_clear(int i, int ours) {
  struct nn_topo_slot *t = &g_env.slots[i];
  int fd = ours && t->xml ? t->fd : -1;
  free(t->xml);
  unsigned gen = t->gen + 1;
  *t = (struct nn_topo_slot){.fd = -1, .gen = gen};
  return fd;
}

/* Whether slot i still holds the file it was filled with (a host that closes descriptors
 * it does not own could have let the number go to another file); empties it if not. */
static int slot_intact(int i) {
  struct nn_topo_slot *t = &g_env.slots[i];
  struct stat st;
  if (!t->xml) return 0;
  if (!fstat(t->fd, &st) && st.st_dev == t->dev && st.st_ino == t->ino) return 1;
  slot_clear(i, 0);
  return 0;
}

/* Hands slot i's path out: it becomes the most recently used. */
static const char *slot_hand_out(int i) {
  g_env.slots[i].stamp = ++g_env.stamp;
  return g_env.slots[i].path;
}

/* The intact slot holding exactly xml, or -1. */
static int slot_find(const char *xml, size_t len) {
  for (int i = 0; i < NN_TOPO_SLOTS; i++)
    if (g_env.slots[i].xml && g_env.slots[i].len == len && !memcmp(g_env.slots[i].xml, xml, len) &&
        slot_intact(i))
      return i;
  return -1;
}

/* A free slot, else the least recently handed-out one emptied (its descriptor into
 * *closing, for the caller to close after unlocking). */
static int slot_take(int *closing) {
  int pick = 0;
  for (int i = 0; i < NN_TOPO_SLOTS; i++) {
    if (!g_env.slots[i].xml) return i;
    if (g_env.slots[i].stamp < g_env.slots[pick].stamp) pick = i;
  }
  *closing = slot_clear(pick, 1);
  return pick;
}

/* Records in v's entry (when still current) that its topology is slot i (-1: none). */
static void mark_served(const struct nn_cache_version *v, int i) {
  struct nn_served *s = served_of(v);
  if (!s) return;
  s->topo_done = 1;
  s->slot = i;
  s->gen = i >= 0 ? g_env.slots[i].gen : 0;
}

/* What s serves when its topology was already looked for: 1 with *out set (NULL: none
 * served), or 0 when its slot went away meanwhile and the XML must be made again. */
static int served_already(struct nn_served *s, const char **out) {
  *out = NULL;
  if (!s->topo_done) return 0;
  if (s->slot < 0) return 1;
  if (g_env.slots[s->slot].gen != s->gen || !slot_intact(s->slot)) {
    s->topo_done = 0;
    return 0;
  }
  *out = slot_hand_out(s->slot);
  return 1;
}

static int runtime_sm_if_needed(const struct nn_config *cfg) {
  /* mode=numa too: its WARN gives NCCL's modelled factor for this capability */
  if (cfg->topo_mode == NN_TOPO_OFF || nn_topology_declared_sm(cfg) != 0) return 0;
  if (nn_config_numa_count(cfg) < 2) return 0;
  return nn_cudrv_current_sm();
}

/* Whether /proc/self/fd/N leads back to the stored file's descriptor (its identity into
 * dev and ino); if not, fd is closed and the file is not served at all rather than served
 * by a name. */
static int check_descriptor(int fd, const char *stored, dev_t *dev, ino_t *ino,
                            const struct nn_logger *logger) {
  char proc[64];
  snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
  struct stat a, b;
  if (fstat(fd, &a) || stat(proc, &b) || a.st_dev != b.st_dev || a.st_ino != b.st_ino) {
    nn_log_warn(logger,
                "nccl-numa: %s does not lead to %s (no /proc?): no topology served, since a "
                "path by name could be swapped before NCCL opens it",
                proc, stored);
    close(fd);
    return -1;
  }
  *dev = a.st_dev;
  *ino = a.st_ino;
  return 0;
}

/* Logs, once per process, what CUDA_VISIBLE_DEVICES decided when it is set. */
static void tell_visible(const struct nn_visible *vis, const struct nn_logger *logger) {
  pthread_mutex_lock(&g_env.lock);
  int tell = vis->why[0] && !g_env.told_visible;
  g_env.told_visible = 1;
  pthread_mutex_unlock(&g_env.lock);
  if (tell) nn_log_info(logger, NN_LOG_INIT | NN_LOG_ENV, "nccl-numa: %s", vis->why);
}

/* Runs without g_env.lock: it reads sysfs and cpuinfo. The XML to serve for the mapping
 * into *xml (malloc'd) and *len, and the verdict's reason into why; -1 when none is served. */
static int make_topo_xml(const struct nn_config *mapping, const char *cfg_path,
                         const struct nn_logger *logger, char **xml, size_t *len, char *why,
                         size_t whysz, char *warn, size_t warnsz) {
  char err[512] = "";
  struct nn_cpu_kind cpu;
  *xml = NULL;
  if (mapping->n_gpus == 0) return -1;
  /* NCCL keeps only the communicator's GPUs of the file (visible.h): judge and serve those */
  struct nn_visible vis;
  struct nn_gpu own[NN_VISIBLE_MAX];
  struct nn_config view;
  nn_visible_of_process(mapping, &vis);
  if (vis.kind == NN_VISIBLE_UNMAPPED) {
    nn_log_warn(logger, "nccl-numa: %s", vis.why);
    return -1;
  }
  nn_visible_view(mapping, &vis, own, &view);
  tell_visible(&vis, logger);
  const struct nn_config *cfg = &view;
  if (nn_topology_cpu_kind(cfg, NULL, &cpu, err, sizeof err) != 0) {
    nn_log_warn(logger, "nccl-numa: %s: no topology served", err);
    return -1;
  }
  /* the links' maximum (NN_GATHER_STABLE): equal on every rank, whatever power state a GPU is in */
  struct nn_topo_verdict verdict;
  struct nn_verdict_facts facts;
  nn_topology_gather(cfg, nn_nccl_loaded_version(), runtime_sm_if_needed(cfg), NULL, NULL,
                     NN_GATHER_STABLE | NN_GATHER_HERE, &facts);
  facts.in.decide_only = 1;
  nn_topology_verdict(cfg, &cpu, &facts.in, &verdict);
  nn_topology_verdict_text(&verdict, why, whysz);
  nn_topology_verdict_warning(&verdict, warn, warnsz);
  if (!verdict.serve) {
    if (verdict.mode == NN_TOPO_OFF)
      nn_log_info(logger, NN_LOG_INIT | NN_LOG_ENV, "nccl-numa: %s", why);
    else nn_log_warn(logger, "nccl-numa: %s", why);
    return -1;
  }
  struct nn_flat_view *flat = malloc(sizeof *flat); /* large: not on NCCL's thread's stack */
  const struct nn_config *file =
    flat ? nn_topology_served_view(cfg, &verdict, NULL, flat, err, sizeof err) : NULL;
  if (!flat) snprintf(err, sizeof err, "out of memory");
  int rc = !file ? -1 : nn_topo_xml_generate(file, &cpu, NULL, xml, len, err, sizeof err);
  free(flat);
  if (rc != 0) {
    nn_log_warn(logger, "nccl-numa: cannot generate the topology from %s: %s", cfg_path, err);
    return -1;
  }
  if (err[0]) nn_log_info(logger, NN_LOG_INIT | NN_LOG_ENV, "nccl-numa: %s", err);
  return 0;
}

/* Stores xml (taken over) and puts it in a slot for v, unless another thread did so
 * meanwhile. Runs without g_env.lock but for the bookkeeping. Returns the path or NULL. */
static const char *store_and_serve(const struct nn_cache_version *v, char *xml, size_t len,
                                   const char *why, const struct nn_logger *logger) {
  char path[4096], err[512], note[4096 + 512];
  int fd = -1;
  dev_t dev = 0;
  ino_t ino = 0;
  int rc =
    nn_privdir_store_topo(xml, len, path, sizeof path, &fd, note, sizeof note, err, sizeof err);
  if (note[0]) nn_log_warn(logger, "nccl-numa: %s", note);
  if (rc != 0) nn_log_warn(logger, "nccl-numa: cannot write the topology file: %s", err);
  if (rc != 0 || check_descriptor(fd, path, &dev, &ino, logger) != 0) {
    free(xml);
    pthread_mutex_lock(&g_env.lock);
    mark_served(v, -1);
    pthread_mutex_unlock(&g_env.lock);
    return NULL;
  }
  int closing = fd, i;
  const char *name = NULL, *out = NULL;
  pthread_mutex_lock(&g_env.lock);
  /* Ours is closed again when another thread served the same content first, or when out
   * of memory (nothing served). */
  if ((i = slot_find(xml, len)) < 0 && (name = fd_name(fd))) {
    closing = -1;
    i = slot_take(&closing);
    g_env.slots[i] = (struct nn_topo_slot){xml, len, fd, dev, ino, name, 0, g_env.slots[i].gen};
    xml = NULL;
  }
  if (i >= 0) out = slot_hand_out(i);
  mark_served(v, i);
  pthread_mutex_unlock(&g_env.lock);
  if (closing >= 0) close(closing);
  free(xml);
  if (name)
    nn_log_info(logger, NN_LOG_INIT | NN_LOG_ENV,
                "nccl-numa: NCCL_TOPO_FILE=%s (a descriptor of %s; %s)", name, path, why);
  return out;
}

/* The topology of v, made, stored and served (or the slot of an equal content). */
static const char *generate_topo(struct nn_cache_version *v, const struct nn_config *cfg,
                                 const struct nn_logger *logger) {
  char *xml, why[1024], warn[512] = "";
  size_t len = 0;
  const char *out = NULL;
  int have = make_topo_xml(cfg, nn_cache_path(v), logger, &xml, &len, why, sizeof why, warn,
                           sizeof warn) == 0;
  pthread_mutex_lock(&g_env.lock);
  int i = have ? slot_find(xml, len) : -1;
  if (i >= 0) out = slot_hand_out(i);
  if (!have || i >= 0) mark_served(v, i);
  pthread_mutex_unlock(&g_env.lock);
  if (!have || i >= 0) {
    free(xml); /* an equal content is served already, its warning said with it */
    return out;
  }
  out = store_and_serve(v, xml, len, why, logger);
  /* said once the file is really served (mode=numa on a file NCCL's model rates slower) */
  if (out && warn[0]) nn_log_warn(logger, "nccl-numa: %s", warn);
  return out;
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
                  "nccl-numa: NCCL_TOPO_FILE is set in the environment (%s): the user's file wins",
                  real);
    return real;
  }
  /* Topology detection runs once per communicator: the place to notice a new config. */
  struct nn_cache_version *v = nn_cache_acquire(logger);
  const struct nn_config *cfg = nn_cache_config(v);
  struct nn_p2p_serving p2p;
  p2p_for_process(cfg, &p2p);
  pthread_mutex_lock(&g_env.lock);
  hold_version(nn_cache_ref(v), &p2p);
  struct nn_served *s = served_of(v);
  const char *out = NULL;
  int generate = s && cfg && !served_already(s, &out);
  pthread_mutex_unlock(&g_env.lock);
  nn_cache_warn_rejected(v, logger, "no topology and no env defaults served");
  nn_cache_warn_refused(v, logger);
  if (generate) out = generate_topo(v, cfg, logger);
  nn_cache_release(v); /* the current entry keeps its own reference */
  return out;
}

/* Whether the mapping's peer access goes to NCCL in this process: its p2p line is served as
 * ok here (tested GPUs, running driver: p2p_for_process), and the user sets none of NCCL's
 * peer-access variables (theirs win, p2p_message). */
static int p2p_served(const struct nn_served *s) {
  return s && s->p2p.state == NN_P2P_OK && !getenv("NCCL_P2P_LEVEL") && !getenv("NCCL_P2P_DISABLE");
}

/* Whether NCCL_GRAPH_REGISTER=0 is what this process needs (allocconf.h): peer access served
 * and PyTorch's allocator on expandable segments (the variable that says so into *var). */
static int graph_register_off(const struct nn_served *s, const char **var) {
  return p2p_served(s) && nn_allocconf_process_expandable(var);
}

/* What the release `version` ("release" in words) makes of a mapping's NAME=value: NULL when
 * nothing to say, else the note (env_names.h), *serve 0 when it is not served. */
static const char *release_note(int version, const char *release, const char *name,
                                const char *value, int *serve, char *buf, size_t size) {
  const struct nn_nccl_release *rel = nn_nccl_release_find(version, NULL);
  return nn_env_release_note(name, value, rel, release, serve, buf, size);
}

/* The user's environment, else the mapping's default (only a name env_names.h allows: the
 * parser keeps no other, and only a value the loaded release reads as meant), else what the
 * plugin itself decides (NCCL_GRAPH_REGISTER), else NULL. */
static const char *served_value(const char *name) {
  const char *real = getenv(name);
  if (real) return real;
  struct nn_served *s = current();
  const struct nn_config *cfg = s ? nn_cache_config(s->version) : NULL;
  if (nn_config_p2p_decides(cfg, name))
    return intern_value(nn_config_p2p_served_env(&s->p2p, name));
  const char *value = s ? nn_config_env(cfg, name) : NULL;
  char note[640];
  int serve = 1;
  if (value) release_note(g_env.version, g_env.release, name, value, &serve, note, sizeof note);
  if ((!value || !serve) && !strcmp(name, "NCCL_GRAPH_REGISTER") && graph_register_off(s, NULL))
    return intern_value("0");
  return serve ? intern_value(value) : NULL;
}

/* What decided NCCL_GRAPH_REGISTER where peer access meets expandable segments, into msg,
 * once per version; empty when that combination is not this process's. Called with
 * g_env.lock held, as p2p_message. */
static void graph_message(const char *name, char *msg, size_t size) {
  struct nn_served *s = current();
  const struct nn_config *cfg = s ? nn_cache_config(s->version) : NULL;
  const char *var = NULL;
  msg[0] = 0;
  if (strcmp(name, "NCCL_GRAPH_REGISTER") || g_env.told_graph || !graph_register_off(s, &var))
    return;
  g_env.told_graph = 1;
  nn_env_text_graph(cfg, name, var, msg, size);
}

/* One WARN per `env` line the release `version` reads otherwise than the mapping means. */
static void warn_release_notes(int version, const char *release, const struct nn_config *cfg,
                               const char *path, const struct nn_logger *logger) {
  for (int i = 0; cfg && i < cfg->n_envs; i++) {
    char note[640];
    int serve;
    const struct nn_env_default *e = &cfg->envs[i];
    if (release_note(version, release, e->name, e->value, &serve, note, sizeof note))
      nn_log_warn(logger, "nccl-numa: %s:%d: env: %s", path, e->line, note);
  }
}

/* What the current version's p2p line does to `name` (one of the variables it decides),
 * into msg, once per version; msg empty when there is nothing to say; *warn when an ok line
 * is kept off for this process. Called with g_env.lock held: it formats, the caller logs
 * after unlocking. */
static void p2p_message(const char *name, char *msg, size_t size, int *warn) {
  struct nn_served *s = current();
  const struct nn_config *cfg = s ? nn_cache_config(s->version) : NULL;
  msg[0] = 0;
  *warn = 0;
  if (!cfg || !cfg->p2p.state || g_env.told_p2p) return;
  if (strcmp(name, "NCCL_P2P_LEVEL") && strcmp(name, "NCCL_P2P_DISABLE") &&
      strcmp(name, "NCCL_WIN_ENABLE"))
    return;
  g_env.told_p2p = 1;
  const struct nn_p2p_serving *p = &s->p2p;
  nn_env_text_p2p(p, cfg->p2p.line, msg, size);
  *warn = p->untested;
}

nn_ncclResult_t nn_env_init(uint8_t major, uint8_t minor, uint8_t patch, const char *suffix,
                            nn_ncclDebugLogger_t nccl_logger, int abi_version) {
  struct nn_nccl_logger nl;
  const struct nn_logger *logger = nn_nccl_logger(&nl, nccl_logger);
  struct nn_cache_version *v = nn_cache_acquire(logger); /* reads files: before taking the lock */
  const struct nn_config *cfg = nn_cache_config(v);
  int status = nn_cache_status(v);
  struct nn_p2p_serving p2p;
  p2p_for_process(cfg, &p2p);
  pthread_mutex_lock(&g_env.lock);
  g_env.logger = nccl_logger;
  g_env.initialized = 1;
  g_env.version = NN_NCCL_VERSION(major, minor, patch);
  snprintf(g_env.release, sizeof g_env.release, "%u.%u.%u", major, minor, patch);
  nn_nccl_set_loaded_version(g_env.version);
  hold_version(nn_cache_ref(v), &p2p);
  pthread_mutex_unlock(&g_env.lock);
  nn_cache_warn_rejected(v, logger, "no topology and no env defaults served");
  nn_cache_warn_refused(v, logger);
  pthread_mutex_lock(&g_env.lock);
  int tell = cfg && strcmp(g_env.release_told, nn_cache_hash(v));
  if (tell) snprintf(g_env.release_told, sizeof g_env.release_told, "%s", nn_cache_hash(v));
  pthread_mutex_unlock(&g_env.lock);
  char release[16];
  snprintf(release, sizeof release, "%u.%u.%u", major, minor, patch);
  int code = NN_NCCL_VERSION(major, minor, patch);
  if (tell) warn_release_notes(code, release, cfg, nn_cache_path(v), logger);
  const struct nn_ncclload *loaded = nn_ncclload_get();
  nn_log_info(logger, NN_LOG_INIT | NN_LOG_ENV,
              "nccl-numa " NN_VERSION
              ": env plugin v%d on NCCL %u.%u.%u%s (%s%s), config %s (%s), hash %s, "
              "%d env defaults",
              abi_version, major, minor, patch, suffix ? suffix : "",
              loaded->code ? "loaded from " : "no libnccl found among the loaded objects",
              loaded->code ? loaded->path : "", v ? nn_cache_path(v) : "-",
              cfg                        ? "ok"
              : status == NN_CFG_INVALID ? "rejected"
              : status == NN_CFG_MOVING  ? "changing"
                                         : "absent",
              nn_cache_hash(v), cfg ? cfg->n_envs : 0);
  nn_cache_release(v);
  return nn_ncclSuccess;
}

nn_ncclResult_t nn_env_finalize(void) {
  pthread_mutex_lock(&g_env.lock);
  for (int i = 0; i < NN_TOPO_SLOTS; i++) {
    int fd = slot_clear(i, 1);
    if (fd >= 0) close(fd);
  }
  nn_cache_release(g_env.cur.version);
  g_env.cur = (struct nn_served){.slot = -1};
  for (int i = 0; i < g_env.n_names; i++) free(g_env.names[i].path);
  free(g_env.names);
  g_env.names = NULL;
  g_env.n_names = 0;
  for (int i = 0; i < g_env.n_values; i++) free(g_env.values[i]);
  free(g_env.values);
  g_env.values = NULL;
  g_env.n_values = 0;
  g_env.initialized = 0;
  g_env.told_user_topo = 0;
  g_env.told_visible = 0;
  g_env.told_p2p = 0;
  g_env.told_graph = 0;
  g_env.release_told[0] = 0;
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
  char p2p[1200] = "", graph[512] = "";
  int warn = 0;
  pthread_mutex_lock(&g_env.lock);
  const char *value = g_env.initialized ? served_value(name) : getenv(name);
  if (g_env.initialized) p2p_message(name, p2p, sizeof p2p, &warn);
  if (g_env.initialized) graph_message(name, graph, sizeof graph);
  struct nn_nccl_logger nl;
  const struct nn_logger *logger = nn_nccl_logger(&nl, g_env.logger);
  pthread_mutex_unlock(&g_env.lock);
  if (p2p[0] && warn) nn_log_warn(logger, "%s", p2p);
  else if (p2p[0]) nn_log_info(logger, NN_LOG_INIT | NN_LOG_ENV, "%s", p2p);
  if (graph[0]) nn_log_info(logger, NN_LOG_INIT | NN_LOG_ENV, "%s", graph);
  return value;
}
