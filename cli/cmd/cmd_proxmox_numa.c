/* SPDX-License-Identifier: BSD-3-Clause */
/* cmd_proxmox_numa.c - `nccl-numa proxmox-numa`: rewrites a Proxmox VM config so
 * the guest sees each passed-through GPU on its NUMA node (proxmox_numa.h has
 * the rules, proxmox_numa_apply.h the reading and writing). Prints the new config,
 * a unified diff (--diff), or replaces the file atomically after saving <file>.bak
 * (--write). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/common/options.h"
#include "cli/proxmox/proxmox_numa.h"
#include "cli/proxmox/proxmox_numa_apply.h"
#include "nn_config.h"
#include "printable.h"

#define PROG "nccl-numa proxmox-numa"

static void usage(FILE *out) {
  fprintf(
    out,
    "usage: nccl-numa proxmox-numa --vm-config /etc/pve/qemu-server/<vmid>.conf\n"
    "                              [--pci-mapping /etc/pve/mapping/pci.cfg] [--node NAME]\n"
    "                              [--xml FILE] [--p2p-clique[=one|socket]] [--write] [--diff]\n"
    "\n"
    "On the Proxmox host: rewrites the VM config so the guest sees every passed-through NVIDIA "
    "GPU\n"
    "on its NUMA node: one guest NUMA node per host node holding the VM's GPUs (memory bound "
    "there),\n"
    "and the GPUs moved from hostpci entries to args: behind one PCIe expander bus per node.\n"
    "\n"
    "  --vm-config FILE   the VM's config\n"
    "  --pci-mapping FILE cluster PCI mapping for mapping= entries (default "
    "/etc/pve/mapping/pci.cfg)\n"
    "  --node NAME        Proxmox node name for mapping= entries (default: this host's short "
    "name)\n"
    "  --xml FILE         host topology from an hwloc XML export instead of this machine\n"
    "                     (HWLOC_XMLFILE works too)\n"
    "  --p2p-clique[=one|socket]\n"
    "                     give every GPU QEMU's x-nv-gpudirect-clique hint, so the guest's driver "
    "may\n"
    "                     offer GPU peer-to-peer: one clique for all (default), or one per host "
    "socket;\n"
    "                     prove it in the guest with `nccl-numa p2p` before relying on it\n"
    "  (default)          print the new config on stdout\n"
    "  --diff             print a unified diff against the current file\n"
    "  --write            save FILE.bak, then replace FILE atomically\n"
    "\n"
    "Exit: 0 done, 1 the VM cannot be rewritten (the message says why), 2 usage.\n");
}

static int clique_mode(const char *arg) {
  if (!arg || !strcmp(arg, "one")) return NN_PROXMOX_CLIQUE_ONE;
  if (!strcmp(arg, "socket")) return NN_PROXMOX_CLIQUE_PER_NODE;
  return -1;
}

static int parse_opts(int argc, char **argv, struct nn_proxmox_numa_apply_opts *o) {
  static const struct option longs[] = {{"vm-config", required_argument, 0, 'v'},
                                        NN_OPTIONS_PROXMOX,
                                        {"write", no_argument, 0, 'w'},
                                        {"diff", no_argument, 0, 'd'},
                                        {"p2p-clique", optional_argument, 0, 'p'},
                                        {"help", no_argument, 0, 'h'},
                                        {0, 0, 0, 0}};
  int ch;
  memset(o, 0, sizeof *o);
  nn_options_begin();
  while ((ch = getopt_long(argc, argv, ":h", longs, NULL)) != -1) {
    if (nn_options_proxmox(ch, &o->pci_mapping, &o->node, &o->xml)) continue;
    switch (ch) {
    case 'v':
      o->vm = optarg;
      break;
    case 'w':
      o->write = 1;
      break;
    case 'd':
      o->diff = 1;
      break;
    case 'p':
      if ((o->p2p_clique = clique_mode(optarg)) < 0) {
        char shown[64];
        fprintf(stderr, PROG ": --p2p-clique=%s: expected one or socket\n",
                nn_printable(shown, sizeof shown, optarg, NN_PRINTABLE_CSTR, NULL));
        usage(stderr);
        return NN_EXIT_USAGE;
      }
      break;
    case 'h':
      usage(stdout);
      return NN_EXIT_OK;
    default:
      nn_options_error("proxmox-numa", ch, argc, argv);
      usage(stderr);
      return NN_EXIT_USAGE;
    }
  }
  if (optind < argc || !o->vm) {
    fprintf(stderr, PROG ": %s\n",
            optind < argc ? "unexpected argument" : "--vm-config is required");
    usage(stderr);
    return NN_EXIT_USAGE;
  }
  return -1;
}

int nn_cmd_proxmox_numa(int argc, char **argv) {
  struct nn_proxmox_numa_apply_opts o;
  struct nn_diag msgs = {0};
  int rc = parse_opts(argc, argv, &o);
  if (rc >= 0) return rc;
  rc = nn_proxmox_numa_apply(&o, stdout, &msgs) ? NN_EXIT_INVALID : NN_EXIT_OK;
  for (int i = 0; i < msgs.n; i++) fprintf(stderr, PROG ": %s\n", msgs.msgs[i]);
  if (msgs.dropped) fprintf(stderr, PROG ": ... and %d more messages\n", msgs.dropped);
  nn_diag_clear(&msgs);
  return rc;
}
