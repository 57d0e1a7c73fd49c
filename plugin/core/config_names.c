/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * config_names.c - what the rest of the project shares about the mapping's
 * vocabulary: the names of collectives, algorithms, protocols, scopes and
 * topology modes; bus ids; and the diagnostics list every parser reports into.
 */
#include "ascii.h"
#include "nn_config.h"
#include "printable.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NN_DIAG_CAP 100

/* ------------------------------------------------------------------ names */

static const char *const coll_names[NN_COLL_COUNT] = {"broadcast", "reduce", "allgather",
                                                      "reducescatter", "allreduce"};
/* The spelling of NCCL's API and nccl-tests (ncclAllReduce, all_reduce_perf). */
static const char *const coll_alt_names[NN_COLL_COUNT] = {"broadcast", "reduce", "all_gather",
                                                          "reduce_scatter", "all_reduce"};
static const char *const algo_names[NN_ALGO_COUNT] = {
  "tree", "ring", "collnet_direct", "collnet_chain", "nvls", "nvls_tree", "pat"};
static const char *const proto_names[NN_PROTO_COUNT] = {"ll", "ll128", "simple"};
static const char *const nccl_coll_names[NN_COLL_COUNT] = {"Broadcast", "Reduce", "AllGather",
                                                           "ReduceScatter", "AllReduce"};
static const char *const nccl_algo_names[NN_ALGO_COUNT] = {
  "Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS", "NVLSTree", "PAT"};
static const char *const nccl_proto_names[NN_PROTO_COUNT] = {"LL", "LL128", "Simple"};
static const struct {
  const char *const *names;
  int n;
} nccl_names[] = {{nccl_coll_names, NN_COLL_COUNT},
                  {nccl_algo_names, NN_ALGO_COUNT},
                  {nccl_proto_names, NN_PROTO_COUNT}};
static const char *const scope_names[] = {"any", "intra", "cross", "unknown"};
static const char *const topo_mode_names[] = {"auto", "numa", "off"};

#define NN_COUNT_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const char *name_at(const char *const *names, int n, int i) {
  return (i >= 0 && i < n) ? names[i] : "?";
}

static int index_of(const char *const *names, int n, const char *s) {
  if (!s) return -2;
  for (int i = 0; i < n; i++)
    if (nn_ascii_caseeq(names[i], s)) return i;
  return -2;
}

const char *nn_coll_name(int coll) {
  return coll == NN_ANY ? "any" : name_at(coll_names, NN_COLL_COUNT, coll);
}
const char *nn_algo_name(int algo) {
  return algo == NN_ANY ? "any" : name_at(algo_names, NN_ALGO_COUNT, algo);
}
const char *nn_proto_name(int proto) {
  return proto == NN_ANY ? "any" : name_at(proto_names, NN_PROTO_COUNT, proto);
}
const char *nn_scope_name(int scope) {
  return name_at(scope_names, NN_COUNT_OF(scope_names), scope);
}
const char *nn_topo_mode_name(int mode) {
  return name_at(topo_mode_names, NN_COUNT_OF(topo_mode_names), mode);
}

const char *nn_nccl_name(int kind, int index) {
  if (kind < NN_NAME_COLL || kind > NN_NAME_PROTO) return "?";
  return name_at(nccl_names[kind].names, nccl_names[kind].n, index);
}

int nn_nccl_name_find(int kind, const char *s, size_t n) {
  if (!s || kind < NN_NAME_COLL || kind > NN_NAME_PROTO) return -1;
  for (int i = 0; i < nccl_names[kind].n; i++) {
    const char *name = nccl_names[kind].names[i];
    if (strlen(name) == n && nn_ascii_caseeq_n(s, name, n)) return i;
  }
  return -1;
}

