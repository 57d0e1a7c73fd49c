/* SPDX-License-Identifier: BSD-3-Clause */
/* visible.c - CUDA_VISIBLE_DEVICES as a subset of the mapping (see visible.h). */
#include "visible.h"

#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cudrv.h"
#include "errbuf.h"
#include "printable.h"

static int find_by_index(const struct nn_config *cfg, int index) {
  for (int i = 0; i < cfg->n_gpus; i++)
    if (cfg->gpus[i].index == index) return i;
  return -1;
}

static int find_by_bus(const struct nn_config *cfg, const struct nn_busid *b) {
  for (int i = 0; i < cfg->n_gpus; i++) {
    const struct nn_gpu *g = &cfg->gpus[i];
    if (g->has_bus && g->bus.domain == b->domain && g->bus.bus == b->bus && g->bus.dev == b->dev &&
        g->bus.func == b->func)
      return i;
  }
  return -1;
}

static int add_gpu(struct nn_visible *v, int pos) {
  for (int i = 0; i < v->n; i++)
    if (v->gpu[i] == pos) return 0; /* MIG instances of one GPU share its bus id */
  if (v->n == NN_VISIBLE_MAX) return -1;
  v->gpu[v->n++] = pos;
  return 0;
}

/* A decimal index as CUDA reads one: digits only. -1 when the entry is not one. */
static int entry_index(const char *s, size_t len) {
  if (len == 0 || len > 6) return -1;
  int v = 0;
  for (size_t i = 0; i < len; i++) {
    if (s[i] < '0' || s[i] > '9') return -1;
    v = v * 10 + (s[i] - '0');
  }
  return v;
}

/* "CUDA_VISIBLE_DEVICES=0,1" or, when it is unset, what the driver enumerates. */
static void who(const struct nn_visible *v, char *buf, size_t size) {
  char list[128]; /* printed on terminals and logs: no control sequence passes */
  nn_printable(list, sizeof list, v->list, NN_PRINTABLE_CSTR, NULL);
  if (v->source == NN_VISIBLE_FROM_CUDA && !v->set)
    snprintf(buf, size, "the CUDA devices of this process");
  else if (v->source == NN_VISIBLE_FROM_PROC)
    snprintf(buf, size, "%s%s%sthe GPUs the NVIDIA driver shows this container",
             v->set ? "CUDA_VISIBLE_DEVICES=" : "", list, v->set ? " of " : "");
  else snprintf(buf, size, "CUDA_VISIBLE_DEVICES=%s", list);
}

/* The whole mapping is judged; the visible GPUs found so far (v->n) stay listed. */
static void whole(struct nn_visible *v, const char *what) {
  char w[224];
  who(v, w, sizeof w);
  v->kind = NN_VISIBLE_ALL;
  snprintf(v->why, sizeof v->why, "%s: %.140s; the whole mapping is judged", w, what);
}

/* The devices could not be matched to the mapping: nothing is listed. */
static void unmatched(struct nn_visible *v, const char *what) {
  v->n = 0;
  v->unmatched = 1;
  whole(v, what);
}

/* Index entries, up to the first one CUDA would reject. Returns 0, or -1 (whole() called). */
static int from_indices(const struct nn_config *cfg, struct nn_visible *v) {
  const char *s = v->list;
  while (*s) {
    size_t len = strcspn(s, ",");
    if (!strncmp(s, "GPU-", 4) || !strncmp(s, "MIG-", 4)) {
      unmatched(v, "UUID or MIG entries need the CUDA driver, which this process has not loaded");
      return -1;
    }
    int index = entry_index(s, len);
    if (index < 0) break; /* CUDA ignores the rest of the list after a bad entry */
    int pos = find_by_index(cfg, index);
    if (pos < 0) {
      /* the mapping lists the machine's GPUs 0..n-1: CUDA stops at this invalid ordinal */
      snprintf(v->stop, sizeof v->stop,
               "GPU %d is not in the mapping (GPUs 0-%d): CUDA stops at the first invalid "
               "ordinal, so the job has the GPUs before it",
               index, cfg->n_gpus - 1);
      break;
    }
    if (add_gpu(v, pos)) break;
    s += len + (s[len] == ',');
  }
  return 0;
}

static int every_gpu_has_bus(const struct nn_config *cfg) {
  for (int i = 0; i < cfg->n_gpus; i++)
    if (!cfg->gpus[i].has_bus) return 0;
  return 1;
}

/* A GPU the driver shows whose bus id the mapping lacks: the mapping was written for another
 * machine (or before a GPU moved), so none of it applies here. */
