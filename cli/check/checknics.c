/* SPDX-License-Identifier: BSD-3-Clause */
/* checknics.c - NICs at numa_node -1 that the mapping does not place; see checknics.h. */
#include "cli/check/checknics.h"

#define NN_VIRTIO_VENDOR 0x1af4

int nn_checknics_unplaced(const struct nn_guest *g, const struct nn_config *cfg,
                          struct nn_diag *out) {
  int n = 0;
  if (!cfg || !cfg->n_gpus) return 0; /* no served file: the GPUs read -1 too, on NCCL's one CPU */
  for (int i = 0; i < g->n_pcis; i++) {
    const struct nn_guest_pci *p = &g->pcis[i];
    if ((p->class_code >> 16) != 0x02 || p->vendor == NN_VIRTIO_VENDOR || p->numa_node >= 0)
      continue;
    if (nn_config_find_nic(cfg, &p->bus)) continue;
    char id[16];
    nn_busid_format(&p->bus, id, sizeof id);
    nn_diag_add(out,
                "NIC %s (vendor %04x, class %06x) reads numa_node -1 and %s: NCCL hangs it under a "
                "CPU of its own, SYS from every GPU the served file places (add `nic N bus=%s "
                "numa=HOST_NODE`: docs/user/mapping.md)",
                id, p->vendor, p->class_code, "the mapping has no nic line for it", id);
    n++;
  }
  return n;
}
