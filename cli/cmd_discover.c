/* cmd_discover.c - `nccl-numa discover`: prints a complete mapping (format 1)
 * for bare metal / a host (hwloc), for a Proxmox VM's passthrough on its host
 * (--proxmox-vm), or inside the guest from a host-side map (--guest). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/cudaprobe.h"
#include "cli/discover.h"
#include "cli/guest.h"
#include "cli/mapwrite.h"
#include "nccl_model.h"
#include "nccl_search.h"
#include "cli/proxmox.h"
#include "errbuf.h"
#include "fileread.h"
#include "nn_config.h"
#include "numparse.h"

#define MAX_ASSUME 1024

struct assume {
  struct nn_busid bus;
  int numa;
  int used;
};

struct opts {
  const char *xml, *vm, *pci_mapping, *node, *host_map, *root;
  int guest, allow_unknown, no_cuda;
  int n_unknown;            /* GPUs left without a NUMA node */
  struct assume assumed[MAX_ASSUME];
  int n_assumed;
};

static void usage(FILE *out) {
  fprintf(out,
    "usage: nccl-numa discover [--xml FILE] [--allow-unknown --assume-numa BUSID=NODE ...] [--no-cuda]\n"
    "       nccl-numa discover --proxmox-vm /etc/pve/qemu-server/<vmid>.conf\n"
    "                          [--pci-mapping /etc/pve/mapping/pci.cfg] [--node NAME] [--xml FILE]\n"
    "       nccl-numa discover --guest --host-map FILE [--sysfs-root DIR] [--no-cuda]\n"
    "\n"
    "Prints a complete mapping file (format 1) on stdout.\n"
    "  (no mode)        this machine (bare metal or a host): GPUs in PCI bus order with their NUMA node\n"
    "  --proxmox-vm     on the Proxmox host: the VM's hostpci GPUs with their host NUMA node; the output\n"
    "                   is a host-side mapping, to be completed in the guest\n"
    "  --guest          in the guest: matches each GPU's root port to its hostpci entry in --host-map\n"
    "  --xml FILE       read a saved hwloc topology instead of this machine (HWLOC_XMLFILE works too)\n"
    "  --pci-mapping    cluster PCI mapping for mapping= entries (default /etc/pve/mapping/pci.cfg)\n"
    "  --node NAME      Proxmox node name for mapping= entries (default: this host's short name)\n"
    "  --sysfs-root DIR read DIR/sys instead of /sys\n"
    "  --allow-unknown  GPUs whose NUMA node hwloc cannot tell take it from --assume-numa\n"
    "  --assume-numa BUSID=NODE   the user's word for one such GPU (repeatable)\n"
    "  --no-cuda        do not ask the CUDA driver for compute capabilities (sm=)\n"
    "Exit: 0 ok, 1 a GPU could not be placed or bad input, 2 usage.\n");
}

/* One --assume-numa BUSID=NODE; a second one for the same GPU is refused (which would win
 * is not for us to guess). Returns 0, or -1 with the problem in why. */
static int parse_assume(struct opts *o, const char *arg, char *why, size_t whysz) {
  const char *eq = strrchr(arg, '=');
  char id[64];
  struct assume a = {0};
  if (!eq || (size_t)(eq - arg) >= sizeof id) {
    nn_errbuf_set(why, whysz, "--assume-numa wants BUSID=NODE, got '%s'", arg);
    return -1;
  }
  memcpy(id, arg, (size_t)(eq - arg));
  id[eq - arg] = 0;
  if (nn_busid_parse(id, &a.bus) || nn_int_parse(eq + 1, 0, NN_MAX_NUMA_ID, &a.numa)) {
    nn_errbuf_set(why, whysz, "--assume-numa wants BUSID=NODE (NODE 0-%d), got '%s'", NN_MAX_NUMA_ID, arg);
    return -1;
  }
  for (int i = 0; i < o->n_assumed; i++)
    if (!nn_discovery_busid_compare(&o->assumed[i].bus, &a.bus)) {
      char b[16];
      nn_busid_format(&a.bus, b, sizeof b);
      nn_errbuf_set(why, whysz, "--assume-numa given twice for GPU %s (numa %d and %d)", b, o->assumed[i].numa,
                    a.numa);
      return -1;
    }
  if (o->n_assumed == MAX_ASSUME) {
    nn_errbuf_set(why, whysz, "more than %d --assume-numa", MAX_ASSUME);
    return -1;
  }
  o->assumed[o->n_assumed++] = a;
  return 0;
}