static void unmapped(const struct nn_config *cfg, struct nn_visible *v,
                     const struct nn_busid *bus) {
  char w[224], b[16];
  who(v, w, sizeof w);
  nn_busid_format(bus, b, sizeof b);
  v->kind = NN_VISIBLE_UNMAPPED;
  v->n = 0;
  v->unmatched = 1;
  /* a long mapping path is cut to 150 bytes and the sentence at the buffer's end (through
   * nn_errbuf_set: gcc cannot bound the parts at -O0 or -O1 and would call the cut a mistake) */
  nn_errbuf_set(v->why, sizeof v->why,
                "%s: the GPU at %s is not in the mapping %.150s (no gpu line "
                "with bus=%s): the mapping does not describe this machine: no topology served, no "
                "rules applied",
                w, b, cfg->path ? cfg->path : "", b);
}

static int from_driver(const struct nn_config *cfg, struct nn_visible *v,
                       const struct nn_busid *bus, int n) {
  for (int i = 0; i < n; i++) {
    int pos = find_by_bus(cfg, &bus[i]);
    if (pos < 0 && every_gpu_has_bus(cfg)) {
      unmapped(cfg, v, &bus[i]);
      return -1;
    }
    if (pos < 0) {
      char b[16], what[120];
      nn_busid_format(&bus[i], b, sizeof b);
      snprintf(what, sizeof what,
               "the CUDA device at %s is not in the mapping, whose gpu lines lack bus=", b);
      unmatched(v, what);
      return -1;
    }
    if (add_gpu(v, pos)) break;
  }
  return 0;
}

/* Index entries of `v->list` as positions in the container's list `bus` (n of them). */
static int from_listed_indices(const struct nn_config *cfg, struct nn_visible *v,
                               const struct nn_busid *bus, int n) {
  struct nn_busid picked[NN_VISIBLE_MAX];
  int k = 0;
  for (const char *s = v->list; *s && k < NN_VISIBLE_MAX;) {
    size_t len = strcspn(s, ",");
    int index = entry_index(s, len);
    if (index < 0 || index >= n) break; /* CUDA ignores the rest of the list after a bad entry */
    picked[k++] = bus[index];
    s += len + (s[len] == ',');
  }
  return from_driver(cfg, v, picked, k);
}

static void classify(const struct nn_config *cfg, struct nn_visible *v) {
  char w[224];
  who(v, w, sizeof w);
  if (v->n == 0) {
    whole(v, v->stop[0] ? v->stop : "no mapped GPU visible");
    return;
  }
  if (v->n == 1) {
    whole(v,
          "one GPU visible, whose communicator may hold other processes' GPUs on other NUMA nodes");
    return;
  }
  v->numa = cfg->gpus[v->gpu[0]].numa;
  v->kind = NN_VISIBLE_ONE_NODE;
  for (int i = 1; i < v->n; i++)
    if (cfg->gpus[v->gpu[i]].numa != v->numa) v->kind = NN_VISIBLE_SPANS;
  char stop[sizeof v->stop + 2] = "";
  if (v->stop[0]) snprintf(stop, sizeof stop, "%s; ", v->stop);
  /* a cut sentence is fine: through nn_errbuf_set, as above */
  if (v->kind == NN_VISIBLE_SPANS)
    nn_errbuf_set(v->why, sizeof v->why,
                  "%s: %s%d GPUs on more than one NUMA node; NCCL keeps only these of "
                  "the file, so they are judged alone",
                  w, stop, v->n);
  else
    nn_errbuf_set(v->why, sizeof v->why,
                  "%s: %s%d GPUs, all on NUMA node %d; NCCL keeps only these of the "
                  "file, so they are judged alone",
                  w, stop, v->n, v->numa);
}

/* The set from `source`'s list `bus` (n GPUs; unused for FROM_VARIABLE), then its kind. */
static void resolve_from(const struct nn_config *cfg, const char *value, int source,
                         const struct nn_busid *bus, int n, struct nn_visible *out) {
  out->set = value != NULL;
  out->source = source;
  snprintf(out->list, sizeof out->list, "%s", value ? value : "");
  int rc;
  if (source == NN_VISIBLE_FROM_VARIABLE) rc = from_indices(cfg, out);
  else if (source == NN_VISIBLE_FROM_PROC && value) rc = from_listed_indices(cfg, out, bus, n);
  else rc = from_driver(cfg, out, bus, n);
  if (rc) return;
  if (!value && out->n == cfg->n_gpus)
    return; /* the driver sees the whole mapping: nothing to say */
  classify(cfg, out);
}

static void clear(struct nn_visible *out) {
  memset(out, 0, sizeof *out);
  out->numa = -1;
}

