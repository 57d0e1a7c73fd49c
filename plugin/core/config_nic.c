/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * config_nic.c - the `nic` directive: a network device NCCL may use for traffic between
 * nodes, and the NUMA node of the physical host it hangs off.
 *
 *   nic <index> bus=<busid> numa=<node> [name=<device>] [host=<busid>]
 *
 * In a guest a passed-through NIC reads numa_node -1 like the GPUs, and NCCL then puts it
 * under a CPU of its own joined to the others by SYS links (src/graph/xml.cc, topo.cc,
 * 2.28.9-2.30.7): the served topology places it under its node's CPU instead (topo_xml.c).
 * bus= is the function as this machine numbers it, which is what NCCL matches the network
 * plugin's device against; host= the same function on the host (for people and
 * `discover --guest`); name= the IB/RoCE device or interface, for people and `explain`.
 * A NIC and a GPU are both PCI functions, so their bus ids share one duplicate check.
 */
#include "config_parser.h"

#include <stdio.h>
#include <string.h>

#include "numparse.h"

/* IB device names (mlx5_0) and interface names (ens1f0np0, eth0.100): letters, digits, _ . - : */
static int nic_name_ok(const char *s) {
  size_t n = strlen(s);
  if (!n || n >= NN_NIC_NAME_MAX) return 0;
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
             c == '_' || c == '.' || c == '-' || c == ':';
    if (!ok) return 0;
  }
  return 1;
}

static int nic_busid(struct nn_parser *p, const char *key, const char *val, struct nn_busid *out) {
  if (nn_busid_parse(val, out) == 0) return 0;
  nn_perr(p,
          "nic: bad %s id '%s' (expected [dddd:]bb:dd.f in hex: domain <= ffff, "
          "device <= 1f, function <= 7)",
          key, nn_quote(p, val));
  return -1;
}

static int nic_index(struct nn_parser *p, struct nn_nic *n) {
  if (p->nf < 2 || strchr(p->f[1], '=')) {
    nn_perr(p,
            "nic: missing index (expected: nic <index> bus=<busid> numa=<node> [name=<device>])");
    return 1;
  }
  uint64_t idx;
  if (nn_u64_parse(p->f[1], 0, NN_MAX_NICS - 1, &idx)) {
    nn_perr(p, "nic: bad index '%s' (expected 0-%d)", nn_quote(p, p->f[1]), NN_MAX_NICS - 1);
    return 1;
  }
  n->index = (int)idx;
  if (p->nic_index_line[n->index]) {
    nn_perr(p, "nic: duplicate index %d (first on line %d)", n->index, p->nic_index_line[n->index]);
    return 1;
  }
  return 0;
}

/* bus= (or, host-side, host=) is required; a value is set only when it parsed, so a bad
 * one causes no false duplicate. */
static int nic_keys(struct nn_parser *p, const struct nn_kv *k, struct nn_nic *n) {
  int host_side = p->opts && (p->opts->flags & NN_PARSE_HOST_SIDE);
  int bad = 0;
  if (k[0].val) {
    if (nic_busid(p, "bus", k[0].val, &n->bus) == 0) n->has_bus = 1;
    else bad++;
  } else if (!host_side) {
    nn_perr(p, "nic: missing bus=%s",
            p->cfg->host_side ? " (this is a host-side mapping: check it "
                                "with --host-side, or complete it with discover --guest)"
                              : "");
    bad++;
  }
  if (!k[1].val) {
    nn_perr(p, "nic: missing numa=");
    bad++;
  } else if ((n->numa = nn_parse_node_id(p, "nic", "numa", k[1].val)) < 0) {
    bad++;
  }
  if (k[2].val && !nic_name_ok(k[2].val)) {
    nn_perr(p,
            "nic: bad name '%s' (expected 1-%d letters, digits, '_', '.', '-' or ':', "
            "e.g. mlx5_0)",
            nn_quote(p, k[2].val), NN_NIC_NAME_MAX - 1);
    bad++;
  } else if (k[2].val) {
    strcpy(n->name, k[2].val);
  }
  if (k[3].val) {
    if (nic_busid(p, "host", k[3].val, &n->host) == 0) n->has_host = 1;
    else bad++;
  } else if (host_side) {
    nn_perr(p, "nic: missing host= (a host-side mapping needs it)");
    bad++;
  }
  return bad;
}

