/* proxmox_numa.c - the Proxmox VM config rewrite for NUMA-aware GPU passthrough;
 * see proxmox_numa.h.
 *
 * Proxmox facts relied on (qemu-server: PVE/QemuServer.pm, PVE/QemuServer/PCI.pm,
 * PVE/QemuServer/Memory.pm):
 *  - config keys are `^[a-z][a-z_-]*\d*:`; Proxmox writes them sorted; `#` lines
 *    of the current config are the VM's description (Notes) and are written back
 *    at the top; `[name]` starts a snapshot, `[PENDING]` pending changes;
 *  - `args:` is split like a shell line and appended after every device Proxmox
 *    generates; the q35 root ports ich9-pcie-port-N use chassis = port = N;
 *  - for a hostpci entry Proxmox gives function 0 `multifunction=on` when it
 *    passes several functions, and function 0 alone gets rombar=0, romfile=
 *    (a file in /usr/share/kvm/) and the x-pci-*-id overrides;
 *  - with `numa: 1` the numaN memory must add up to `memory`, and memory
 *    hot-plug refuses custom NUMA nodes. */
#include "cli/proxmox_numa.h"

#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "numparse.h"

#define MAX_FUNCS 64           /* functions one hostpci entry may pass */

/* ---- a growing string ---- */

struct sbuf {
  char *s;
  size_t len, cap;
  int oom;
};

__attribute__((format(printf, 2, 3))) static void sb_printf(struct sbuf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0 || b->oom) return;
  if (b->len + (size_t)n + 1 > b->cap) {
    size_t cap = (b->cap ? b->cap * 2 : 256) + (size_t)n;
    char *s = realloc(b->s, cap);
    if (!s) {
      b->oom = 1;
      return;
    }
    b->s = s;
    b->cap = cap;
  }
  va_start(ap, fmt);
  vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
}

static void sb_put(struct sbuf *b, const char *s, size_t n) {
  sb_printf(b, "%.*s", (int)n, s);
}

/* Takes the string (never NULL unless out of memory). */
static char *sb_take(struct sbuf *b) {
  if (!b->s && !b->oom) sb_printf(b, "%s", "");
  if (b->oom) {
    free(b->s);
    b->s = NULL;
  }
  char *s = b->s;
  memset(b, 0, sizeof *b);
  return s;
}

/* ---- the config's lines ---- */

struct line {
  const char *p;
  size_t n;                  /* without the newline */
  char key[32];              /* "" when not a key line */
  const char *value;         /* after ": " */
  size_t value_n;
};

struct lines {
  struct line *v;
  int n;
  int main_end;              /* first line of a [section], or n */
  int last_key;              /* last key line before main_end, or -1 */
};

/* The key of a Proxmox config line (`^[a-z][a-z_-]*\d*:`), or 0. */
static int line_key(struct line *l) {
  size_t i = 0;
  if (!l->n || !islower((unsigned char)l->p[0])) return 0;
  while (i < l->n && (islower((unsigned char)l->p[i]) || l->p[i] == '_' || l->p[i] == '-')) i++;
  while (i < l->n && isdigit((unsigned char)l->p[i])) i++;
  if (i >= l->n || l->p[i] != ':' || i >= sizeof l->key) return 0;
  memcpy(l->key, l->p, i);
  l->key[i] = 0;
  size_t v = i + 1;
  while (v < l->n && (l->p[v] == ' ' || l->p[v] == '\t')) v++;
  size_t e = l->n;
  while (e > v && isspace((unsigned char)l->p[e - 1])) e--;
  l->value = l->p + v;
  l->value_n = e - v;
  return 1;
}

static int split_lines(const char *text, size_t len, struct lines *ls) {
  int cap = 1;
  for (size_t i = 0; i < len; i++) cap += text[i] == '\n';
  ls->v = calloc((size_t)cap, sizeof *ls->v);
  if (!ls->v) return -1;
  ls->n = 0;
  for (const char *p = text, *end = text + len; p < end;) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    struct line *l = &ls->v[ls->n++];
    l->p = p;
    l->n = (size_t)((nl ? nl : end) - p);
    p = nl ? nl + 1 : end;
  }
  ls->main_end = ls->n;
  ls->last_key = -1;
  for (int i = 0; i < ls->n; i++) {
    struct line *l = &ls->v[i];
    size_t s = 0;
    while (s < l->n && isspace((unsigned char)l->p[s])) s++;
    if (s < l->n && l->p[s] == '[') {
      ls->main_end = i;
      break;
    }
    if (line_key(l)) ls->last_key = i;
  }
  return 0;
}

/* The value of `key` in the current config into buf, or 0 when absent. */
static int main_value(const struct lines *ls, const char *key, char *buf, size_t size, int *line) {
  for (int i = 0; i < ls->main_end; i++)
    if (!strcmp(ls->v[i].key, key)) {
      snprintf(buf, size, "%.*s", (int)ls->v[i].value_n, ls->v[i].value);
      *line = i + 1;
      return 1;
    }
  return 0;
}

