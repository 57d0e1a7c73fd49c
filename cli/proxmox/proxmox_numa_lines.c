/* SPDX-License-Identifier: BSD-3-Clause */
/* proxmox_numa_lines.c - what every part of the Proxmox rewrite uses (proxmox_numa_parts.h):
 * the config split into lines, their values, and the rewrite's error.
 *
 * Proxmox facts relied on here (qemu-server: PVE/QemuServer.pm): config keys are
 * `^[a-z][a-z_-]*\d*:`; `[name]` starts a snapshot, `[PENDING]` pending changes, so
 * only the lines before the first section are the current config. */
#include "cli/proxmox/proxmox_numa_parts.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The key of a Proxmox config line (`^[a-z][a-z_-]*\d*:`), or 0. */
static int line_key(struct nn_proxmox_numa_line *l) {
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

int nn_proxmox_numa_lines_split(const char *text, size_t len, struct nn_proxmox_numa_lines *ls) {
  int cap = 1;
  for (size_t i = 0; i < len; i++) cap += text[i] == '\n';
  ls->v = calloc((size_t)cap, sizeof *ls->v);
  if (!ls->v) return -1;
  ls->n = 0;
  for (const char *p = text, *end = text + len; p < end;) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    struct nn_proxmox_numa_line *l = &ls->v[ls->n++];
    l->p = p;
    l->n = (size_t)((nl ? nl : end) - p);
    p = nl ? nl + 1 : end;
  }
  ls->main_end = ls->n;
  ls->last_key = -1;
  for (int i = 0; i < ls->n; i++) {
    struct nn_proxmox_numa_line *l = &ls->v[i];
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

int nn_proxmox_numa_main_value(const struct nn_proxmox_numa_lines *ls, const char *key, char *buf,
                               size_t size, int *line) {
  for (int i = 0; i < ls->main_end; i++)
    if (!strcmp(ls->v[i].key, key)) {
      snprintf(buf, size, "%.*s", (int)ls->v[i].value_n, ls->v[i].value);
      *line = i + 1;
      return 1;
    }
  return 0;
}

int nn_proxmox_numa_fail(struct nn_proxmox_numa_ctx *c, int line, const char *fmt, ...) {
  char msg[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (line > 0) snprintf(c->err, c->errsz, "%s:%d: %s", c->in->name, line, msg);
  else snprintf(c->err, c->errsz, "%s: %s", c->in->name, msg);
  return -1;
}
