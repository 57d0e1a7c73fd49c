/* SPDX-License-Identifier: BSD-3-Clause */
/* jsonw.c - the commands' JSON output (jsonw.h). */
#include "cli/common/jsonw.h"

#include <math.h>

#include "jsonstr.h"

static void put_file(void *ctx, const char *bytes, size_t n) { fwrite(bytes, 1, n, ctx); }

static void put_string(FILE *out, const char *s) { nn_json_string(put_file, out, s); }

/* The comma before a value and its key. */
static void lead(struct nn_jsonw *w, const char *key) {
  if (w->count[w->depth]++) fputc(',', w->out);
  if (key) {
    put_string(w->out, key);
    fputc(':', w->out);
  }
}

static void open_one(struct nn_jsonw *w, const char *key, char c) {
  lead(w, key);
  fputc(c, w->out);
  if (w->depth + 1 >= NN_JSONW_DEPTH) return; /* deeper than any command writes */
  w->count[++w->depth] = 0;
  w->close[w->depth] = c == '{' ? '}' : ']';
}

void nn_jsonw_begin(struct nn_jsonw *w, FILE *out) {
  w->out = out;
  w->depth = 0;
  w->count[0] = 0;
}

void nn_jsonw_object(struct nn_jsonw *w, const char *key) { open_one(w, key, '{'); }
void nn_jsonw_array(struct nn_jsonw *w, const char *key) { open_one(w, key, '['); }

void nn_jsonw_end(struct nn_jsonw *w) {
  if (w->depth > 0) fputc(w->close[w->depth--], w->out);
}

void nn_jsonw_str(struct nn_jsonw *w, const char *key, const char *value) {
  lead(w, key);
  if (value) put_string(w->out, value);
  else fputs("null", w->out);
}

void nn_jsonw_int(struct nn_jsonw *w, const char *key, long long value) {
  lead(w, key);
  fprintf(w->out, "%lld", value);
}

void nn_jsonw_num(struct nn_jsonw *w, const char *key, double value) {
  lead(w, key);
  if (isfinite(value)) fprintf(w->out, "%.10g", value);
  else fputs("null", w->out);
}

void nn_jsonw_bool(struct nn_jsonw *w, const char *key, int value) {
  lead(w, key);
  fputs(value ? "true" : "false", w->out);
}

void nn_jsonw_null(struct nn_jsonw *w, const char *key) {
  lead(w, key);
  fputs("null", w->out);
}

void nn_jsonw_finish(struct nn_jsonw *w) {
  while (w->depth > 0) nn_jsonw_end(w);
  fputc('\n', w->out);
}