static int parse_opts(int argc, char **argv, struct opts *o) {
  static const struct option longs[] = {
    {"xml", required_argument, 0, 'x'},        {"proxmox-vm", required_argument, 0, 'p'},
    {"pci-mapping", required_argument, 0, 'm'}, {"node", required_argument, 0, 'n'},
    {"guest", no_argument, 0, 'g'},             {"host-map", required_argument, 0, 'H'},
    {"sysfs-root", required_argument, 0, 'r'},  {"allow-unknown", no_argument, 0, 'u'},
    {"assume-numa", required_argument, 0, 'a'}, {"no-cuda", no_argument, 0, 'c'},
    {"help", no_argument, 0, 'h'},              {0, 0, 0, 0}};
  int c;
  optind = 1;
  opterr = 0;
  while ((c = getopt_long(argc, argv, "h", longs, NULL)) != -1) {
    switch (c) {
      case 'x': o->xml = optarg; break;
      case 'p': o->vm = optarg; break;
      case 'm': o->pci_mapping = optarg; break;
      case 'n': o->node = optarg; break;
      case 'g': o->guest = 1; break;
      case 'H': o->host_map = optarg; break;
      case 'r': o->root = optarg; break;
      case 'u': o->allow_unknown = 1; break;
      case 'c': o->no_cuda = 1; break;
      case 'a': {
        char why[160];
        if (parse_assume(o, optarg, why, sizeof why)) {
          fprintf(stderr, "nccl-numa discover: %s\n", why);
          return -1;
        }
        break;
      }
      case 'h': usage(stdout); exit(NN_EXIT_OK);
      default:
        fprintf(stderr, "nccl-numa discover: unknown or incomplete option '%s'\n", argv[optind - 1]);
        return -1;
    }
  }
  if (optind < argc) {
    fprintf(stderr, "nccl-numa discover: unexpected argument '%s'\n", argv[optind]);
    return -1;
  }
  if (o->guest && (!o->host_map || o->vm || o->xml)) {
    fprintf(stderr, "nccl-numa discover: --guest needs --host-map and takes neither --proxmox-vm nor --xml\n");
    return -1;
  }
  if (!o->guest && (o->host_map || o->root)) {
    fprintf(stderr, "nccl-numa discover: --host-map and --sysfs-root belong to --guest\n");
    return -1;
  }
  if (!o->vm && (o->pci_mapping || o->node)) {
    fprintf(stderr, "nccl-numa discover: --pci-mapping and --node belong to --proxmox-vm\n");
    return -1;
  }
  if (o->n_assumed && !o->allow_unknown) {
    fprintf(stderr, "nccl-numa discover: --assume-numa needs --allow-unknown\n");
    return -1;
  }
  return 0;
}

/* ---- compute capability (sm=, from the CUDA driver when it can tell) ---- */

struct sm_source {
  struct nn_cudaprobe *probe;
  char why[160];
};

static void sm_open(struct sm_source *s, int live, const char *not_live, int no_cuda) {
  s->probe = NULL;
  if (no_cuda) snprintf(s->why, sizeof s->why, "--no-cuda");
  else if (!live) snprintf(s->why, sizeof s->why, "%s", not_live);
  else s->probe = nn_cudaprobe_open(s->why, sizeof s->why);
}

static void sm_header(FILE *out, const struct sm_source *s, int n_with_sm, int n_gpus) {
  if (s->probe && n_with_sm == n_gpus)
    nn_mapwrite_comment(out, "sm= from the CUDA driver (matched by PCI bus id)");
  else if (s->probe)
    nn_mapwrite_comment(out, "sm= from the CUDA driver where it knew the device (%d of %d GPUs)",
                        n_with_sm, n_gpus);
  else
    nn_mapwrite_comment(out, "sm= left out: the CUDA driver cannot tell (%s)", s->why);
}

/* ---- locality ---- */

static const struct assume *find_assumed(struct opts *o, const struct nn_busid *bus) {
  for (int i = 0; i < o->n_assumed; i++)
    if (!nn_discovery_busid_compare(&o->assumed[i].bus, bus)) {
      o->assumed[i].used = 1;
      return &o->assumed[i];
    }
  return NULL;
}

