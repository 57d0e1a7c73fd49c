/* SPDX-License-Identifier: BSD-3-Clause */
/* proxmox_numa.c - the Proxmox VM config rewrite for NUMA-aware GPU passthrough;
 * see proxmox_numa.h. The driver: the config's lines are proxmox_numa_lines.c's, the
 * plan proxmox_numa_plan.c's, the new text proxmox_numa_text.c's. */
#include "cli/proxmox/proxmox_numa.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/proxmox/proxmox_numa_parts.h"
#include "errbuf.h"

int nn_proxmox_numa_rewrite(const struct nn_proxmox_numa_input *in,
                            struct nn_proxmox_numa_output *out, char *err, size_t errsz) {
  struct nn_proxmox_numa_ctx *c = calloc(1, sizeof *c);
  int rc = -1;
  memset(out, 0, sizeof *out);
  if (!c) {
    nn_errbuf_set(err, errsz, "out of memory");
    return -1;
  }
  c->in = in;
  c->err = err;
  c->errsz = errsz;
  if (nn_proxmox_numa_lines_split(in->text, in->len, &c->ls)) {
    nn_proxmox_numa_fail(c, 0, "out of memory");
  } else if (!nn_proxmox_numa_plan(c)) {
    out->text = nn_proxmox_numa_write(c);
    out->notes = nn_strbuf_take(&c->notes);
    rc = out->text && out->notes ? 0 : nn_proxmox_numa_fail(c, 0, "out of memory");
  }
  if (rc) {
    nn_proxmox_numa_output_free(out);
    free(nn_strbuf_take(&c->notes));
  }
  free(c->ls.v);
  free(c);
  return rc;
}

void nn_proxmox_numa_output_free(struct nn_proxmox_numa_output *out) {
  free(out->text);
  free(out->notes);
  out->text = out->notes = NULL;
}

int nn_proxmox_numa_vmid_from_path(const char *path, char *buf, size_t size) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  size_t digits = strspn(base, "0123456789");
  buf[0] = 0;
  if (!digits || digits > 9 || strcmp(base + digits, ".conf") || digits + 1 > size) return -1;
  snprintf(buf, size, "%.*s", (int)digits, base);
  return 0;
}
