/* SPDX-License-Identifier: BSD-3-Clause */
/* proxmox_numa.c - the Proxmox VM config rewrite for NUMA-aware GPU passthrough;
 * see proxmox_numa.h. The driver and the config's lines; the plan is
 * proxmox_numa_plan.c's, the new text proxmox_numa_text.c's.
 *
 * Proxmox facts relied on here (qemu-server: PVE/QemuServer.pm): config keys are
 * `^[a-z][a-z_-]*\d*:`; `[name]` starts a snapshot, `[PENDING]` pending changes, so
 * only the lines before the first section are the current config. */
#include "cli/proxmox/proxmox_numa.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/proxmox/proxmox_numa_parts.h"
#include "errbuf.h"

/* ---- the config's lines ---- */

/* The key of a Proxmox config line (`^[a-z][a-z_-]*\d*:`), or 0. */
static int line_key(struct nn_pxn_line *l) {
  size_t i = 0;
  if (!l->n || !islower((unsigned char)l->p[0])) return 0;
  while (i < l->n && (islower((unsigned char)l->p[i]) || l->p[i] == '_' || l->p[i] == '-')) i++;
  while (i < l->n && isdigit((unsigned char)l->p[i])) i++;
  if (i >= l->n || l->p[i] != ':' || i >= sizeof l->key) return 0;
  memcpy(l->key, l->p, i);
  l->key[i] = 0;
  size_t v = i + 1;
  while (v < l->n && (l->p[v] == ' ' || l->p[v] == '\t')) v++;
  size_t e = l->n;
  while (e > v && isspace((unsigned char)l->p[e - 1])) e--;
  l->value = l->p + v;
  l->value_n = e - v;
  return 1;
}

static int split_lines(const char *text, size_t len, struct nn_pxn_lines *ls) {
  int cap = 1;
  for (size_t i = 0; i < len; i++) cap += text[i] == '\n';
  ls->v = calloc((size_t)cap, sizeof *ls->v);
  if (!ls->v) return -1;
  ls->n = 0;
  for (const char *p = text, *end = text + len; p < end;) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    struct nn_pxn_line *l = &ls->v[ls->n++];
    l->p = p;
    l->n = (size_t)((nl ? nl : end) - p);
    p = nl ? nl + 1 : end;
  }
  ls->main_end = ls->n;
  ls->last_key = -1;
  for (int i = 0; i < ls->n; i++) {
    struct nn_pxn_line *l = &ls->v[i];
    size_t s = 0;
    while (s < l->n && isspace((unsigned char)l->p[s])) s++;
    if (s < l->n && l->p[s] == '[') {
      ls->main_end = i;
      break;
    }
    if (line_key(l)) ls->last_key = i;
  }
  return 0;
}

int nn_pxn_main_value(const struct nn_pxn_lines *ls, const char *key, char *buf, size_t size, int *line) {
  for (int i = 0; i < ls->main_end; i++)
    if (!strcmp(ls->v[i].key, key)) {
      snprintf(buf, size, "%.*s", (int)ls->v[i].value_n, ls->v[i].value);
      *line = i + 1;
      return 1;
    }
  return 0;
}

/* ---- the rewrite ---- */

int nn_pxn_fail(struct nn_pxn_ctx *c, int line, const char *fmt, ...) {
  char msg[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (line > 0) snprintf(c->err, c->err_size, "%s:%d: %s", c->in->name, line, msg);
  else snprintf(c->err, c->err_size, "%s: %s", c->in->name, msg);
  return -1;
}

int nn_pxn_rewrite(const struct nn_pxn_input *in, struct nn_pxn_output *out, char *err, size_t err_size) {
  struct nn_pxn_ctx *c = calloc(1, sizeof *c);
  int rc = -1;
  memset(out, 0, sizeof *out);
  if (!c) {
    nn_errbuf_set(err, err_size, "out of memory");
    return -1;
  }
  c->in = in;
  c->err = err;
  c->err_size = err_size;
  if (split_lines(in->text, in->len, &c->ls)) {
    nn_pxn_fail(c, 0, "out of memory");
  } else if (!nn_pxn_plan(c)) {
    out->text = nn_pxn_write(c);
    out->notes = nn_strbuf_take(&c->notes);
    rc = out->text && out->notes ? 0 : nn_pxn_fail(c, 0, "out of memory");
  }
  if (rc) {
    nn_pxn_output_free(out);
    free(nn_strbuf_take(&c->notes));
  }
  free(c->ls.v);
  free(c);
  return rc;
}

void nn_pxn_output_free(struct nn_pxn_output *out) {
  free(out->text);
  free(out->notes);
  out->text = out->notes = NULL;
}

int nn_pxn_vmid_from_path(const char *path, char *buf, size_t size) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  size_t digits = strspn(base, "0123456789");
  buf[0] = 0;
  if (!digits || digits > 9 || strcmp(base + digits, ".conf") || digits + 1 > size) return -1;
  snprintf(buf, size, "%.*s", (int)digits, base);
  return 0;
}