/* ---- the plan ---- */

struct gpu {
  int hostpci, line;
  struct nn_busid gpu;                 /* the GPU function */
  struct nn_busid funcs[MAX_FUNCS];    /* functions passed, ascending */
  int n_funcs;
  int node;                            /* host NUMA node */
  int guest_node, port_index;          /* K and J of nnrpK_J */
  int chassis;
  char extra[256];                     /* vfio-pci options of function 0 */
  char via[96];                        /* "mapping NAME (pci.cfg:LINE)" or "" */
};

struct plan {
  struct gpu gpus[NN_PVE_MAX_HOSTPCI]; /* guest order: host node, then bus id */
  int n_gpus;
  int nodes[NN_PVE_MAX_NUMA];          /* host node of guest node K */
  int n_nodes;
  int per_node[NN_PVE_MAX_NUMA];
  int bus_nr[NN_PVE_MAX_NUMA];
  int cpu_first[NN_PVE_MAX_NUMA], cpu_count[NN_PVE_MAX_NUMA];
  long mem[NN_PVE_MAX_NUMA];
  int vcpus, sockets, cores;           /* as configured (defaults 1) */
  int new_sockets, new_cores;          /* what the rewrite writes */
  int topo_changed;
  int fillers[2];                      /* hostpci index whose slot needs a function 0, or -1 */
};

struct ctx {
  const struct nn_pxn_input *in;
  struct lines ls;
  struct plan plan;
  struct sbuf notes;
  char *err;
  size_t err_size;
};

