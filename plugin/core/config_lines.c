/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * config_lines.c - the helpers every directive of the mapping parser uses:
 * recording a problem, quoting hostile text back safely, KEY=VALUE fields,
 * growing arrays, and the file names a config owns (see config_parser.h).
 */
#include "ascii.h"
#include "config_parser.h"
#include "printable.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void nn_perr(struct nn_parser *p, const char *fmt, ...) {
  if (p->errors && p->opts && (p->opts->flags & NN_PARSE_FIRST_ERROR)) {
    p->errors++; /* the first one said it: nothing more is read */
    return;
  }
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  p->errors++;
  if (p->line > 0) nn_diag_add(p->diag, "%s:%d: %s", p->name, p->line, msg);
  else nn_diag_add(p->diag, "%s: %s", p->name, msg);
}

void nn_prefuse(struct nn_parser *p, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  nn_diag_add(&p->cfg->refused, "%s:%d: %s", p->name, p->line, msg);
}

const char *nn_quote(struct nn_parser *p, const char *s) {
  char *out = p->quote[p->quote_next++ % 4];
  size_t n = strnlen(s, NN_QUOTE_MAX + 1);
  nn_printable(out, sizeof p->quote[0], s, n > NN_QUOTE_MAX ? NN_QUOTE_MAX : n, "\\");
  if (n > NN_QUOTE_MAX) strcat(out, "...");
  return out;
}

int nn_grow(void **arr, int *cap, int need, size_t elem) {
  if (need <= *cap) return 0;
  int ncap = *cap ? *cap * 2 : 16;
  while (ncap < need) ncap *= 2;
  void *n = realloc(*arr, (size_t)ncap * elem);
  if (!n) return -1;
  *arr = n;
  *cap = ncap;
  return 0;
}

int nn_take_keys(struct nn_parser *p, const char *dir, int first, struct nn_kv *keys, int nkeys) {
  int bad = 0;
  for (int i = first; i < p->nf; i++) {
    char *eq = strchr(p->f[i], '=');
    if (!eq || eq == p->f[i]) {
      nn_perr(p, "%s: expected KEY=VALUE, got '%s'", dir, nn_quote(p, p->f[i]));
      bad++;
      continue;
    }
    *eq = 0;
    int k = 0;
    while (k < nkeys && !nn_ascii_caseeq(keys[k].key, p->f[i])) k++;
    if (k == nkeys) {
      char valid[256] = "";
      for (int j = 0; j < nkeys; j++)
        snprintf(valid + strlen(valid), sizeof valid - strlen(valid), "%s%s", j ? ", " : "",
                 keys[j].key);
      nn_perr(p, "%s: unknown key '%s' (valid keys: %s)", dir, nn_quote(p, p->f[i]), valid);
      bad++;
    } else if (keys[k].val) {
      nn_perr(p, "%s: key '%s' given twice", dir, keys[k].key);
      bad++;
    } else {
      keys[k].val = eq + 1;
    }
  }
  return bad;
}

const char *nn_config_own_file(struct nn_config *c, char *name) {
  char **grown = realloc(c->files, (size_t)(c->n_files + 1) * sizeof *grown);
  if (!grown) {
    free(name);
    return NULL;
  }
  c->files = grown;
  c->files[c->n_files++] = name;
  return name;
}
