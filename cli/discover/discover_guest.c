/* SPDX-License-Identifier: BSD-3-Clause */
/* discover_guest.c - `discover --guest`: inside the VM, the complete mapping from the
 * host map discover --proxmox-vm wrote; see discover_map.h. Each guest GPU is matched
 * to its hostpci entry through its root port (guest.h). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/discover/discover_parts.h"
#include "cli/discover/guest.h"
#include "cli/common/proxmox.h"
#include "fileread.h"
#include "numparse.h"

/* The hostpci number recorded on a host map's gpu or nic line `at` ("# hostpciN"), else `index`. */
static int hostpci_of_line(const char *path, int at, int index) {
  FILE *f = nn_file_fopen(path, 0, (size_t)1 << 30); /* never a FIFO */
  char line[NN_MAX_LINE_BYTES + 2];
  int no = 0, n = index;
  while (f && fgets(line, sizeof line, f)) {
    if (!strchr(line, '\n') && !feof(f)) { /* over-long: the parser has refused it already */
      for (int c; (c = fgetc(f)) != EOF && c != '\n';) {}
    }
    if (++no != at) continue;
    const char *hash = strchr(line, '#'), *h = hash ? strstr(hash, "hostpci") : NULL;
    if (h) nn_int_parse_prefix(h + strlen("hostpci"), 0, NN_PVE_MAX_HOSTPCI - 1, &n, NULL);
    break;
  }
  if (f) fclose(f);
  return n;
}

static int load_host_map(struct nn_discover_opts *o, struct nn_config **cfg) {
  struct nn_parse_opts po = {.flags = NN_PARSE_HOST_SIDE, .cpuinfo_path = NULL};
  const char *path = o->host_map;
  if (nn_config_load(path, &po, cfg, &o->map_problems)) {
    if (!o->map_problems.n) nn_diag_add(&o->msgs, "%s: cannot load the host map", path);
    return -1;
  }
  nn_diag_clear(&o->map_problems); /* a loaded map's diagnostics were never printed either */
  if (!(*cfg)->host_side) {
    nn_diag_add(
      &o->msgs,
      "%s: not a host-side mapping (no \"%s\" line); make one on the "
      "Proxmox host with: nccl-numa discover --proxmox-vm /etc/pve/qemu-server/<vmid>.conf",
      path, NN_MAPWRITE_HOST_SIDE_MARKER);
    nn_config_free(*cfg);
    return -1;
  }
  return 0;
}

struct guest_row {
  const struct nn_guest_pci *pci;
  const struct nn_gpu *host; /* host map entry */
  int hostpci;
  const char *method;
  char note[160], comment[256];
};

/* Matches one guest GPU to its host map entry. */
static int guest_match(struct nn_discover_opts *o, const struct nn_guest_pci *p,
                       const struct nn_config *cfg, const int *hp, struct guest_row *row) {
  char id[32];
  nn_busid_format(&p->bus, id, sizeof id);
  row->pci = p;
  row->hostpci = nn_guest_hostpci(p, &row->method, row->note, sizeof row->note);
  if (row->hostpci < 0) {
    nn_diag_add(
      &o->msgs, "guest GPU %s: cannot tell its hostpci entry: %s", id,
      p->has_port
        ? "its root port is neither a Proxmox q35 port nor has a port number"
        : "it sits on the root bus, not behind a PCIe root port (needs machine: q35 and pcie=1)");
    return -1;
  }
  for (int i = 0; i < cfg->n_gpus; i++)
    if (hp[i] == row->hostpci) row->host = &cfg->gpus[i];
  if (!row->host) {
    nn_diag_add(&o->msgs, "guest GPU %s is hostpci%d (%s), which %s does not list", id,
                row->hostpci, row->method, cfg->path);
    return -1;
  }
  snprintf(row->comment, sizeof row->comment, "hostpci%d, from the %s%s%s", row->hostpci,
           row->method, row->note[0] ? "; " : "", row->note);
  return 0;
}

static int check_unique(struct nn_discover_opts *o, const struct guest_row *rows, int n) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < i; j++)
      if (rows[i].hostpci == rows[j].hostpci) {
        nn_diag_add(&o->msgs, "two guest GPUs claim hostpci%d", rows[i].hostpci);
        return -1;
      }
  return 0;
}

