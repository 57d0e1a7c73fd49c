/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * discover_nics.c - the `nic` lines of a discovered mapping: the NICs NCCL's network plugin
 * will report, in its order. With any RDMA device (hwloc's openfabrics class) those alone, in
 * name order (mlx5_0, mlx5_1, ... as NCCL's IB plugin lists them); without, every network
 * interface's PCI function in bus order (the socket plugin's candidates). A NIC hwloc cannot place
 * on one NUMA node gets no line and a warning: NCCL then places it as sysfs says.
 */
#include <stdlib.h>
#include <string.h>

#include "cli/discover/discover_parts.h"

struct nic_ref {
  const struct nn_discovery_pci *p;
};

static int by_name(const void *a, const void *b) {
  const struct nn_discovery_pci *x = ((const struct nic_ref *)a)->p,
                                *y = ((const struct nic_ref *)b)->p;
  int c = strverscmp(x->nic_name, y->nic_name);
  return c ? c : nn_discovery_busid_compare(&x->bus, &y->bus);
}

int nn_discover_host_nics(struct nn_discover_opts *o, const struct nn_discovery *d,
                          struct nn_mapwrite_nic *out, int max) {
  struct nic_ref nics[NN_MAX_NICS];
  int rdma = 0, n = 0, k = 0;
  for (int i = 0; i < d->n_pcis; i++) rdma |= d->pcis[i].is_nic && d->pcis[i].nic_rdma;
  for (int i = 0; i < d->n_pcis && n < NN_MAX_NICS; i++)
    if (d->pcis[i].is_nic && (!rdma || d->pcis[i].nic_rdma)) nics[n++].p = &d->pcis[i];
  if (rdma) qsort(nics, (size_t)n, sizeof *nics, by_name);
  for (int i = 0; i < n && k < max; i++) {
    const struct nn_discovery_pci *p = nics[i].p;
    char b[16];
    nn_busid_format(&p->bus, b, sizeof b);
    if (p->numa < 0) {
      nn_diag_add(&o->msgs, "warning: NIC %s (%s): no nic line: %s", b, p->nic_name,
                  p->unknown_why);
      continue;
    }
    out[k] = (struct nn_mapwrite_nic){.index = k,
                                      .has_bus = 1,
                                      .bus = p->bus,
                                      .has_host = 1,
                                      .host = p->bus,
                                      .numa = p->numa,
                                      .name = p->nic_name};
    k++;
  }
  return k;
}