int nn_coll_from_name(const char *s) {
  if (s && nn_ascii_caseeq(s, "any")) return NN_ANY;
  int c = index_of(coll_names, NN_COLL_COUNT, s);
  return c >= 0 ? c : index_of(coll_alt_names, NN_COLL_COUNT, s);
}
int nn_algo_from_name(const char *s) { return index_of(algo_names, NN_ALGO_COUNT, s); }
int nn_proto_from_name(const char *s) { return index_of(proto_names, NN_PROTO_COUNT, s); }
int nn_scope_from_name(const char *s) {
  return index_of(scope_names, NN_COUNT_OF(scope_names) - 1, s); /* "unknown" is not a rule value */
}
int nn_topo_mode_from_name(const char *s) {
  return index_of(topo_mode_names, NN_COUNT_OF(topo_mode_names), s);
}

/* ------------------------------------------------------------------ diag */

/* A message is printed by check-config and logged as a WARN: whatever a caller put in it
 * from a file, no raw control byte survives. Takes msg (n bytes); NULL when out of memory. */
static char *diag_safe(char *msg, size_t n) {
  size_t i = 0;
  while (i < n && (unsigned char)msg[i] >= 0x20 && (unsigned char)msg[i] < 0x7f) i++;
  if (i == n) return msg;
  char *out = n < ((size_t)-1 - 1) / 4 ? malloc(4 * n + 1) : NULL;
  if (out) nn_printable(out, 4 * n + 1, msg, n, NULL);
  free(msg);
  return out;
}

void nn_diag_add(struct nn_diag *d, const char *fmt, ...) {
  if (!d) return;
  if (d->n >= NN_DIAG_CAP) {
    d->dropped++;
    return;
  }
  va_list ap;
  va_start(ap, fmt);
  char *msg = NULL;
  int r = vasprintf(&msg, fmt, ap);
  va_end(ap);
  if (r >= 0) msg = diag_safe(msg, (size_t)r);
  else msg = NULL;
  char **grown = !msg ? NULL : realloc(d->msgs, (size_t)(d->n + 1) * sizeof *d->msgs);
  if (!grown) {
    free(msg);
    d->dropped++;
    return;
  }
  d->msgs = grown;
  d->msgs[d->n++] = msg;
}

void nn_diag_clear(struct nn_diag *d) {
  if (!d) return;
  for (int i = 0; i < d->n; i++) free(d->msgs[i]);
  free(d->msgs);
  d->msgs = NULL;
  d->n = 0;
  d->dropped = 0;
}

/* ------------------------------------------------------------------ bus ids */

/* Hex digits from s to end, between min and max of them. */
static int hex_field(const char *s, const char *end, int min, int max, unsigned long *out) {
  int n = (int)(end - s);
  if (n < min || n > max) return -1;
  unsigned long v = 0;
  for (int i = 0; i < n; i++) {
    int d = nn_ascii_hex_digit((unsigned char)s[i]);
    if (d < 0) return -1;
    v = v * 16 + (unsigned long)d;
  }
  *out = v;
  return 0;
}

int nn_busid_parse(const char *s, struct nn_busid *out) {
  if (!s || !out) return -1;
  const char *c1 = strchr(s, ':');
  if (!c1) return -1;
  const char *c2 = strchr(c1 + 1, ':');
  unsigned long dom = 0, bus, dev, fn;
  const char *bus_start = s;
  if (c2) {
    if (hex_field(s, c1, 1, 8, &dom) || dom > 0xffff) return -1;
    bus_start = c1 + 1;
    c1 = c2;
  }
  const char *dot = strchr(c1 + 1, '.');
  if (!dot || strchr(dot + 1, ':') || strchr(dot + 1, '.')) return -1;
  if (hex_field(bus_start, c1, 2, 2, &bus)) return -1;
  if (hex_field(c1 + 1, dot, 2, 2, &dev) || dev > 0x1f) return -1;
  if (hex_field(dot + 1, dot + 1 + strlen(dot + 1), 1, 1, &fn) || fn > 7) return -1;
  out->domain = (uint16_t)dom;
  out->bus = (uint8_t)bus;
  out->dev = (uint8_t)dev;
  out->func = (uint8_t)fn;
  return 0;
}

void nn_busid_format(const struct nn_busid *b, char *buf, size_t size) {
  if (!buf || !size) return;
  if (!b) {
    buf[0] = 0;
    return;
  }
  snprintf(buf, size, "%04x:%02x:%02x.%x", b->domain, b->bus, b->dev, b->func);
}