static void warn_unmatched(struct nn_discover_opts *o, const struct nn_config *cfg, const int *hp,
                           const struct guest_row *rows, int n) {
  for (int i = 0; i < cfg->n_gpus; i++) {
    int seen = 0;
    for (int j = 0; j < n; j++) seen |= rows[j].host == &cfg->gpus[i];
    if (!seen) {
      nn_diag_add(&o->msgs, "warning: %s:%d: hostpci%d has no GPU in this guest", cfg->path,
                  cfg->gpus[i].line, hp[i]);
      nn_mapwrite_comment(o->out, "hostpci%d of the host map has no GPU in this guest", hp[i]);
    }
  }
}

static void guest_numa_lines(struct nn_discover_opts *o, const struct nn_guest *g,
                             const struct guest_row *rows, int n) {
  int nodes[NN_MAX_NUMA_NODES + 1], n_nodes = 0;
  for (int i = 0; i < n && n_nodes < NN_MAX_NUMA_NODES; i++)
    n_nodes = nn_discover_add_node(nodes, n_nodes, rows[i].host->numa);
  if (g->n_numas < 2) {
    /* numa= are the host's nodes; the guest's node 0 is no host node's, so no host node may
     * take its CPUs alone (the plugin would read guest node N's cpulist for host node N). */
    const char *all = g->n_numas == 1 && g->numas[0].cpus[0] ? g->numas[0].cpus : NULL;
    if (all) {
      nn_mapwrite_comment(
        o->out, "the guest has 1 NUMA node: its CPUs are tied to no host socket, so each host");
      nn_mapwrite_comment(
        o->out, "node's numa line lists all of them and NCCL pins its threads to no socket.");
    } else {
      nn_mapwrite_comment(
        o->out, "the guest has no NUMA nodes: no numa lines, so NCCL gets no CPU affinity.");
    }
    nn_mapwrite_comment(
      o->out, "To pin ranks near their GPUs' sockets give the VM NUMA nodes backed by the");
    nn_mapwrite_comment(o->out,
                        "host's (numa: 1, numaN: cpus=...,hostnodes=N) and run this step again.");
    for (int i = 0; all && i < n_nodes; i++) nn_mapwrite_numa(o->out, nodes[i], all);
    return;
  }
  nn_mapwrite_comment(o->out, "numa lines: guest NUMA node N is taken to be backed by host node N");
  nn_mapwrite_comment(o->out, "(Proxmox numaN: hostnodes=N); check the VM config if it is not.");
  for (int i = 0; i < n_nodes; i++) {
    const struct nn_guest_numa *m = NULL;
    for (int j = 0; j < g->n_numas; j++)
      if (g->numas[j].node == nodes[i]) m = &g->numas[j];
    if (m && m->cpus[0]) nn_mapwrite_numa(o->out, m->node, m->cpus);
    else
      nn_mapwrite_comment(o->out, "numa %d: the guest has no such node (or it has no CPUs)",
                          nodes[i]);
  }
}

/* The name in DIR/sys/bus/pci/devices/BDF/SUB/ (infiniband, net), or "". */
static void guest_dev_name(const char *root, const struct nn_busid *b, const char *sub, char *out,
                           size_t size) {
  char path[1024], id[16];
  nn_busid_format(b, id, sizeof id);
  snprintf(path, sizeof path, "%s/sys/bus/pci/devices/%s/%s", strcmp(root, "/") ? root : "", id,
           sub);
  out[0] = 0;
  DIR *d = opendir(path);
  for (struct dirent *e; d && (e = readdir(d));)
    if (e->d_name[0] != '.') {
      snprintf(out, size, "%.63s", e->d_name);
      break;
    }
  if (d) closedir(d);
}

/* Each nic line of the host map whose hostpci entry a guest function sits behind, with the
 * guest's bus id and the guest's own name for it (its IB device, else its interface). */
static void guest_nics(struct nn_discover_opts *o, const struct nn_config *cfg,
                       const struct nn_guest *g) {
  int k = 0;
  for (int i = 0; i < cfg->n_nics; i++) {
    const struct nn_nic *h = &cfg->nics[i];
    int hp = hostpci_of_line(o->host_map, h->line, h->index);
    const struct nn_guest_pci *p = NULL;
    for (int j = 0; j < g->n_pcis && !p; j++) {
      const char *method;
      char note[160];
      if ((g->pcis[j].class_code >> 16) == 0x02 &&
          nn_guest_hostpci(&g->pcis[j], &method, note, sizeof note) == hp)
        p = &g->pcis[j];
    }
    if (!p) {
      nn_diag_add(&o->msgs, "warning: %s:%d: hostpci%d (NIC) has no network function in this guest",
                  cfg->path, h->line, hp);
      continue;
    }
    char name[64], comment[32];
    guest_dev_name(o->root, &p->bus, "infiniband", name, sizeof name);
    if (!name[0]) guest_dev_name(o->root, &p->bus, "net", name, sizeof name);
    snprintf(comment, sizeof comment, "hostpci%d", hp);
    struct nn_mapwrite_nic n = {.index = k++,
                                .has_bus = 1,
                                .bus = p->bus,
                                .has_host = h->has_host,
                                .host = h->host,
                                .numa = h->numa,
                                .name = name,
                                .comment = comment};
    nn_mapwrite_nic(o->out, &n);
  }
}

