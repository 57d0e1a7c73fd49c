/* SPDX-License-Identifier: BSD-3-Clause */
/* topo_report.c - the topology validator's findings (topo_validate.h, topo_check.h): what
 * both passes add to and the driver sorts, prints and frees. */
#include "cli/topo/topo_check.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void nn_topo_report_add(struct nn_topo_report *r, int line, int warning, const char *fmt, ...) {
  if (warning) r->warnings++;
  else r->errors++;
  if (r->n >= NN_TOPO_VALIDATE_MAX_PROBLEMS) {
    r->dropped++;
    return;
  }
  if (r->n == r->cap) {
    int cap = r->cap ? r->cap * 2 : 16;
    void *p = realloc(r->items, (size_t)cap * sizeof *r->items);
    if (!p) {
      r->dropped++;
      return;
    }
    r->items = p;
    r->cap = cap;
  }
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  char *msg = strdup(buf);
  if (!msg) {
    r->dropped++;
    return;
  }
  r->items[r->n++] = (struct nn_topo_problem){.line = line, .warning = warning, .msg = msg};
}

/* Insertion sort: at most NN_TOPO_VALIDATE_MAX_PROBLEMS items. */
void nn_topo_report_sort(struct nn_topo_report *r, int from) {
  for (int i = from + 1; i < r->n; i++) {
    struct nn_topo_problem p = r->items[i];
    int j = i;
    for (; j > from && r->items[j - 1].line > p.line; j--) r->items[j] = r->items[j - 1];
    r->items[j] = p;
  }
}

void nn_topo_report_print(const struct nn_topo_report *rep, const char *name, FILE *out) {
  for (int i = 0; i < rep->n; i++) {
    const struct nn_topo_problem *p = &rep->items[i];
    if (p->line > 0)
      fprintf(out, "%s:%d: %s%s\n", name, p->line, p->warning ? "warning: " : "", p->msg);
    else fprintf(out, "%s: %s%s\n", name, p->warning ? "warning: " : "", p->msg);
  }
  if (rep->dropped) fprintf(out, "%s: ... and %d more problems not shown\n", name, rep->dropped);
}

void nn_topo_report_free(struct nn_topo_report *rep) {
  for (int i = 0; i < rep->n; i++) free(rep->items[i].msg);
  free(rep->items);
  memset(rep, 0, sizeof *rep);
}