/* A GPU's NUMA node: hwloc's, else the user's (--allow-unknown), else -1 with a message. */
static int place_gpu(struct opts *o, const struct nn_discovery_pci *p, const char *label, int *assumed) {
  char id[32];
  const struct assume *a = find_assumed(o, &p->bus);
  nn_busid_format(&p->bus, id, sizeof id);
  *assumed = 0;
  if (p->numa >= 0) {
    if (a && a->numa != p->numa) {
      fprintf(stderr, "nccl-numa discover: %sGPU %s: --assume-numa says %d but hwloc places it on NUMA node %d\n",
              label, id, a->numa, p->numa);
      return -1;
    }
    return p->numa;
  }
  if (o->allow_unknown && a) {
    *assumed = 1;
    return a->numa;
  }
  fprintf(stderr, "nccl-numa discover: %sGPU %s: NUMA node unknown: %s%s\n", label, id, p->unknown_why,
          o->allow_unknown ? " (and no --assume-numa for it)" : "");
  o->n_unknown++;
  return -1;
}

static void unknown_advice(const struct opts *o) {
  if (!o->n_unknown) return;
  fprintf(stderr,
          "nccl-numa discover: run discover where the sockets are visible: on bare metal, or on the\n"
          "  Proxmox host with --proxmox-vm /etc/pve/qemu-server/<vmid>.conf, then in the guest with\n"
          "  --guest --host-map FILE. If you know the sockets, pass --allow-unknown with\n"
          "  --assume-numa BUSID=NODE for each GPU listed above.\n");
}

static int unused_assumptions(const struct opts *o) {
  int bad = 0;
  for (int i = 0; i < o->n_assumed; i++)
    if (!o->assumed[i].used) {
      char id[32];
      nn_busid_format(&o->assumed[i].bus, id, sizeof id);
      fprintf(stderr, "nccl-numa discover: --assume-numa %s: no such GPU\n", id);
      bad = 1;
    }
  return bad;
}

static void write_numa_lines(FILE *out, const struct nn_discovery *d, const int *used, int n_used) {
  for (int i = 0; i < n_used; i++) {
    const struct nn_discovery_numa *m = nn_discovery_find_numa(d, used[i]);
    if (m && m->cpus && m->cpus[0]) nn_mapwrite_numa(out, m->node, m->cpus);
    else nn_mapwrite_comment(out, "numa %d: the topology lists no CPUs for this node", used[i]);
  }
}

static int add_node(int *nodes, int n, int node) {
  for (int i = 0; i < n; i++)
    if (nodes[i] == node) return n;
  int at = n;
  while (at > 0 && nodes[at - 1] > node) {
    nodes[at] = nodes[at - 1];
    at--;
  }
  nodes[at] = node;
  return n + 1;
}

/* pcie=: the GPU's PCIe link as sysfs gives its maximum (the lower of the GPU and its port), when
 * the topology is this machine's. */
static void fill_pcie(int thissystem, const struct nn_busid *bus, struct nn_mapwrite_gpu *g) {
  struct nn_pcie_link l;
  if (thissystem && nn_search_read_sysfs_link(nn_nccl_release_find(0, NULL), NULL, bus, 1, &l) == 0) {
    g->pcie_gen = l.gen;
    g->pcie_width = l.width;
  }
}

static void write_head(FILE *out, const char *what, const struct nn_discovery *d) {
  char when[64];
  nn_mapwrite_timestamp(when, sizeof when);
  nn_mapwrite_comment(out, "nccl-numa discover%s: on %s, from %s, %s", what,
                      d->hostname[0] ? d->hostname : "(unnamed host)", d->source, when);
}

/* ---- bare metal / host ---- */