static void guest_write(struct nn_discover_opts *o, const struct nn_config *cfg,
                        const struct nn_guest *g, struct guest_row *rows, int n, const int *hp) {
  char when[64];
  struct nn_discover_sm sm;
  struct nn_mapwrite_gpu *out = calloc(n ? (size_t)n : 1, sizeof *out);
  int n_sm = 0;
  nn_discover_sm_open(&sm, !strcmp(o->root, "/"), "the sysfs root is not this machine's",
                      o->no_cuda);
  for (int i = 0; out && i < n; i++) {
    const struct nn_gpu *h = rows[i].host;
    out[i] = (struct nn_mapwrite_gpu){.index = i,
                                      .has_bus = 1,
                                      .bus = rows[i].pci->bus,
                                      .numa = h->numa,
                                      .has_host = h->has_host,
                                      .host = h->host,
                                      .comment = rows[i].comment};
    out[i].sm = nn_cudaprobe_sm(sm.probe, &rows[i].pci->bus);
    if (!out[i].sm && h->sm > 0) out[i].sm = h->sm;
    out[i].pcie_gen = h->pcie_gen; /* the physical link, as the host read it */
    out[i].pcie_width = h->pcie_width;
    n_sm += out[i].sm > 0;
  }
  nn_mapwrite_timestamp(when, sizeof when);
  nn_mapwrite_comment(o->out, "nccl-numa discover --guest: sysfs under %s, host map %s, %s",
                      o->root, cfg->path, when);
  nn_mapwrite_comment(
    o->out, "GPU indices follow the guest's PCI bus order: nvidia-smi's order, and CUDA's for");
  nn_mapwrite_comment(
    o->out, "identical GPUs or with CUDA_DEVICE_ORDER=PCI_BUS_ID; numa= and host= come from");
  nn_mapwrite_comment(o->out, "the host map, matched through each GPU's root port.");
  nn_discover_sm_header(o->out, &sm, n_sm, n);
  if (cfg->cpu.present) nn_mapwrite_cpu(o->out, cfg->cpu.vendor, cfg->cpu.family, cfg->cpu.model);
  else
    nn_mapwrite_comment(
      o->out, "no cpu line in the host map: the plugin will read this guest's /proc/cpuinfo");
  guest_numa_lines(o, g, rows, n);
  warn_unmatched(o, cfg, hp, rows, n);
  for (int i = 0; out && i < n; i++) nn_mapwrite_gpu(o->out, &out[i]);
  guest_nics(o, cfg, g);
  free(out);
  nn_cudaprobe_close(sm.probe);
}

int nn_discover_guest(struct nn_discover_opts *o) {
  struct nn_config *cfg;
  struct nn_guest g;
  char err[512];
  if (!o->root) o->root = "/";
  if (load_host_map(o, &cfg)) return -1;
  if (nn_guest_scan(o->root, &g, err, sizeof err)) {
    nn_diag_add(&o->msgs, "%s", err);
    nn_config_free(cfg);
    return -1;
  }
  int n = nn_guest_gpu_count(&g), k = 0, bad = 0;
  struct guest_row *rows = calloc(n ? (size_t)n : 1, sizeof *rows);
  int *hp = calloc(cfg->n_gpus ? (size_t)cfg->n_gpus : 1, sizeof *hp);
  for (int i = 0; hp && i < cfg->n_gpus; i++)
    hp[i] = hostpci_of_line(o->host_map, cfg->gpus[i].line, cfg->gpus[i].index);
  for (int i = 0; rows && hp && i < g.n_pcis; i++)
    if (g.pcis[i].is_gpu) bad |= guest_match(o, &g.pcis[i], cfg, hp, &rows[k++]) != 0;
  if (!rows || !hp) bad = 1;
  if (!bad && !k) {
    nn_diag_add(&o->msgs, "no NVIDIA GPU under %s/sys/bus/pci/devices", g.root);
    bad = 1;
  }
  if (!bad) bad = check_unique(o, rows, k) != 0;
  if (!bad) guest_write(o, cfg, &g, rows, k, hp);
  free(rows);
  free(hp);
  nn_guest_free(&g);
  nn_config_free(cfg);
  return bad ? -1 : 0;
}
