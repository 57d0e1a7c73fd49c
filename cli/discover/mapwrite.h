/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mapwrite.h - writing mapping files (format 1) from discovered facts.
 *
 * discover (host, Proxmox host and guest) all print a complete mapping; this
 * module owns the line syntax so the three agree with the parser in plugin/core/config_*.c.
 * Order of a written file: header comments, `cpu`, `numa` lines, `gpu` lines, `nic` lines.
 */
#ifndef NCCL_NUMA_CLI_MAPWRITE_H
#define NCCL_NUMA_CLI_MAPWRITE_H

#include <stdio.h>

#include "nn_config.h"

/* The header comment line that marks a host-side mapping; the parser recognises
 * exactly this line (check-config accepts such a file only with --host-side). */
#define NN_MAPWRITE_HOST_SIDE_MARKER "# nccl-numa: host-side mapping"

/* One `gpu` line. */
struct nn_mapwrite_gpu {
  int index;
  int has_bus; /* 0 in host-side mappings */
  struct nn_busid bus;
  int has_host;
  struct nn_busid host;
  int numa;
  int sm;                   /* major*10+minor; 0: leave sm= out */
  int pcie_gen, pcie_width; /* the GPU's PCIe link; 0: leave pcie= out */
  const char *comment;      /* trailing comment without '#', or NULL; written printable */
};

/* One `nic` line. */
struct nn_mapwrite_nic {
  int index;
  int has_bus; /* 0 in host-side mappings */
  struct nn_busid bus;
  int has_host;
  struct nn_busid host;
  int numa;
  const char *name;    /* NULL or "": leave name= out; anything the parser refuses is left out */
  const char *comment; /* trailing comment without '#', or NULL; written printable */
};
void nn_mapwrite_nic(FILE *out, const struct nn_mapwrite_nic *n);

/* Writes "# text" (printf-style); an empty format writes a bare "#". The text is made
 * printable (printable.h, '#' escaped too), so whatever it quotes stays one comment line. */
void nn_mapwrite_comment(FILE *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Writes the `cpu` line when the vendor is one format 1 accepts (AuthenticAMD,
 * GenuineIntel); otherwise a comment saying why there is none. family/model < 0
 * are left out. Returns 1 when a `cpu` line was written, 0 otherwise. */
int nn_mapwrite_cpu(FILE *out, const char *vendor, int family, int model);

/* Writes `numa <node> cpus=<list>`; a list with anything but digits, ',' and '-' is
 * left out with a comment saying so. */
void nn_mapwrite_numa(FILE *out, int node, const char *cpus);

/* Writes one `gpu` line. */
void nn_mapwrite_gpu(FILE *out, const struct nn_mapwrite_gpu *g);

/* Formats the time for header comments: SOURCE_DATE_EPOCH when set (the
 * reproducible-builds convention, used by the tests), else now; UTC, ISO 8601. */
void nn_mapwrite_timestamp(char *buf, size_t size);

#endif
