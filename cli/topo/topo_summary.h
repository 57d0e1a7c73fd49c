/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * topo_summary.h - what a topology file (NCCL_TOPO_FILE, or the virtual topology a
 * hypervisor provides) says about the GPUs, for `check` to compare with the mapping
 * and to judge NCCL's socket-link hazard on. The file is read with the validator's
 * care (topo_validate.h): size-capped, a regular file, network and entities off, a
 * DOCTYPE refused unread.
 */
#ifndef NCCL_NUMA_CLI_TOPO_SUMMARY_H
#define NCCL_NUMA_CLI_TOPO_SUMMARY_H

#include <stddef.h>

#include "nn_config.h"

/* The <cpu> elements holding GPUs (display-class <pci> at any depth below them),
 * with the last one's CPU kind. */
#define NN_TOPO_SUMMARY_MAX_GPUS 1024 /* more GPUs are not recorded */
struct nn_topo_summary {
  int n_cpus_with_gpus;
  char vendor[16];
  int family, model; /* -1 when absent or not a number */
  int n_gpus;
  struct {
    struct nn_busid bus;
    int numaid;
  } gpus[NN_TOPO_SUMMARY_MAX_GPUS];
};

/* Reads `path` safely (regular file of at most `max` bytes, network and entities off, a
 * DOCTYPE refused) and summarises it into *s. Returns 0, or -1 with the reason in why
 * ("does not parse as XML ...", "has a DOCTYPE ...", "root element is <x>, not <system>"
 * or the reader's). */
int nn_topo_summarise_file(const char *path, size_t max, struct nn_topo_summary *s, char *why,
                           size_t whysz);

#endif