static int run_host(struct opts *o) {
  struct nn_discovery d;
  char err[512];
  if (nn_discovery_load(o->xml, &d, err, sizeof err)) {
    fprintf(stderr, "nccl-numa discover: %s\n", err);
    return NN_EXIT_INVALID;
  }
  int n = nn_discovery_gpu_count(&d), bad = 0, k = 0, n_nodes = 0, n_sm = 0;
  struct nn_mapwrite_gpu *g = calloc(n ? (size_t)n : 1, sizeof *g);
  int *nodes = calloc(n ? (size_t)n : 1, sizeof *nodes);
  int *assumed = calloc(n ? (size_t)n : 1, sizeof *assumed);
  struct sm_source sm;
  sm_open(&sm, d.thissystem, "the topology is not this machine's", o->no_cuda);
  for (int i = 0; g && nodes && assumed && i < d.n_pcis; i++) {
    const struct nn_discovery_pci *p = &d.pcis[i];
    if (!p->is_gpu) continue;
    g[k] = (struct nn_mapwrite_gpu){.index = k, .has_bus = 1, .bus = p->bus, .has_host = 1, .host = p->bus};
    g[k].numa = place_gpu(o, p, "", &assumed[k]);
    g[k].sm = nn_cudaprobe_sm(sm.probe, &p->bus);
    fill_pcie(d.thissystem, &p->bus, &g[k]);
    g[k].comment = assumed[k] ? "numa= assumed by the user (--assume-numa)" : NULL;
    n_sm += g[k].sm > 0;
    if (g[k].numa < 0) bad = 1;
    else n_nodes = add_node(nodes, n_nodes, g[k].numa);
    k++;
  }
  bad |= unused_assumptions(o);
  if (!g || !nodes || !assumed) fprintf(stderr, "nccl-numa discover: out of memory\n");
  else if (!n) {
    fprintf(stderr, "nccl-numa discover: no NVIDIA GPU (vendor 0x10de, class 0x03xx) in %s\n", d.source);
    bad = 1;
  } else if (bad) unknown_advice(o);
  else {
    write_head(stdout, "", &d);
    nn_mapwrite_comment(stdout, "GPU indices follow PCI bus order: nvidia-smi's order, and CUDA's for identical");
    nn_mapwrite_comment(stdout, "GPUs or with CUDA_DEVICE_ORDER=PCI_BUS_ID.");
    sm_header(stdout, &sm, n_sm, n);
    nn_mapwrite_cpu(stdout, d.cpu_vendor, d.cpu_family, d.cpu_model);
    write_numa_lines(stdout, &d, nodes, n_nodes);
    for (int i = 0; i < k; i++) nn_mapwrite_gpu(stdout, &g[i]);
  }
  int rc = (!g || !nodes || !assumed || bad) ? NN_EXIT_INVALID : NN_EXIT_OK;
  nn_cudaprobe_close(sm.probe);
  free(g);
  free(nodes);
  free(assumed);
  nn_discovery_free(&d);
  return rc;
}

/* ---- Proxmox host ---- */

static void default_node(char *buf, size_t size) {
  if (gethostname(buf, size)) snprintf(buf, size, "localhost");
  buf[size - 1] = 0;
  buf[strcspn(buf, ".")] = 0;
}

/* Loads the mapping file when some hostpci entry names a mapping. */
static int load_mappings(const struct opts *o, const struct nn_pve_vm *vm, struct nn_pve_mappings *ms,
                         int *have) {
  char err[512];
  const char *path = o->pci_mapping ? o->pci_mapping : "/etc/pve/mapping/pci.cfg";
  *have = 0;
  for (int i = 0; i < vm->n_hostpci; i++)
    if (vm->hostpci[i].mapping) *have = 1;
  if (!*have && !o->pci_mapping) return 0;
  if (nn_pve_mappings_load(path, ms, err, sizeof err)) {
    fprintf(stderr, "nccl-numa discover: %s\n", err);
    return -1;
  }
  *have = 1;
  return 0;
}

/* The GPU behind one hostpci entry: NULL with *skip set for non-GPU entries,
 * NULL with *missing set when an id is not on this host. */
static const struct nn_discovery_pci *entry_gpu(const struct nn_discovery *d, const struct nn_pve_hostpci *h,
                                                int *missing) {
  *missing = -1;
  for (int i = 0; i < h->n_ids; i++) {
    const struct nn_pve_pciid *id = &h->ids[i];
    const struct nn_discovery_pci *p = id->has_func ? nn_discovery_find(d, &id->bus)
                                                    : nn_discovery_find_gpu_in_device(d, &id->bus);
    if (p && p->is_gpu) return p;
    if (!p && !nn_discovery_has_device(d, &id->bus) && *missing < 0) *missing = i;
  }
  return NULL;
}

struct pve_out {
  struct nn_mapwrite_gpu g[NN_PVE_MAX_HOSTPCI];
  char comments[NN_PVE_MAX_HOSTPCI][96];
  int n, nodes[NN_PVE_MAX_HOSTPCI], n_nodes, n_sm;
};

