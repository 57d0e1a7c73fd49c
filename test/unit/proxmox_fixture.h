/* SPDX-License-Identifier: BSD-3-Clause */
/* proxmox_fixture.h - made-up Proxmox hosts for the unit tests of the VM config rewrite:
 * PCI functions with a vendor, a class and a NUMA node, built in memory (no hwloc). */
#ifndef NCCL_NUMA_TEST_PROXMOX_FIXTURE_H
#define NCCL_NUMA_TEST_PROXMOX_FIXTURE_H

#include "nn_test.h"

#include "cli/discover/discover.h"
#include "cli/common/proxmox.h"
#include "cli/proxmox/proxmox_numa_parts.h"

/* One made-up PCI function: "0000:01:00.0", vendor, class, NUMA node. */
struct fake_pci {
  const char *bus;
  unsigned vendor, class_id;
  int numa;
};

#define GPU(b, n) \
  { b, 0x10de, 0x0302, n }
#define AUDIO(b, n) \
  { b, 0x10de, 0x0403, n }
#define NIC(b, n) \
  { b, 0x15b3, 0x0200, n }

static inline void fake_host(struct nn_discovery *d, const struct fake_pci *p, int n, int n_nodes) {
  memset(d, 0, sizeof *d);
  snprintf(d->source, sizeof d->source, "a made-up host");
  d->pcis = calloc((size_t)n, sizeof *d->pcis);
  d->numas = calloc((size_t)n_nodes, sizeof *d->numas);
  assert_non_null(d->pcis);
  assert_non_null(d->numas);
  for (int i = 0; i < n; i++) {
    struct nn_discovery_pci *q = &d->pcis[i];
    assert_int_equal(nn_busid_parse(p[i].bus, &q->bus), 0);
    q->vendor = p[i].vendor;
    q->class_id = p[i].class_id;
    q->is_gpu = p[i].vendor == 0x10de && (p[i].class_id >> 8) == 0x03;
    q->numa = q->is_gpu ? p[i].numa : -1;
    if (i) assert_true(nn_discovery_busid_compare(&d->pcis[i - 1].bus, &q->bus) < 0);
  }
  d->n_pcis = n;
  for (int k = 0; k < n_nodes; k++) {
    d->numas[k].node = k;
    d->numas[k].cpus = strdup("0");
  }
  d->n_numas = n_nodes;
}

/* One rewrite's context as proxmox_numa.c sets it up, for the parts' own tests: `text` as VM
 * 100 on node pve1 (no mapping file) on host d, its lines split. */
struct fake_rewrite {
  struct nn_proxmox_vm vm;
  struct nn_proxmox_numa_input in;
  struct nn_proxmox_numa_ctx c;
  char err[1024];
};

static inline struct fake_rewrite *fake_rewrite_open(const struct nn_discovery *d,
                                                     const char *text) {
  struct fake_rewrite *r = calloc(1, sizeof *r);
  assert_non_null(r);
  assert_int_equal(
    nn_proxmox_vm_parse("100.conf", text, strlen(text), &r->vm, r->err, sizeof r->err), 0);
  assert_int_equal(nn_proxmox_assign(&r->vm, NULL, "pve1", r->err, sizeof r->err), 0);
  r->in = (struct nn_proxmox_numa_input){"100.conf", "100", text, strlen(text), &r->vm, NULL,
                                         "pve1",     d,     0};
  r->c.in = &r->in;
  r->c.err = r->err;
  r->c.errsz = sizeof r->err;
  assert_int_equal(nn_proxmox_numa_lines_split(text, strlen(text), &r->c.ls), 0);
  return r;
}

static inline void fake_rewrite_close(struct fake_rewrite *r) {
  free(r->c.ls.v);
  free(nn_strbuf_take(&r->c.notes));
  nn_proxmox_vm_free(&r->vm);
  free(r);
}

#endif