void nn_visible_resolve(const struct nn_config *cfg, const char *value, nn_visible_busids_fn busids,
                        struct nn_visible *out) {
  clear(out);
  if (!cfg || cfg->n_gpus == 0) return;
  struct nn_busid bus[NN_VISIBLE_MAX];
  int n = busids ? busids(bus, NN_VISIBLE_MAX) : -1;
  if (n >= 0) resolve_from(cfg, value, NN_VISIBLE_FROM_CUDA, bus, n, out);
  else if (value) resolve_from(cfg, value, NN_VISIBLE_FROM_VARIABLE, NULL, 0, out);
  /* else unset, and no driver to ask: the whole mapping */
}

typedef int (*driver_list_fn)(const char *root, struct nn_busid *out, int max);

static void resolve_at(const struct nn_config *cfg, const char *value, nn_visible_busids_fn busids,
                       const char *root, driver_list_fn driver, struct nn_visible *out) {
  clear(out);
  if (!cfg || cfg->n_gpus == 0) return;
  struct nn_busid bus[NN_VISIBLE_MAX];
  int n = busids ? busids(bus, NN_VISIBLE_MAX) : -1;
  if (n >= 0 || !every_gpu_has_bus(cfg)) {
    nn_visible_resolve(cfg, value, busids, out);
    return;
  }
  n = driver(root, bus, NN_VISIBLE_MAX);
  int indices = value && entry_index(value, strcspn(value, ",")) >= 0;
  if (n >= 0 && (!value || (indices && n < cfg->n_gpus)))
    resolve_from(cfg, value, NN_VISIBLE_FROM_PROC, bus, n, out);
  else if (value) resolve_from(cfg, value, NN_VISIBLE_FROM_VARIABLE, NULL, 0, out);
}

void nn_visible_resolve_at(const struct nn_config *cfg, const char *value,
                           nn_visible_busids_fn busids, const char *root, struct nn_visible *out) {
  resolve_at(cfg, value, busids, root, nn_visible_driver_busids, out);
}

/* The driver's list as this process read it under `root`, kept while the directory is the same
 * (device, inode and mtime: an entry added or removed changes the mtime): a container's GPUs do
 * not change while it runs, and the directory may be long (one call read 200,000 names in 140
 * to 250 ms). One stat decides; the read happens outside the lock. */
static struct {
  pthread_mutex_t lock;
  int valid, n, reads;
  char root[4096];
  struct stat id;
  struct nn_busid bus[NN_VISIBLE_MAX];
} g_driver = {.lock = PTHREAD_MUTEX_INITIALIZER};

static int same_dir(const struct stat *a, const struct stat *b) {
  return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
         a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

static int copy_out(const struct nn_busid *bus, int n, struct nn_busid *out, int max) {
  if (n > max) n = max;
  if (n > 0) memcpy(out, bus, (size_t)n * sizeof *out);
  return n;
}

static int driver_busids_kept(const char *root, struct nn_busid *out, int max) {
  const char *r = root ? root : "";
  char dir[4200];
  struct stat id;
  if (strlen(r) >= sizeof g_driver.root ||
      snprintf(dir, sizeof dir, "%s/proc/driver/nvidia/gpus", r) >= (int)sizeof dir ||
      stat(dir, &id) != 0)
    return nn_visible_driver_busids(root, out, max);
  int n = -2;
  pthread_mutex_lock(&g_driver.lock);
  if (g_driver.valid && !strcmp(g_driver.root, r) && same_dir(&g_driver.id, &id))
    n = copy_out(g_driver.bus, g_driver.n, out, max);
  pthread_mutex_unlock(&g_driver.lock);
  if (n != -2) return n;
  struct nn_busid bus[NN_VISIBLE_MAX];
  int got = nn_visible_driver_busids(root, bus, NN_VISIBLE_MAX);
  pthread_mutex_lock(&g_driver.lock);
  snprintf(g_driver.root, sizeof g_driver.root, "%s", r);
  g_driver.id = id;
  g_driver.n = got;
  g_driver.reads++;
  if (got > 0) memcpy(g_driver.bus, bus, (size_t)got * sizeof *bus);
  g_driver.valid = 1;
  pthread_mutex_unlock(&g_driver.lock);
  return copy_out(bus, got, out, max);
}

int nn_visible_driver_reads(void) {
  pthread_mutex_lock(&g_driver.lock);
  int n = g_driver.reads;
  pthread_mutex_unlock(&g_driver.lock);
  return n;
}

static int bus_before(const struct nn_busid *a, const struct nn_busid *b) {
  if (a->domain != b->domain) return a->domain < b->domain;
  if (a->bus != b->bus) return a->bus < b->bus;
  if (a->dev != b->dev) return a->dev < b->dev;
  return a->func < b->func;
}

/* Inserts b into the sorted out[0..n), keeping the lowest `max`; returns the new count. */
static int insert_sorted(struct nn_busid *out, int n, int max, const struct nn_busid *b) {
  int at = n;
  while (at > 0 && bus_before(b, &out[at - 1])) at--;
  if (at >= max) return n;
  int last = n < max ? n : max - 1;
  memmove(&out[at + 1], &out[at], (size_t)(last - at) * sizeof *out);
  out[at] = *b;
  return n < max ? n + 1 : n;
}

int nn_visible_driver_busids(const char *root, struct nn_busid *out, int max) {
  char dir[4096];
  const char *r = root && *root ? root : "";
  if (max <= 0 || snprintf(dir, sizeof dir, "%s/proc/driver/nvidia/gpus", r) >= (int)sizeof dir)
    return -1;
  DIR *d = opendir(dir);
  if (!d) return -1;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    struct nn_busid b;
    if (e->d_name[0] != '.' && nn_busid_parse(e->d_name, &b) == 0)
      n = insert_sorted(out, n, max, &b);
  }
  closedir(d);
  return n;
}