static int pve_entry(struct opts *o, const struct nn_discovery *d, const struct nn_pve_vm *vm,
                     const struct nn_pve_hostpci *h, struct pve_out *po, struct sm_source *sm,
                     FILE *notes) {
  int missing, assumed;
  char label[32], id[32];
  const struct nn_discovery_pci *p = entry_gpu(d, h, &missing);
  snprintf(label, sizeof label, "hostpci%d: ", h->index);
  if (missing >= 0) {
    nn_pve_pciid_format(&h->ids[missing], id, sizeof id);
    fprintf(stderr, "nccl-numa discover: %s:%d: hostpci%d: %s is not a PCI device of this host (%s)\n",
            vm->path, h->line, h->index, id, d->source);
    return -1;
  }
  if (!p) {
    nn_pve_pciid_format(&h->ids[0], id, sizeof id);
    if (notes) nn_mapwrite_comment(notes, "hostpci%d (%s): not an NVIDIA GPU, left out", h->index, id);
    return 0;
  }
  if (!h->pcie || !nn_pve_vm_is_q35(vm))
    fprintf(stderr, "nccl-numa discover: warning: %s:%d: hostpci%d is not a PCIe device of a q35 VM "
            "(machine: q35 and pcie=1): the guest step cannot find its root port\n", vm->path, h->line, h->index);
  struct nn_mapwrite_gpu *g = &po->g[po->n];
  *g = (struct nn_mapwrite_gpu){.index = po->n, .has_host = 1, .host = p->bus};
  g->numa = place_gpu(o, p, label, &assumed);
  g->sm = nn_cudaprobe_sm(sm->probe, &p->bus);
  fill_pcie(d->thissystem, &p->bus, g);
  snprintf(po->comments[po->n], sizeof po->comments[0], "hostpci%d%s", h->index,
           assumed ? ", numa= assumed by the user (--assume-numa)" : "");
  g->comment = po->comments[po->n];
  if (g->numa < 0) return -1;
  po->n_nodes = add_node(po->nodes, po->n_nodes, g->numa);
  po->n_sm += g->sm > 0;
  po->n++;
  return 0;
}

static void pve_head(const struct nn_discovery *d, const struct nn_pve_vm *vm, const char *node,
                     const struct pve_out *po, const struct sm_source *sm) {
  write_head(stdout, " --proxmox-vm", d);
  puts(NN_MAPWRITE_HOST_SIDE_MARKER);
  nn_mapwrite_comment(stdout, "VM config %s, Proxmox node %s", vm->path, node);
  nn_mapwrite_comment(stdout, "One gpu line per passed-through NVIDIA GPU in hostpci order; the trailing");
  nn_mapwrite_comment(stdout, "comment names its hostpci entry. bus= is filled in the guest:");
  nn_mapwrite_comment(stdout, "  nccl-numa discover --guest --host-map THIS_FILE");
  nn_mapwrite_comment(stdout, "numa lines (the guest's CPUs) come from that step too.");
  sm_header(stdout, sm, po->n_sm, po->n);
  nn_mapwrite_cpu(stdout, d->cpu_vendor, d->cpu_family, d->cpu_model);
}

static int pve_run(struct opts *o, struct nn_discovery *d, struct nn_pve_vm *vm, const char *node) {
  struct pve_out *po = calloc(1, sizeof *po);
  struct sm_source sm;
  int bad = 0;
  if (!po) return NN_EXIT_INVALID;
  sm_open(&sm, d->thissystem, "the topology is not this machine's", o->no_cuda);
  /* Notes on skipped entries follow the head, and nothing reaches stdout unless
   * every entry is good: collect them first. */
  FILE *tmp = tmpfile();
  for (int i = 0; i < vm->n_hostpci; i++) bad |= pve_entry(o, d, vm, &vm->hostpci[i], po, &sm, tmp) != 0;
  bad |= unused_assumptions(o);
  if (!bad && !po->n) {
    fprintf(stderr, "nccl-numa discover: %s: no hostpci entry is an NVIDIA GPU of this host\n", vm->path);
    bad = 1;
  } else if (bad) unknown_advice(o);
  else {
    pve_head(d, vm, node, po, &sm);
    if (tmp) {
      rewind(tmp);
      for (int c; (c = fgetc(tmp)) != EOF;) putchar(c);
    }
    for (int i = 0; i < po->n; i++) nn_mapwrite_gpu(stdout, &po->g[i]);
  }
  if (tmp) fclose(tmp);
  nn_cudaprobe_close(sm.probe);
  free(po);
  return bad ? NN_EXIT_INVALID : NN_EXIT_OK;
}