static int nic_unique(struct nn_parser *p, const struct nn_nic *n) {
  const struct {
    int has;
    const struct nn_busid *id;
    struct nn_bus_slot *tab;
    const char *what;
  } ids[] = {{n->has_bus, &n->bus, p->bus_tab, "bus"},
             {n->has_host, &n->host, p->host_tab, "host"}};
  int bad = 0;
  for (int i = 0; i < NN_COUNT_OF(ids); i++) {
    const struct nn_bus_slot *o = ids[i].has ? nn_bus_slot(ids[i].tab, ids[i].id) : NULL;
    if (!o || !o->key) continue;
    char b[16];
    nn_busid_format(ids[i].id, b, sizeof b);
    nn_perr(p, "nic: duplicate %s id %s (first on line %d)", ids[i].what, b, o->line);
    bad++;
  }
  return bad;
}

static void nic_remember(struct nn_parser *p, const struct nn_nic *n) {
  p->nic_index_line[n->index] = n->line;
  struct nn_bus_slot *s;
  if (n->has_bus) {
    s = nn_bus_slot(p->bus_tab, &n->bus);
    s->key = nn_busid_key(&n->bus);
    s->line = n->line;
  }
  if (n->has_host) {
    s = nn_bus_slot(p->host_tab, &n->host);
    s->key = nn_busid_key(&n->host);
    s->line = n->line;
  }
}

void nn_config_parser_nic(struct nn_parser *p) {
  p->last_nic_line = p->line;
  if (p->nics_over) return;
  if (p->n_nics >= NN_MAX_NICS) {
    nn_perr(p, "nic: too many nic lines (at most %d)", NN_MAX_NICS);
    p->nics_over = 1;
    p->nic_line_errors++;
    return;
  }
  struct nn_nic n = {.index = -1, .numa = -1, .line = p->line};
  int bad = nic_index(p, &n);
  struct nn_kv k[] = {{"bus", NULL}, {"numa", NULL}, {"name", NULL}, {"host", NULL}};
  int first = (p->nf >= 2 && !strchr(p->f[1], '=')) ? 2 : 1;
  bad += nn_take_keys(p, "nic", first, k, NN_COUNT_OF(k));
  bad += nic_keys(p, k, &n);
  bad += nic_unique(p, &n);
  if (bad) {
    p->nic_line_errors++;
    return;
  }
  p->nics[p->n_nics++] = n;
  nic_remember(p, &n);
}

/* Every index 0..N-1 exactly once (a missing one is reported at the last nic line), then
 * the nics by index into the config. */
void nn_config_parser_nic_finish(struct nn_parser *p) {
  if (!p->n_nics || p->nic_line_errors) return;
  unsigned char seen[NN_MAX_NICS] = {0};
  for (int i = 0; i < p->n_nics; i++) seen[p->nics[i].index] = 1;
  for (int i = 0; i < p->n_nics; i++) {
    if (seen[i]) continue;
    int save = p->line;
    p->line = p->last_nic_line;
    nn_perr(p, "nic: index %d missing (%d nic lines need indices 0-%d, each once)", i, p->n_nics,
            p->n_nics - 1);
    p->line = save;
    return;
  }
  for (int i = 0; i < p->n_nics; i++) p->cfg->nics[p->nics[i].index] = p->nics[i];
  p->cfg->n_nics = p->n_nics;
}

const struct nn_nic *nn_config_find_nic(const struct nn_config *cfg, const struct nn_busid *bus) {
  for (int i = 0; cfg && bus && i < cfg->n_nics; i++) {
    const struct nn_busid *b = &cfg->nics[i].bus;
    if (cfg->nics[i].has_bus && b->domain == bus->domain && b->bus == bus->bus &&
        b->dev == bus->dev && b->func == bus->func)
      return &cfg->nics[i];
  }
  return NULL;
}