void nn_visible_view(const struct nn_config *cfg, const struct nn_visible *vis,
                     struct nn_gpu *storage, struct nn_config *view) {
  *view = *cfg;
  if (vis->kind != NN_VISIBLE_ONE_NODE && vis->kind != NN_VISIBLE_SPANS) return;
  for (int i = 0; i < vis->n; i++) {
    storage[i] = cfg->gpus[vis->gpu[i]];
    storage[i].index = i;
  }
  view->gpus = storage;
  view->n_gpus = vis->n;
  /* the file keeps the NICs of the visible GPUs' nodes only: it has their CPUs to hang them on */
  view->n_nics = 0;
  for (int i = 0; i < cfg->n_nics; i++) {
    int near = 0;
    for (int k = 0; k < vis->n; k++) near |= cfg->gpus[vis->gpu[k]].numa == cfg->nics[i].numa;
    if (near) view->nics[view->n_nics++] = cfg->nics[i];
  }
}

/* A version token: digits and dots, at least one dot. */
static int is_version(const char *s, size_t len) {
  return len > 2 && len < NN_P2P_DRIVER_CHARS && strspn(s, "0123456789.") >= len && s[0] != '.' &&
         memchr(s, '.', len) != NULL;
}

int nn_visible_driver_version(const char *root, char *buf, size_t size) {
  char path[4096], line[512];
  const char *r = root && *root ? root : "";
  if (size) buf[0] = '\0';
  if (snprintf(path, sizeof path, "%s/proc/driver/nvidia/version", r) >= (int)sizeof path)
    return -1;
  FILE *f = fopen(path, "re");
  if (!f) return -1;
  char *got = fgets(line, sizeof line, f);
  fclose(f);
  /* "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.95.05  Tue Sep 23 ...": the first
   * version-shaped word of the first line (the open modules' "for x86_64" is none) */
  for (const char *s = got; s && *s;) {
    s += strspn(s, " \t");
    size_t len = strcspn(s, " \t\n");
    if (is_version(s, len) && len < size) {
      memcpy(buf, s, len);
      buf[len] = '\0';
      return 0;
    }
    s += len;
  }
  return -1;
}

const char *nn_visible_driver_root(void) {
  /* It gives no more than CUDA_VISIBLE_DEVICES and NCCL_P2P_LEVEL do: which of the mapping's
   * GPUs are judged, and which driver runs. */
  const char *root = getenv(NN_VISIBLE_ROOT_ENV);
  return root && root[0] == '/' ? root : NULL;
}

int nn_visible_order(const struct nn_config *cfg, const struct nn_visible *vis, int *pos, int max) {
  if (vis->unmatched) return -1;
  int named =
    vis->set || vis->n > 0; /* else unset with no driver to ask: every GPU of the mapping */
  int n = named ? vis->n : cfg->n_gpus;
  for (int i = 0; i < n && i < max; i++) pos[i] = named ? vis->gpu[i] : i;
  return n < max ? n : max;
}

void nn_visible_of_process(const struct nn_config *cfg, struct nn_visible *out) {
  resolve_at(cfg, getenv("CUDA_VISIBLE_DEVICES"), nn_cudrv_visible_busids, nn_visible_driver_root(),
             driver_busids_kept, out);
}

const struct nn_config *nn_visible_for_comm(const struct nn_config *cfg,
                                            const struct nn_visible *vis, size_t n_ranks,
                                            size_t n_nodes, struct nn_gpu *storage,
                                            struct nn_config *view) {
  int subset = vis->kind == NN_VISIBLE_ONE_NODE || vis->kind == NN_VISIBLE_SPANS;
  if (!cfg || !subset || n_nodes == 0 || n_ranks / n_nodes > (size_t)vis->n) return cfg;
  nn_visible_view(cfg, vis, storage, view);
  return view;
}