static int run_proxmox(struct opts *o) {
  struct nn_pve_vm vm;
  struct nn_pve_mappings ms = {0};
  struct nn_discovery d;
  char err[1024], node[256];
  int have_maps, rc = NN_EXIT_INVALID;
  if (o->node) snprintf(node, sizeof node, "%s", o->node);
  else default_node(node, sizeof node);
  if (nn_pve_vm_load(o->vm, &vm, err, sizeof err)) {
    fprintf(stderr, "nccl-numa discover: %s\n", err);
    return NN_EXIT_INVALID;
  }
  if (load_mappings(o, &vm, &ms, &have_maps)) goto out_vm;
  if (nn_pve_assign(&vm, have_maps ? &ms : NULL, node, err, sizeof err)) {
    fprintf(stderr, "nccl-numa discover: %s\n", err);
    goto out_maps;
  }
  if (nn_discovery_load(o->xml, &d, err, sizeof err)) {
    fprintf(stderr, "nccl-numa discover: %s\n", err);
    goto out_maps;
  }
  rc = pve_run(o, &d, &vm, node);
  nn_discovery_free(&d);
out_maps:
  if (have_maps) nn_pve_mappings_free(&ms);
out_vm:
  nn_pve_vm_free(&vm);
  return rc;
}

/* ---- guest ---- */

/* The hostpci number recorded on a host map's gpu line ("# hostpciN"), else the index. */
static int hostpci_of_line(const char *path, const struct nn_gpu *gpu) {
  int fd = nn_file_open(AT_FDCWD, path, 0, (size_t)1 << 30, NULL, 0);   /* never a FIFO */
  FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
  if (!f && fd >= 0) close(fd);
  char line[NN_MAX_LINE_BYTES + 2];
  int no = 0, n = gpu->index;
  while (f && fgets(line, sizeof line, f)) {
    if (!strchr(line, '\n') && !feof(f)) {   /* over-long: the parser has refused it already */
      for (int c; (c = fgetc(f)) != EOF && c != '\n';) {}
    }
    if (++no != gpu->line) continue;
    const char *hash = strchr(line, '#'), *h = hash ? strstr(hash, "hostpci") : NULL;
    if (h) nn_int_parse_prefix(h + strlen("hostpci"), 0, NN_PVE_MAX_HOSTPCI - 1, &n, NULL);
    break;
  }
  if (f) fclose(f);
  return n;
}

static int load_host_map(const char *path, struct nn_config **cfg) {
  struct nn_parse_opts po = {.flags = NN_PARSE_HOST_SIDE, .cpuinfo_path = NULL};
  struct nn_diag diag = {0};
  if (nn_config_load(path, &po, cfg, &diag)) {
    for (int i = 0; i < diag.n; i++) fprintf(stderr, "%s\n", diag.msgs[i]);
    if (!diag.n) fprintf(stderr, "nccl-numa discover: %s: cannot load the host map\n", path);
    nn_diag_clear(&diag);
    return -1;
  }
  nn_diag_clear(&diag);
  if (!(*cfg)->host_side) {
    fprintf(stderr, "nccl-numa discover: %s: not a host-side mapping (no \"%s\" line); make one on the "
            "Proxmox host with: nccl-numa discover --proxmox-vm /etc/pve/qemu-server/<vmid>.conf\n",
            path, NN_MAPWRITE_HOST_SIDE_MARKER);
    nn_config_free(*cfg);
    return -1;
  }
  return 0;
}

struct guest_row {
  const struct nn_guest_pci *pci;
  const struct nn_gpu *host;        /* host map entry */
  int hostpci;
  const char *method;
  char note[160], comment[256];
};

