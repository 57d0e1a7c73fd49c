/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * proxmox_numa_parts.h - the pieces of the Proxmox config rewrite (proxmox_numa.h),
 * shared by its files and nothing else: proxmox_numa_lines.c splits the config into lines
 * (and words the rewrite's error), proxmox_numa_plan.c decides what moves where (and
 * refuses what it cannot carry over), proxmox_numa_text.c writes the new config from that
 * plan, and proxmox_numa.c drives the three. Each uses only those listed before it.
 */
#ifndef NCCL_NUMA_CLI_PROXMOX_NUMA_PARTS_H
#define NCCL_NUMA_CLI_PROXMOX_NUMA_PARTS_H

#include <stddef.h>

#include "cli/proxmox/proxmox_numa.h"
#include "cli/common/strbuf.h"

#define NN_PROXMOX_NUMA_MAX_FUNCS 64 /* functions one hostpci entry may pass */

/* One line of the config; a key line (`^[a-z][a-z_-]*\d*:`) has key and value. */
struct nn_proxmox_numa_line {
  const char *p;
  size_t n;          /* without the newline */
  char key[32];      /* "" when not a key line */
  const char *value; /* after ": " */
  size_t value_n;
};

/* The config split into lines, and where its current part ends. */
struct nn_proxmox_numa_lines {
  struct nn_proxmox_numa_line *v;
  int n;
  int main_end; /* first line of a [section], or n */
  int last_key; /* last key line before main_end, or -1 */
};

/* One GPU entry of the VM and where the rewrite puts it. */
struct nn_proxmox_numa_gpu {
  int hostpci, line;
  struct nn_busid gpu;                              /* the GPU function */
  struct nn_busid funcs[NN_PROXMOX_NUMA_MAX_FUNCS]; /* functions passed, ascending */
  int n_funcs;
  int node;                   /* host NUMA node */
  int guest_node, port_index; /* K and J of nnrpK_J */
  int chassis;
  char extra[256]; /* vfio-pci options of function 0 */
  char via[96];    /* "mapping NAME (pci.cfg:LINE)" or "" */
  int is_nic;      /* a NIC entry (hwloc: network/openfabrics), moved with its
                      node's GPUs; `gpu` is then the NIC's function */
};

/* Everything the rewrite decided, before any text is written. */
struct nn_proxmox_numa_plan {
  struct nn_proxmox_numa_gpu
    gpus[NN_PVE_MAX_HOSTPCI]; /* guest order: host node, GPUs by bus id, then NICs */
  int n_gpus;                 /* entries moved: GPUs and NICs */
  int n_nics;                 /* of which NICs */
  int nodes[NN_PVE_MAX_NUMA]; /* host node of guest node K */
  int n_nodes;
  int per_node[NN_PVE_MAX_NUMA];
  int bus_nr[NN_PVE_MAX_NUMA];
  int cpu_first[NN_PVE_MAX_NUMA], cpu_count[NN_PVE_MAX_NUMA];
  long mem[NN_PVE_MAX_NUMA];
  int vcpus, sockets, cores;  /* as configured (defaults 1) */
  int new_sockets, new_cores; /* what the rewrite writes */
  int topo_changed;
  int fillers[2]; /* hostpci index whose slot needs a function 0, or -1 */
};

/* One rewrite: its input, the config's lines, the plan, notes for the user, the error. */
struct nn_proxmox_numa_ctx {
  const struct nn_proxmox_numa_input *in;
  struct nn_proxmox_numa_lines ls;
  struct nn_proxmox_numa_plan plan;
  struct nn_strbuf notes;
  char *err;
  size_t errsz;
};

/* Splits text into ls's lines (ls->v malloc'd), finding where the current config ends.
 * Returns 0, or -1 when out of memory. */
int nn_proxmox_numa_lines_split(const char *text, size_t len, struct nn_proxmox_numa_lines *ls);

/* Puts "NAME:LINE: message" (line > 0) or "NAME: message" into the context's error
 * buffer; returns -1, so a check can `return nn_proxmox_numa_fail(...)`. */
int nn_proxmox_numa_fail(struct nn_proxmox_numa_ctx *c, int line, const char *fmt, ...)
  __attribute__((format(printf, 3, 4)));

/* The value of `key` in the current config (not a snapshot or [PENDING]) into buf and
 * its 1-based line into *line; 0 when the key is absent. */
int nn_proxmox_numa_main_value(const struct nn_proxmox_numa_lines *ls, const char *key, char *buf,
                               size_t size, int *line);

/* Whether hostpci<hostpci> is one of the GPU entries the plan moves into args:. */
int nn_proxmox_numa_is_removed(const struct nn_proxmox_numa_plan *p, int hostpci);

/* Checks the config and fills c->plan: GPUs in guest order, expander buses, vCPUs and
 * memory per guest node, slot fillers, notes. Returns 0, or -1 with c's error set. */
int nn_proxmox_numa_plan(struct nn_proxmox_numa_ctx *c);

/* The new config text from c->plan: the header comment, the original lines in order
 * with the replaced ones dropped, the new keys in Proxmox's sorted place. Returns a
 * malloc'd text, or NULL when out of memory. */
char *nn_proxmox_numa_write(struct nn_proxmox_numa_ctx *c);

#endif