__attribute__((format(printf, 3, 4))) static int fail(struct ctx *c, int line, const char *fmt, ...) {
  char msg[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (line > 0) snprintf(c->err, c->err_size, "%s:%d: %s", c->in->name, line, msg);
  else snprintf(c->err, c->err_size, "%s: %s", c->in->name, msg);
  return -1;
}

static void fmt_bus(const struct nn_busid *b, char *buf, size_t size) {
  snprintf(buf, size, "%04x:%02x:%02x.%x", b->domain, b->bus, b->dev, b->func);
}

static int same_device(const struct nn_busid *a, const struct nn_busid *b) {
  return a->domain == b->domain && a->bus == b->bus && a->dev == b->dev;
}

static int is_true(const char *v) {
  return !strcmp(v, "1") || !strcmp(v, "on") || !strcmp(v, "yes") || !strcmp(v, "true");
}

static int is_false(const char *v) {
  return !strcmp(v, "0") || !strcmp(v, "off") || !strcmp(v, "no") || !strcmp(v, "false");
}

/* A value that survives Proxmox's shell-like split of args: unchanged. */
static int safe_word(const char *v) {
  if (!*v) return 0;
  for (; *v; v++)
    if (!isalnum((unsigned char)*v) && !strchr("._+-", *v)) return 0;
  return 1;
}

static int hex_id(const char *v) {
  if (strlen(v) != 6 || v[0] != '0' || (v[1] != 'x' && v[1] != 'X')) return 0;
  for (int i = 2; i < 6; i++)
    if (!isxdigit((unsigned char)v[i])) return 0;
  return 1;
}

/* One option of a GPU's hostpci entry: accepted (adding to extra) or refused. */
static int gpu_option(struct ctx *c, struct gpu *g, const char *k, const char *v) {
  size_t used = strlen(g->extra);
  char *x = g->extra + used;
  size_t room = sizeof g->extra - used;
  if (!strcmp(k, "host") || !strcmp(k, "mapping") || !strcmp(k, "pcie")) return 0;
  if (!strcmp(k, "rombar")) {
    if (!is_true(v) && !is_false(v)) return fail(c, g->line, "hostpci%d: rombar=%s is not a boolean", g->hostpci, v);
    if (is_false(v)) snprintf(x, room, ",rombar=0");
    return 0;
  }
  if (!strcmp(k, "romfile")) {
    if (!safe_word(v)) return fail(c, g->line, "hostpci%d: romfile '%s' is not a plain file name", g->hostpci, v);
    snprintf(x, room, ",romfile=/usr/share/kvm/%s", v);
    return 0;
  }
  if (!strcmp(k, "vendor-id") || !strcmp(k, "device-id") || !strcmp(k, "sub-vendor-id") ||
      !strcmp(k, "sub-device-id")) {
    if (!hex_id(v)) return fail(c, g->line, "hostpci%d: %s=%s is not 0x followed by 4 hex digits", g->hostpci, k, v);
    snprintf(x, room, ",x-pci-%s=%s", k, v);
    return 0;
  }
  if (!strcmp(k, "driver")) {
    if (strcmp(v, "vfio") && strcmp(v, "keep")) return fail(c, g->line, "hostpci%d: driver=%s is neither vfio nor keep", g->hostpci, v);
    return 0;                /* args devices are never bound by Proxmox anyway */
  }
  if (!strcmp(k, "x-vga") || !strcmp(k, "legacy-igd") || !strcmp(k, "mdev"))
    return fail(c, g->line, "hostpci%d: %s is not supported behind a PCIe expander (%s); pass this GPU "
                "through hostpci and leave the VM as it is", g->hostpci, k,
                !strcmp(k, "mdev") ? "a mediated/vGPU device is created by Proxmox at start"
                                   : "Proxmox sets up the primary display for it");
  return fail(c, g->line, "hostpci%d: option '%s' is unknown to nccl-numa; it cannot carry it into args:",
              g->hostpci, k);
}

/* Walks the options of the entry's raw value. */
static int gpu_options(struct ctx *c, struct gpu *g, const char *raw) {
  char copy[4096];
  snprintf(copy, sizeof copy, "%s", raw);
  int first = 1;
  for (char *save = NULL, *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    char *eq = strchr(tok, '=');
    const char *k = "host", *v = tok;
    if (eq) {
      *eq = 0;
      k = tok;
      v = eq + 1;
    } else if (!first) {
      return fail(c, g->line, "hostpci%d: '%s' is not key=value", g->hostpci, tok);
    }
    first = 0;
    if (gpu_option(c, g, k, v)) return -1;
  }
  return 0;
}

static void add_func(struct gpu *g, const struct nn_busid *b) {
  int at = g->n_funcs;
  for (int i = 0; i < g->n_funcs; i++)
    if (!nn_discovery_busid_compare(&g->funcs[i], b)) return;
  if (g->n_funcs == MAX_FUNCS) return;
  while (at > 0 && nn_discovery_busid_compare(&g->funcs[at - 1], b) > 0) {
    g->funcs[at] = g->funcs[at - 1];
    at--;
  }
  g->funcs[at] = *b;
  g->n_funcs++;
}

/* The host functions an entry passes (a whole device: every function hwloc lists). */
static int entry_functions(struct ctx *c, const struct nn_pve_hostpci *h, struct gpu *g) {
  const struct nn_discovery *d = c->in->host;
  for (int i = 0; i < h->n_ids; i++) {
    char id[32];
    nn_pve_pciid_format(&h->ids[i], id, sizeof id);
    int found = 0;
    for (int p = 0; p < d->n_pcis; p++) {
      const struct nn_busid *b = &d->pcis[p].bus;
      if (!same_device(b, &h->ids[i].bus) || (h->ids[i].has_func && b->func != h->ids[i].bus.func)) continue;
      add_func(g, b);
      found = 1;
    }
    if (!found)
      return fail(c, h->line, "hostpci%d: %s%s is not a PCI device of this host (%s); run on the Proxmox node "
                  "that holds the VM's devices", h->index, id, g->via, d->source);
  }
  return 0;
}

/* Whether entry h passes an NVIDIA GPU; fills g when it does (1), 0 when not, -1 on error. */
static int classify_entry(struct ctx *c, const struct nn_pve_hostpci *h, struct gpu *g) {
  const struct nn_discovery *d = c->in->host;
  memset(g, 0, sizeof *g);
  g->hostpci = h->index;
  g->line = h->line;
  if (h->mapping && c->in->maps)
    snprintf(g->via, sizeof g->via, " (mapping %s, %s:%d)", h->mapping, c->in->maps->path, h->map_line);
  if (entry_functions(c, h, g)) return -1;
  int n_gpus = 0;
  for (int i = 0; i < g->n_funcs; i++) {
    const struct nn_discovery_pci *p = nn_discovery_find(d, &g->funcs[i]);
    if (p && p->is_gpu) {
      if (!n_gpus) {
        g->gpu = p->bus;
        g->node = p->numa;
      }
      n_gpus++;
    }
  }
  if (!n_gpus) return 0;
  char id[32];
  fmt_bus(&g->gpu, id, sizeof id);
  if (n_gpus > 1) return fail(c, h->line, "hostpci%d%s passes %d NVIDIA GPUs in one entry; give each GPU its own hostpci entry", h->index, g->via, n_gpus);
  for (int i = 0; i < g->n_funcs; i++)
    if (!same_device(&g->funcs[i], &g->gpu))
      return fail(c, h->line, "hostpci%d%s mixes the GPU %s with functions of another device; give each device its own hostpci entry", h->index, g->via, id);
  if (!h->pcie)
    return fail(c, h->line, "hostpci%d passes the GPU %s without pcie=1; the rewrite puts it on a PCIe root port, so "
                "set pcie=1 first (and check that the VM still works) or leave this VM as it is", h->index, id);
  if (g->node < 0) {
    const struct nn_discovery_pci *p = nn_discovery_find(d, &g->gpu);
    return fail(c, h->line, "hostpci%d: the NUMA node of GPU %s is unknown (%s); run this on the Proxmox host "
                "whose topology hwloc can read", h->index, id, p ? p->unknown_why : "?");
  }
  return gpu_options(c, g, h->raw) ? -1 : 1;
}

static int gpu_cmp(const void *a, const void *b) {
  const struct gpu *x = a, *y = b;
  if (x->node != y->node) return x->node < y->node ? -1 : 1;
  return nn_discovery_busid_compare(&x->gpu, &y->gpu);
}

static int is_removed(const struct plan *p, int hostpci) {
  for (int i = 0; i < p->n_gpus; i++)
    if (p->gpus[i].hostpci == hostpci) return 1;
  return 0;
}

/* Collects the GPU entries, sorts them into guest order and numbers their ports. */
static int plan_gpus(struct ctx *c) {
  struct plan *p = &c->plan;
  const struct nn_pve_vm *vm = c->in->vm;
  for (int i = 0; i < vm->n_hostpci; i++) {
    int r = classify_entry(c, &vm->hostpci[i], &p->gpus[p->n_gpus]);
    if (r < 0) return -1;
    p->n_gpus += r;
  }
  if (!p->n_gpus)
    return fail(c, 0, "no hostpci entry of this VM passes an NVIDIA GPU of this host: nothing to do");
  qsort(p->gpus, (size_t)p->n_gpus, sizeof p->gpus[0], gpu_cmp);
  for (int i = 0; i < p->n_gpus; i++) {
    struct gpu *g = &p->gpus[i];
    if (!p->n_nodes || p->nodes[p->n_nodes - 1] != g->node) {
      if (p->n_nodes == NN_PVE_MAX_NUMA)
        return fail(c, 0, "the GPUs sit on more than %d host NUMA nodes; Proxmox allows %d guest nodes",
                    NN_PVE_MAX_NUMA, NN_PVE_MAX_NUMA);
      p->nodes[p->n_nodes++] = g->node;
    }
    g->guest_node = p->n_nodes - 1;
    g->port_index = p->per_node[g->guest_node]++;
    g->chassis = NN_PXN_CHASSIS_BASE + i;
  }
  return 0;
}

/* Expander bus numbers: each needs its own bus plus one per root port. */
static int plan_buses(struct ctx *c) {
  struct plan *p = &c->plan;
  int bus = NN_PXN_BUS_BASE;
  for (int k = 0; k < p->n_nodes; k++) {
    int needs = 1 + p->per_node[k];
    if (bus + needs - 1 > 255) return fail(c, 0, "the expander buses would need bus numbers above 255");
    p->bus_nr[k] = bus;
    bus += (needs + NN_PXN_BUS_HEADROOM + 15) / 16 * 16;
  }
  return 0;
}

/* Proxmox puts hostpci4-11 on root ports at 00:10.0-10.7 and hostpci12-15 at
 * 00:11.0-11.3, all functions of one multifunction slot. A guest only scans a
 * slot whose function 0 exists, so removing hostpci4 (or 12) would hide every
 * remaining entry of that slot: an empty root port then takes function 0. */
static void plan_fillers(struct ctx *c) {
  static const int first[2] = {4, 12}, last[2] = {11, 15};
  const struct nn_pve_vm *vm = c->in->vm;
  for (int s = 0; s < 2; s++) {
    c->plan.fillers[s] = -1;
    if (!is_removed(&c->plan, first[s])) continue;
    for (int i = 0; i < vm->n_hostpci; i++) {
      const struct nn_pve_hostpci *h = &vm->hostpci[i];
      if (h->index > first[s] && h->index <= last[s] && h->pcie && !is_removed(&c->plan, h->index))
        c->plan.fillers[s] = first[s];
    }
  }
}

/* After the GPU entries are gone Proxmox assigns the other mapping= entries
 * again; refuse when one of them would then receive different devices (a
 * mapping that mixes GPUs with other devices). */
static int check_remaining(struct ctx *c) {
  const struct nn_pve_vm *vm = c->in->vm;
  struct nn_pve_vm *rest = malloc(sizeof *rest);
  char err[1024];
  if (!rest) return fail(c, 0, "out of memory");
  *rest = *vm;                 /* shallow: only the hostpci array is edited */
  rest->n_hostpci = 0;
  for (int i = 0; i < vm->n_hostpci; i++) {
    if (is_removed(&c->plan, vm->hostpci[i].index)) continue;
    struct nn_pve_hostpci *h = &rest->hostpci[rest->n_hostpci++];
    *h = vm->hostpci[i];
    if (h->mapping) h->n_ids = 0;
  }
  int rc = nn_pve_assign(rest, c->in->maps, c->in->node, err, sizeof err);
  for (int i = 0, j = 0; rc == 0 && i < vm->n_hostpci; i++) {
    const struct nn_pve_hostpci *was = &vm->hostpci[i];
    if (is_removed(&c->plan, was->index)) continue;
    const struct nn_pve_hostpci *now = &rest->hostpci[j++];
    if (now->n_ids != was->n_ids || memcmp(now->ids, was->ids, sizeof now->ids[0] * (size_t)now->n_ids)) {
      char id[32];
      nn_pve_pciid_format(&now->ids[0], id, sizeof id);
      free(rest);
      return fail(c, was->line, "hostpci%d (mapping %s) would receive %s from Proxmox once the GPU entries are "
                  "gone, a device the rewrite passes itself; split the mapping so GPUs and other devices are "
                  "in different mappings", was->index, was->mapping, id);
    }
  }
  free(rest);
  if (rc) return fail(c, 0, "the remaining hostpci entries cannot be assigned: %s", err);
  return 0;
}

/* vCPUs and memory over the guest nodes; the socket count when it fits. */
static int plan_topology(struct ctx *c) {
  struct plan *p = &c->plan;
  const struct nn_pve_vm *vm = c->in->vm;
  int n = p->n_nodes;
  p->sockets = vm->sockets > 0 ? vm->sockets : 1;
  p->cores = vm->cores > 0 ? vm->cores : 1;
  p->vcpus = p->sockets * p->cores;
  if (p->vcpus < n)
    return fail(c, 0, "the VM has %d vCPU%s (sockets x cores) for %d guest NUMA nodes; give it at least %d",
                p->vcpus, p->vcpus == 1 ? "" : "s", n, n);
  if (vm->memory_mb <= 0)
    return fail(c, 0, "no memory: line; set the VM's memory explicitly first (its NUMA split needs it)");
  if (vm->memory_mb < n) return fail(c, 0, "memory %ld MiB cannot be split over %d nodes", vm->memory_mb, n);
  for (int k = 0, first = 0; k < n; k++) {
    p->cpu_count[k] = p->vcpus / n + (k < p->vcpus % n);
    p->cpu_first[k] = first;
    first += p->cpu_count[k];
    p->mem[k] = vm->memory_mb / n + (k < vm->memory_mb % n);
  }
  p->new_sockets = p->sockets;
  p->new_cores = p->cores;
  if (p->vcpus % n == 0) {
    p->new_sockets = n;
    p->new_cores = p->vcpus / n;
  } else {
    sb_printf(&c->notes, "sockets stays %d (cores %d): %d vCPUs do not split into %d equal sockets, so guest "
              "node 0 gets %d vCPUs and node %d gets %d, and a guest socket spans NUMA nodes; make the vCPU "
              "count a multiple of %d to get one socket per node\n", p->sockets, p->cores, p->vcpus, n,
              p->cpu_count[0], n - 1, p->cpu_count[n - 1], n);
  }
  p->topo_changed = p->new_sockets != p->sockets || p->new_cores != p->cores;
  return 0;
}

/* Settings the rewrite cannot live with. */
static int check_config(struct ctx *c) {
  const struct nn_pve_vm *vm = c->in->vm;
  char v[4096];
  int line = 0;   /* 0: no line to name (the machine: key may be absent) */
  if (!nn_pve_vm_is_q35(vm)) {
    main_value(&c->ls, "machine", v, sizeof v, &line);
    return fail(c, vm->machine ? line : 0, "the VM is %s%s%s, not q35: PCIe expander buses need the q35 machine; "
                "switch it to q35 (a change of the guest's hardware: test it) first",
                vm->machine ? "'" : "", vm->machine ? vm->machine : "i440fx (no machine: line)", vm->machine ? "'" : "");
  }
  for (int i = c->ls.main_end; i < c->ls.n; i++) {
    const struct line *l = &c->ls.v[i];
    if (l->n >= 9 && !strncasecmp(l->p, "[PENDING]", 9))
      return fail(c, i + 1, "the VM has pending changes; apply or revert them first (qm config %s --current "
                  "shows the difference)", c->in->vmid ? c->in->vmid : "<vmid>");
  }
  if (main_value(&c->ls, "hotplug", v, sizeof v, &line) && strstr(v, "memory"))
    return fail(c, line, "hotplug includes memory, which Proxmox refuses with custom NUMA nodes; remove memory "
                "from hotplug first");
  if (main_value(&c->ls, "args", v, sizeof v, &line)) {
    if (strstr(v, "pxb") || strstr(v, "nnrp"))
      return fail(c, line, "args: already defines a PCIe expander (pxb); this VM looks rewritten already "
                  "(restore the .bak to start over), or its args: must be merged by hand");
    if (strstr(v, "vfio"))
      return fail(c, line, "args: already passes devices with vfio-pci; merge them by hand, nccl-numa will not "
                  "guess how they relate to the GPUs");
    for (const char *s = v; (s = strstr(s, "chassis=")); s++) {
      long ch = strtol(s + 8, NULL, 10);
      if (ch >= NN_PXN_CHASSIS_BASE && ch < NN_PXN_CHASSIS_BASE + NN_PVE_MAX_HOSTPCI + 2)
        return fail(c, line, "args: uses chassis %ld, which the new root ports need (%d-%d)", ch,
                    NN_PXN_CHASSIS_BASE, NN_PXN_CHASSIS_BASE + NN_PVE_MAX_HOSTPCI + 1);
    }
  }
  return 0;
}

/* An `affinity:` (the CPUs the whole VM may run on) stays; say which host CPUs
 * belong to the nodes its memory is now bound to, so the user can compare. */
static void note_affinity(struct ctx *c) {
  char v[512];
  int line;
  if (!main_value(&c->ls, "affinity", v, sizeof v, &line)) return;
  sb_printf(&c->notes, "affinity: %s is kept; the guest's memory is now bound to host node", v);
  for (int k = 0; k < c->plan.n_nodes; k++) {
    const struct nn_discovery_numa *m = nn_discovery_find_numa(c->in->host, c->plan.nodes[k]);
    sb_printf(&c->notes, "%s %d (CPUs %s)", k ? "," : "", c->plan.nodes[k], m && m->cpus ? m->cpus : "?");
  }
  sb_printf(&c->notes, ": check that the affinity covers those CPUs\n");
}

/* ---- text ---- */

static int filler_chassis(int s) {
  return NN_PXN_CHASSIS_BASE + NN_PVE_MAX_HOSTPCI + s;
}

static void write_args(struct ctx *c, struct sbuf *b) {
  const struct plan *p = &c->plan;
  const char *sep = "";
  for (int s = 0; s < 2; s++)
    if (p->fillers[s] >= 0) {
      sb_printf(b, "%s-device pcie-root-port,id=nnfill%d,bus=pcie.0,addr=%s,multifunction=on,chassis=%d,port=%d",
                sep, p->fillers[s], s ? "11.0" : "10.0", filler_chassis(s), filler_chassis(s));
      sep = " ";
    }
  for (int k = 0; k < p->n_nodes; k++) {
    sb_printf(b, "%s-device pxb-pcie,id=nnpxb%d,bus_nr=%d,numa_node=%d,bus=pcie.0", sep, k, p->bus_nr[k], k);
    sep = " ";
    for (int i = 0; i < p->n_gpus; i++) {
      const struct gpu *g = &p->gpus[i];
      if (g->guest_node != k) continue;
      sb_printf(b, " -device pcie-root-port,id=nnrp%d_%d,bus=nnpxb%d,chassis=%d,slot=0,port=%d", k,
                g->port_index, k, g->chassis, g->chassis);
      for (int f = 0; f < g->n_funcs; f++) {
        char id[32];
        fmt_bus(&g->funcs[f], id, sizeof id);
        sb_printf(b, " -device vfio-pci,host=%s,bus=nnrp%d_%d", id, k, g->port_index);
        if (g->n_funcs > 1) sb_printf(b, ",addr=0.%d%s", f, f == 0 ? ",multifunction=on" : "");
        if (f == 0) sb_printf(b, "%s", g->extra);
      }
    }
  }
}

static void gpu_label(const struct gpu *g, char *buf, size_t size) {
  char id[32];
  fmt_bus(&g->funcs[0], id, sizeof id);
  if (g->n_funcs == 1) {
    snprintf(buf, size, "%s", id);
    return;
  }
  size_t n = strlen(id) - 2;   /* "0000:01:00" and its functions ".0+.1" */
  snprintf(buf, size, "%.*s", (int)n, id);
  for (int f = 0; f < g->n_funcs && strlen(buf) + 4 < size; f++)
    snprintf(buf + strlen(buf), size - strlen(buf), "%s.%x", f ? "+" : "", g->funcs[f].func);
}

static int has_mapping(const struct plan *p) {
  for (int i = 0; i < p->n_gpus; i++)
    if (p->gpus[i].via[0]) return 1;
  return 0;
}

/* The CPU kind NCCL will detect in the guest: the guest's CPUID, set by the VM's CPU type. */
static void write_cpu_note(const struct nn_pve_vm *vm, struct sbuf *b) {
  const char *t = vm->cpu ? vm->cpu : "";
  int host = !strncmp(t, "host", 4) && (!t[4] || t[4] == ',');
  sb_printf(b, "# CPU type %s%s: NCCL in the guest models the socket link by the guest's CPUID.\n", t[0] ? "cpu: " : "",
            t[0] ? t : "Proxmox's default (no cpu: line)");
  if (host)
    sb_printf(b, "#  `cpu: host` passes the host's family through: NCCL 2.31+ models AMD Zen 3/4 at 24 GB/s and\n"
                 "#  Zen 5 at 32 GB/s; older NCCL every AMD CPU at 16 GB/s.\n");
  else
    sb_printf(b, "#  Proxmox's default and named types may hide the host's family (`cpu: host` passes it\n"
                 "#  through); with another family NCCL 2.31+ models an AMD guest at 16 GB/s, as older NCCL\n"
                 "#  does every AMD CPU. `nccl-numa check` in the guest shows the kind NCCL detects.\n");
}

static void write_header(struct ctx *c, struct sbuf *b) {
  const struct plan *p = &c->plan;
  const char *vmid = c->in->vmid ? c->in->vmid : "<vmid>";
  const char *base = strrchr(c->in->name, '/');
  base = base ? base + 1 : c->in->name;
  sb_printf(b, "# nccl-numa proxmox-numa: NUMA-aware GPU passthrough for VM %s on node %s.\n", vmid, c->in->node);
  sb_printf(b, "# The config before this change is %s.bak when it was written with --write.\n", base);
  sb_printf(b, "# Removed the NVIDIA GPUs' entries");
  const char *sep = " ";
  for (int h = 0; h < NN_PVE_MAX_HOSTPCI; h++) {
    if (!is_removed(p, h)) continue;
    int last = h;
    while (last + 1 < NN_PVE_MAX_HOSTPCI && is_removed(p, last + 1)) last++;
    if (last == h) sb_printf(b, "%shostpci%d", sep, h);
    else sb_printf(b, "%shostpci%d-%d", sep, h, last);
    sep = ", ";
    h = last;
  }
  sb_printf(b, ".\n# args: passes them now: one PCIe expander bus (pxb-pcie) per guest NUMA node,\n"
               "#  each GPU behind its own root port (Proxmox's own ports use chassis 1-16):\n");
  for (int k = 0; k < p->n_nodes; k++) {
    sb_printf(b, "#  guest node %d = host node %d: vCPUs %d-%d, %ld MiB (policy=bind), expander nnpxb%d bus %d\n",
              k, p->nodes[k], p->cpu_first[k], p->cpu_first[k] + p->cpu_count[k] - 1, p->mem[k], k, p->bus_nr[k]);
    for (int i = 0; i < p->n_gpus; i++) {
      const struct gpu *g = &p->gpus[i];
      char label[64];
      if (g->guest_node != k) continue;
      gpu_label(g, label, sizeof label);
      sb_printf(b, "#    %s was hostpci%d: root port nnrp%d_%d chassis %d port %d\n", label, g->hostpci, k,
                g->port_index, g->chassis, g->chassis);
    }
  }
  for (int s = 0; s < 2; s++)
    if (p->fillers[s] >= 0)
      sb_printf(b, "#  nnfill%d: an empty root port (chassis %d) at 00:%s.0 in place of hostpci%d's, so the\n"
                   "#    other hostpci entries of that slot stay visible; remove it if hostpci%d returns.\n",
                p->fillers[s], filler_chassis(s), s ? "11" : "10", p->fillers[s], p->fillers[s]);
  if (has_mapping(p))
    sb_printf(b, "#  GPUs of mapping= entries are pinned to the device Proxmox chose for them here.\n");
  if (p->topo_changed)
    sb_printf(b, "#  sockets %d x cores %d (was %d x %d): one guest socket per NUMA node.\n", p->new_sockets,
              p->new_cores, p->sockets, p->cores);
  else if (p->vcpus % p->n_nodes)
    sb_printf(b, "#  sockets %d x cores %d unchanged: %d vCPUs do not split into %d equal sockets.\n", p->sockets,
              p->cores, p->vcpus, p->n_nodes);
  write_cpu_note(c->in->vm, b);
  sb_printf(b, "# By hand now:\n"
               "#  1. Proxmox no longer manages these GPUs: bind them to vfio-pci on the host before the VM\n"
               "#     starts (see nccl-numa's docs/proxmox.md, \"Binding the GPUs to vfio-pci\").\n"
               "#  2. No hot-plug behind an expander: GPU changes need a VM stop and start.\n"
               "#  3. Review the QEMU command: qm showcmd %s --pretty\n"
               "#  4. Stop and start the VM (a reboot inside the guest keeps the old layout).\n"
               "#  In the guest the GPUs now enumerate node by node in host bus order.\n", vmid);
}

struct pending {
  char key[16];
  char *text;                  /* the whole line, without newline */
};

static int add_pending(struct pending *pv, int *n, const char *key, struct sbuf *b) {
  char *t = sb_take(b);
  if (!t) return -1;
  snprintf(pv[*n].key, sizeof pv[*n].key, "%s", key);
  pv[(*n)++].text = t;
  return 0;
}

/* The lines the rewrite adds or replaces, in Proxmox's (sorted) key order. */
static int build_pending(struct ctx *c, struct pending *pv, int *n) {
  const struct plan *p = &c->plan;
  struct sbuf b = {0};
  char old[4096];
  int line;
  sb_printf(&b, "args: ");
  if (main_value(&c->ls, "args", old, sizeof old, &line)) sb_printf(&b, "%s ", old);
  write_args(c, &b);
  if (add_pending(pv, n, "args", &b)) return -1;
  if (p->topo_changed) {
    sb_printf(&b, "cores: %d", p->new_cores);
    if (add_pending(pv, n, "cores", &b)) return -1;
  }
  sb_printf(&b, "numa: 1");
  if (add_pending(pv, n, "numa", &b)) return -1;
  for (int k = 0; k < p->n_nodes; k++) {
    char key[16];
    snprintf(key, sizeof key, "numa%d", k);
    sb_printf(&b, "numa%d: cpus=%d", k, p->cpu_first[k]);
    if (p->cpu_count[k] > 1) sb_printf(&b, "-%d", p->cpu_first[k] + p->cpu_count[k] - 1);
    sb_printf(&b, ",hostnodes=%d,memory=%ld,policy=bind", p->nodes[k], p->mem[k]);
    if (add_pending(pv, n, key, &b)) return -1;
  }
  if (p->topo_changed) {
    sb_printf(&b, "sockets: %d", p->new_sockets);
    if (add_pending(pv, n, "sockets", &b)) return -1;
  }
  return 0;
}

/* Whether an original key line of the current config is replaced or removed. */
static int dropped(const struct ctx *c, const char *key) {
  int n;
  if (!strcmp(key, "args") || !strcmp(key, "numa")) return 1;
  if (c->plan.topo_changed && (!strcmp(key, "sockets") || !strcmp(key, "cores"))) return 1;
  if (!strncmp(key, "numa", 4) && !nn_int_parse(key + 4, 0, INT_MAX, &n)) return 1;
  if (!strncmp(key, "hostpci", 7) && !nn_int_parse(key + 7, 0, INT_MAX, &n)) return is_removed(&c->plan, n);
  return 0;
}

static void emit(struct ctx *c, struct sbuf *b, struct pending *pv, int n_pending) {
  int next = 0;
  write_header(c, b);
  if (c->ls.last_key < 0)
    while (next < n_pending) sb_printf(b, "%s\n", pv[next++].text);
  for (int i = 0; i < c->ls.n; i++) {
    const struct line *l = &c->ls.v[i];
    int in_main = i < c->ls.main_end;
    if (in_main && l->key[0])
      while (next < n_pending && strcmp(pv[next].key, l->key) < 0) sb_printf(b, "%s\n", pv[next++].text);
    if (!(in_main && l->key[0] && dropped(c, l->key))) {
      sb_put(b, l->p, l->n);
      sb_printf(b, "\n");
    }
    if (i == c->ls.last_key)
      while (next < n_pending) sb_printf(b, "%s\n", pv[next++].text);
  }
}

int nn_pxn_rewrite(const struct nn_pxn_input *in, struct nn_pxn_output *out, char *err, size_t err_size) {
  struct ctx *c = calloc(1, sizeof *c);
  struct pending pv[4 + NN_PVE_MAX_NUMA];
  int n_pending = 0, rc = -1;
  memset(out, 0, sizeof *out);
  if (!c) {
    snprintf(err, err_size, "out of memory");
    return -1;
  }
  c->in = in;
  c->err = err;
  c->err_size = err_size;
  if (split_lines(in->text, in->len, &c->ls)) {
    fail(c, 0, "out of memory");
  } else if (!check_config(c) && !plan_gpus(c) && !plan_buses(c) && !check_remaining(c) &&
             !plan_topology(c)) {
    plan_fillers(c);
    note_affinity(c);
    if (build_pending(c, pv, &n_pending)) {
      fail(c, 0, "out of memory");
    } else {
      struct sbuf b = {0};
      emit(c, &b, pv, n_pending);
      out->text = sb_take(&b);
      out->notes = sb_take(&c->notes);
      rc = out->text && out->notes ? 0 : fail(c, 0, "out of memory");
    }
  }
  for (int i = 0; i < n_pending; i++) free(pv[i].text);
  if (rc) {
    nn_pxn_output_free(out);
    free(sb_take(&c->notes));
  }
  free(c->ls.v);
  free(c);
  return rc;
}

void nn_pxn_output_free(struct nn_pxn_output *out) {
  free(out->text);
  free(out->notes);
  out->text = out->notes = NULL;
}

int nn_pxn_vmid_from_path(const char *path, char *buf, size_t size) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  size_t digits = strspn(base, "0123456789");
  buf[0] = 0;
  if (!digits || digits > 9 || strcmp(base + digits, ".conf") || digits + 1 > size) return -1;
  snprintf(buf, size, "%.*s", (int)digits, base);
  return 0;
}
