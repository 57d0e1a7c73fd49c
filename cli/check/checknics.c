/* SPDX-License-Identifier: BSD-3-Clause */
/* checknics.c - NICs at numa_node -1 that the mapping does not place; see checknics.h. */
#include "cli/check/checknics.h"

#include "cli/check/check_ctx.h"
#include "cli/predict/nicview.h"

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

static void ring_text(const struct nn_graph_pred *g, char *buf, size_t size) {
  snprintf(buf, size, "%d x %.1f GB/s (%s to the NICs)", g->nchannels, g->bw_inter,
           nn_nicview_path_name(g->type_inter));
}

void nn_checknics_section(struct nn_check_ctx *c) {
  if (!c->cfg || !c->cfg->n_nics || !c->have_verdict) return;
  static struct nn_nicview_report r; /* large; the CLI is single-threaded */
  const struct nn_ncclver *ver = nn_hazard_release(c);
  char release[16], own[96], served[96];
  nn_nccl_version_format(ver->code, release, sizeof release);
  nn_nicview_report(&c->job.view, c->cfg, ver->code, &c->verdict, &c->cpu, nn_hazard_sysfs_root(c),
                    &r);
  fprintf(c->out, "NICs (NCCL %s's search for a job of 2 nodes):\n", release);
  if (!r.inter.ok) {
    fprintf(c->out, "  %s\n", r.inter.why);
    return;
  }
  ring_text(&r.inter.own.ring, own, sizeof own);
  ring_text(&r.inter.served.ring, served, sizeof served);
  fprintf(c->out, "  ring between the nodes: NCCL's own view %s, the served file %s%s\n", own,
          served, c->verdict.serve ? "" : " (not served now: NCCL's own view runs)");
  if (c->verdict.serve && nn_nicview_ring_change(&r.inter) < 0)
    fprintf(c->out,
            "  WARNING: on several nodes the served file leaves NCCL's ring less bandwidth "
            "between the nodes than its own view, by NCCL's model (`nccl-numa explain --nodes N` "
            "shows why and each GPU's NIC; `topology mode=off` keeps NCCL's own view; "
            "`nccl-numa ab` measures which is faster)\n");
}