/* Matches one guest GPU to its host map entry. */
static int guest_match(const struct nn_guest_pci *p, const struct nn_config *cfg, const int *hp,
                       struct guest_row *row) {
  char id[32];
  nn_busid_format(&p->bus, id, sizeof id);
  row->pci = p;
  row->hostpci = nn_guest_hostpci(p, &row->method, row->note, sizeof row->note);
  if (row->hostpci < 0) {
    fprintf(stderr, "nccl-numa discover: guest GPU %s: cannot tell its hostpci entry: %s\n", id,
            p->has_port ? "its root port is neither a Proxmox q35 port nor has a port number"
                        : "it sits on the root bus, not behind a PCIe root port (needs machine: q35 and pcie=1)");
    return -1;
  }
  for (int i = 0; i < cfg->n_gpus; i++)
    if (hp[i] == row->hostpci) row->host = &cfg->gpus[i];
  if (!row->host) {
    fprintf(stderr, "nccl-numa discover: guest GPU %s is hostpci%d (%s), which %s does not list\n", id,
            row->hostpci, row->method, cfg->path);
    return -1;
  }
  snprintf(row->comment, sizeof row->comment, "hostpci%d, from the %s%s%s", row->hostpci, row->method,
           row->note[0] ? "; " : "", row->note);
  return 0;
}

static int check_unique(const struct guest_row *rows, int n) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < i; j++)
      if (rows[i].hostpci == rows[j].hostpci) {
        fprintf(stderr, "nccl-numa discover: two guest GPUs claim hostpci%d\n", rows[i].hostpci);
        return -1;
      }
  return 0;
}

static void warn_unmatched(const struct nn_config *cfg, const int *hp, const struct guest_row *rows, int n) {
  for (int i = 0; i < cfg->n_gpus; i++) {
    int seen = 0;
    for (int j = 0; j < n; j++) seen |= rows[j].host == &cfg->gpus[i];
    if (!seen) {
      fprintf(stderr, "nccl-numa discover: warning: %s:%d: hostpci%d has no GPU in this guest\n", cfg->path,
              cfg->gpus[i].line, hp[i]);
      nn_mapwrite_comment(stdout, "hostpci%d of the host map has no GPU in this guest", hp[i]);
    }
  }
}

static void guest_numa_lines(const struct nn_guest *g, const struct guest_row *rows, int n) {
  int nodes[NN_MAX_NUMA_NODES + 1], n_nodes = 0;
  for (int i = 0; i < n && n_nodes < NN_MAX_NUMA_NODES; i++) n_nodes = add_node(nodes, n_nodes, rows[i].host->numa);
  if (g->n_numas < 2) {
    /* numa= are the host's nodes; the guest's node 0 is no host node's, so no host node may
     * take its CPUs alone (the plugin would read guest node N's cpulist for host node N). */
    const char *all = g->n_numas == 1 && g->numas[0].cpus[0] ? g->numas[0].cpus : NULL;
    if (all) {
      nn_mapwrite_comment(stdout, "the guest has 1 NUMA node: its CPUs are tied to no host socket, so each host");
      nn_mapwrite_comment(stdout, "node's numa line lists all of them and NCCL pins its threads to no socket.");
    } else {
      nn_mapwrite_comment(stdout, "the guest has no NUMA nodes: no numa lines, so NCCL gets no CPU affinity.");
    }
    nn_mapwrite_comment(stdout, "To pin ranks near their GPUs' sockets give the VM NUMA nodes backed by the");
    nn_mapwrite_comment(stdout, "host's (numa: 1, numaN: cpus=...,hostnodes=N) and run this step again.");
    for (int i = 0; all && i < n_nodes; i++) nn_mapwrite_numa(stdout, nodes[i], all);
    return;
  }
  nn_mapwrite_comment(stdout, "numa lines: guest NUMA node N is taken to be backed by host node N");
  nn_mapwrite_comment(stdout, "(Proxmox numaN: hostnodes=N); check the VM config if it is not.");
  for (int i = 0; i < n_nodes; i++) {
    const struct nn_guest_numa *m = NULL;
    for (int j = 0; j < g->n_numas; j++)
      if (g->numas[j].node == nodes[i]) m = &g->numas[j];
    if (m && m->cpus[0]) nn_mapwrite_numa(stdout, m->node, m->cpus);
    else nn_mapwrite_comment(stdout, "numa %d: the guest has no such node (or it has no CPUs)", nodes[i]);
  }
}

