/* SPDX-License-Identifier: BSD-3-Clause */
/* cmd_discover.c - `nccl-numa discover`: prints a complete mapping (format 1)
 * for bare metal / a host (hwloc), for a Proxmox VM's passthrough on its host
 * (--proxmox-vm), or inside the guest from a host-side map (--guest); the three
 * are discover_map.h's. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/commands.h"
#include "cli/common/options.h"
#include "cli/discover/discover_map.h"

static void usage(FILE *out) {
  fprintf(
    out,
    "usage: nccl-numa discover [--xml FILE] [--allow-unknown --assume-numa BUSID=NODE ...] "
    "[--no-cuda]\n"
    "       nccl-numa discover --proxmox-vm /etc/pve/qemu-server/<vmid>.conf\n"
    "                          [--pci-mapping /etc/pve/mapping/pci.cfg] [--node NAME] [--xml "
    "FILE]\n"
    "       nccl-numa discover --guest --host-map FILE [--sysfs-root DIR] [--no-cuda]\n"
    "\n"
    "Prints a complete mapping file (format 1) on stdout.\n"
    "  (no mode)        this machine (bare metal or a host): GPUs in PCI bus order with their NUMA "
    "node,\n"
    "                   and NICs (RDMA devices in name order, else network interfaces) with "
    "theirs\n"
    "  --proxmox-vm     on the Proxmox host: the VM's hostpci GPUs with their host NUMA node; the "
    "output\n"
    "                   is a host-side mapping, to be completed in the guest\n"
    "  --guest          in the guest: matches each GPU's root port to its hostpci entry in "
    "--host-map\n"
    "  --xml FILE       read a saved hwloc topology instead of this machine (HWLOC_XMLFILE works "
    "too)\n"
    "  --pci-mapping    cluster PCI mapping for mapping= entries (default "
    "/etc/pve/mapping/pci.cfg)\n"
    "  --node NAME      Proxmox node name for mapping= entries (default: this host's short name)\n"
    "  --sysfs-root DIR read DIR/sys instead of /sys\n"
    "  --allow-unknown  GPUs whose NUMA node hwloc cannot tell take it from --assume-numa\n"
    "  --assume-numa BUSID=NODE   the user's word for one such GPU (repeatable)\n"
    "  --no-cuda        do not ask the CUDA driver for compute capabilities (sm=)\n"
    "Exit: 0 ok, 1 a GPU could not be placed or bad input, 2 usage.\n");
}

static int parse_opts(int argc, char **argv, struct nn_discover_opts *o, int *guest) {
  static const struct option longs[] = {NN_OPTIONS_PROXMOX,
                                        {"proxmox-vm", required_argument, 0, 'p'},
                                        {"guest", no_argument, 0, 'g'},
                                        {"host-map", required_argument, 0, 'H'},
                                        {"sysfs-root", required_argument, 0, 'r'},
                                        {"allow-unknown", no_argument, 0, 'u'},
                                        {"assume-numa", required_argument, 0, 'a'},
                                        {"no-cuda", no_argument, 0, 'c'},
                                        {"help", no_argument, 0, 'h'},
                                        {0, 0, 0, 0}};
  int c;
  nn_options_begin();
  while ((c = getopt_long(argc, argv, ":h", longs, NULL)) != -1) {
    if (nn_options_proxmox(c, &o->pci_mapping, &o->node, &o->xml)) continue;
    switch (c) {
    case 'p':
      o->vm = optarg;
      break;
    case 'g':
      *guest = 1;
      break;
    case 'H':
      o->host_map = optarg;
      break;
    case 'r':
      o->root = optarg;
      break;
    case 'u':
      o->allow_unknown = 1;
      break;
    case 'c':
      o->no_cuda = 1;
      break;
    case 'a': {
      char why[160];
      if (nn_discover_assume_add(o, optarg, why, sizeof why)) {
        fprintf(stderr, "nccl-numa discover: %s\n", why);
        return -1;
      }
      break;
    }
    case 'h':
      usage(stdout);
      exit(NN_EXIT_OK);
    default:
      nn_options_error("discover", c, argc, argv);
      return -1;
    }
  }
  if (optind < argc) {
    fprintf(stderr, "nccl-numa discover: unexpected argument '%s'\n", argv[optind]);
    return -1;
  }
  if (*guest && (!o->host_map || o->vm || o->xml)) {
    fprintf(stderr, "nccl-numa discover: --guest needs --host-map and takes neither --proxmox-vm "
                    "nor --xml\n");
    return -1;
  }
  if (!*guest && (o->host_map || o->root)) {
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

/* The library's messages, as every command prints them; a host map's parse problems
 * name their file and line already. */
static void print_messages(const struct nn_discover_opts *o) {
  for (int i = 0; i < o->map_problems.n; i++) fprintf(stderr, "%s\n", o->map_problems.msgs[i]);
  for (int i = 0; i < o->msgs.n; i++) fprintf(stderr, "nccl-numa discover: %s\n", o->msgs.msgs[i]);
  if (o->msgs.dropped)
    fprintf(stderr, "nccl-numa discover: ... and %d more messages\n", o->msgs.dropped);
}

int nn_cmd_discover(int argc, char **argv) {
  struct nn_discover_opts *o = calloc(1, sizeof *o); /* large: the assumptions */
  int guest = 0, rc = NN_EXIT_USAGE;
  if (!o) return NN_EXIT_INVALID;
  o->out = stdout;
  if (parse_opts(argc, argv, o, &guest) == 0) {
    int bad = guest ? nn_discover_guest(o) : o->vm ? nn_discover_proxmox(o) : nn_discover_host(o);
    print_messages(o);
    rc = bad ? NN_EXIT_INVALID : NN_EXIT_OK;
  } else {
    usage(stderr);
  }
  nn_diag_clear(&o->msgs);
  nn_diag_clear(&o->map_problems);
  free(o);
  return rc;
}
