/* SPDX-License-Identifier: BSD-3-Clause */
/* strbuf.c - a growing string; see strbuf.h. */
#include "cli/common/strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void nn_strbuf_printf(struct nn_strbuf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0 || b->oom) return;
  if (b->len + (size_t)n + 1 > b->cap) {
    size_t cap = (b->cap ? b->cap * 2 : 256) + (size_t)n;
    char *s = realloc(b->s, cap);
    if (!s) {
      b->oom = 1;
      return;
    }
    b->s = s;
    b->cap = cap;
  }
  va_start(ap, fmt);
  vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
}

void nn_strbuf_put(struct nn_strbuf *b, const char *s, size_t n) {
  nn_strbuf_printf(b, "%.*s", (int)n, s);
}

char *nn_strbuf_take(struct nn_strbuf *b) {
  if (!b->s && !b->oom) nn_strbuf_printf(b, "%s", "");
  if (b->oom) {
    free(b->s);
    b->s = NULL;
  }
  char *s = b->s;
  memset(b, 0, sizeof *b);
  return s;
}