static void guest_write(const struct opts *o, const struct nn_config *cfg, const struct nn_guest *g,
                        struct guest_row *rows, int n, const int *hp) {
  char when[64];
  struct sm_source sm;
  struct nn_mapwrite_gpu *out = calloc(n ? (size_t)n : 1, sizeof *out);
  int n_sm = 0;
  sm_open(&sm, !strcmp(o->root, "/"), "the sysfs root is not this machine's", o->no_cuda);
  for (int i = 0; out && i < n; i++) {
    const struct nn_gpu *h = rows[i].host;
    out[i] = (struct nn_mapwrite_gpu){.index = i, .has_bus = 1, .bus = rows[i].pci->bus, .numa = h->numa,
                                      .has_host = h->has_host, .host = h->host, .comment = rows[i].comment};
    out[i].sm = nn_cudaprobe_sm(sm.probe, &rows[i].pci->bus);
    if (!out[i].sm && h->sm > 0) out[i].sm = h->sm;
    out[i].pcie_gen = h->pcie_gen;     /* the physical link, as the host read it */
    out[i].pcie_width = h->pcie_width;
    n_sm += out[i].sm > 0;
  }
  nn_mapwrite_timestamp(when, sizeof when);
  nn_mapwrite_comment(stdout, "nccl-numa discover --guest: sysfs under %s, host map %s, %s", o->root, cfg->path, when);
  nn_mapwrite_comment(stdout, "GPU indices follow the guest's PCI bus order: nvidia-smi's order, and CUDA's for");
  nn_mapwrite_comment(stdout, "identical GPUs or with CUDA_DEVICE_ORDER=PCI_BUS_ID; numa= and host= come from");
  nn_mapwrite_comment(stdout, "the host map, matched through each GPU's root port.");
  sm_header(stdout, &sm, n_sm, n);
  if (cfg->cpu.present) nn_mapwrite_cpu(stdout, cfg->cpu.vendor, cfg->cpu.family, cfg->cpu.model);
  else nn_mapwrite_comment(stdout, "no cpu line in the host map: the plugin will read this guest's /proc/cpuinfo");
  guest_numa_lines(g, rows, n);
  warn_unmatched(cfg, hp, rows, n);
  for (int i = 0; out && i < n; i++) nn_mapwrite_gpu(stdout, &out[i]);
  free(out);
  nn_cudaprobe_close(sm.probe);
}

static int run_guest(struct opts *o) {
  struct nn_config *cfg;
  struct nn_guest g;
  char err[512];
  if (!o->root) o->root = "/";
  if (load_host_map(o->host_map, &cfg)) return NN_EXIT_INVALID;
  if (nn_guest_scan(o->root, &g, err, sizeof err)) {
    fprintf(stderr, "nccl-numa discover: %s\n", err);
    nn_config_free(cfg);
    return NN_EXIT_INVALID;
  }
  int n = nn_guest_gpu_count(&g), k = 0, bad = 0;
  struct guest_row *rows = calloc(n ? (size_t)n : 1, sizeof *rows);
  int *hp = calloc(cfg->n_gpus ? (size_t)cfg->n_gpus : 1, sizeof *hp);
  for (int i = 0; hp && i < cfg->n_gpus; i++) hp[i] = hostpci_of_line(o->host_map, &cfg->gpus[i]);
  for (int i = 0; rows && hp && i < g.n_pcis; i++)
    if (g.pcis[i].is_gpu) bad |= guest_match(&g.pcis[i], cfg, hp, &rows[k++]) != 0;
  if (!rows || !hp) bad = 1;
  if (!bad && !k) {
    fprintf(stderr, "nccl-numa discover: no NVIDIA GPU under %s/sys/bus/pci/devices\n", g.root);
    bad = 1;
  }
  if (!bad) bad = check_unique(rows, k) != 0;
  if (!bad) guest_write(o, cfg, &g, rows, k, hp);
  free(rows);
  free(hp);
  nn_guest_free(&g);
  nn_config_free(cfg);
  return bad ? NN_EXIT_INVALID : NN_EXIT_OK;
}

int nn_cmd_discover(int argc, char **argv) {
  struct opts *o = calloc(1, sizeof *o);
  if (!o) return NN_EXIT_INVALID;
  int rc = NN_EXIT_USAGE;
  if (parse_opts(argc, argv, o) == 0)
    rc = o->guest ? run_guest(o) : o->vm ? run_proxmox(o) : run_host(o);
  else
    usage(stderr);
  free(o);
  return rc;
}
