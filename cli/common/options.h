/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * options.h - the commands' one convention for options: getopt_long with an optstring
 * that starts with ':' (so a missing value is told from an unknown option), `--opt VALUE`
 * and `--opt=VALUE` alike, `--` ending the options; a usage error names the option as
 * the user wrote it.
 */
#ifndef NCCL_NUMA_CLI_OPTIONS_H
#define NCCL_NUMA_CLI_OPTIONS_H

#include <stddef.h>

/* Starts a fresh getopt_long scan: optind 0 (glibc then reads the optstring's '+' again)
 * and opterr 0 (the command reports, through the two functions below). */
void nn_options_begin(void);

/* What getopt_long's '?' (unknown) or ':' (no value) return c means, into buf, naming the
 * option as the user wrote it without a `=VALUE`: "unknown option '--x'", "'--x' needs a
 * value", or "'--x' takes no value" (`--flag=VALUE`). Reads optind and optopt, so call it
 * right after getopt_long returned c. */
void nn_options_problem(int c, int argc, char *const argv[], char *buf, size_t size);

/* The same on stderr as "nccl-numa CMD: ...". */
void nn_options_error(const char *cmd, int c, int argc, char *const argv[]);

/* The options with which `discover --proxmox-vm` and `proxmox-numa` say where a Proxmox VM's
 * GPUs are, spelt and meant alike in both: getopt_long entries for --pci-mapping FILE ('m'),
 * --node NAME ('n') and --xml FILE ('x'). */
#define NN_OPTIONS_PROXMOX \
  {"pci-mapping", required_argument, 0, 'm'}, {"node", required_argument, 0, 'n'}, { \
    "xml", required_argument, 0, 'x' \
  }

/* For c one of those ('m', 'n', 'x'): optarg into *pci_mapping, *node or *xml, and 1. Else 0. */
int nn_options_proxmox(int c, const char **pci_mapping, const char **node, const char **xml);

#endif
