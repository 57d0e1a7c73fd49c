/* SPDX-License-Identifier: BSD-3-Clause */
/* json.c - the JSON reader of the CLI: see json.h. */
#include "cli/common/json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "errbuf.h"
#include "numparse.h"

#define JSON_MAX_DEPTH 64
#define JSON_MAX_VALUES (1 << 20)

static void jskip(struct nn_json *p) {
  while (p->pos < p->len && strchr(" \t\r\n", p->s[p->pos]) && p->s[p->pos]) p->pos++;
}

static int jerr(struct nn_json *p, const char *what) {
  if (p->pos >= p->len)
    nn_errbuf_set(p->err, p->errsz, "truncated JSON: input ends at byte %zu while reading %s",
                  p->pos, what);
  else nn_errbuf_set(p->err, p->errsz, "invalid JSON at byte %zu: expected %s", p->pos, what);
  return -1;
}

static int jnew(struct nn_json *p, int type) {
  if (p->n >= JSON_MAX_VALUES) {
    nn_errbuf_set(p->err, p->errsz, "JSON document has too many values");
    return -1;
  }
  if (p->n == p->cap) {
    int ncap = p->cap ? p->cap * 2 : 256;
    struct nn_jv *n = realloc(p->v, (size_t)ncap * sizeof *n);
    if (!n) {
      nn_errbuf_set(p->err, p->errsz, "out of memory");
      return -1;
    }
    p->v = n;
    p->cap = ncap;
  }
  p->v[p->n] = (struct nn_jv){type, 0, NULL, NULL, -1, -1};
  return p->n++;
}

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* Decodes a string at p->pos (on the opening quote); \u escapes outside ASCII become '?'. */
static const char *jstring(struct nn_json *p) {
  char *out = p->strbuf + p->strpos;
  size_t o = 0;
  p->pos++;
  while (p->pos < p->len) {
    unsigned char c = (unsigned char)p->s[p->pos++];
    if (c == '"') {
      out[o] = 0;
      p->strpos += o + 1;
      return out;
    }
    if (c < 0x20) break;
    if (c != '\\') {
      out[o++] = (char)c;
      continue;
    }
    if (p->pos >= p->len) break;
    char e = p->s[p->pos++];
    switch (e) {
    case 'n':
      out[o++] = '\n';
      break;
    case 't':
      out[o++] = '\t';
      break;
    case 'r':
      out[o++] = '\r';
      break;
    case 'b':
      out[o++] = '\b';
      break;
    case 'f':
      out[o++] = '\f';
      break;
    case '"':
    case '\\':
    case '/':
      out[o++] = e;
      break;
    case 'u': {
      if (p->pos + 4 > p->len) goto bad;
      int v = 0;
      for (int i = 0; i < 4; i++) {
        int h = hexval(p->s[p->pos + (size_t)i]);
        if (h < 0) goto bad;
        v = v * 16 + h;
      }
      p->pos += 4;
      out[o++] = (v > 0 && v < 0x80) ? (char)v : '?';
      break;
    }
    default:
      goto bad;
    }
  }
bad:
  jerr(p, "a string");
  return NULL;
}

static int jvalue(struct nn_json *p, int depth);

static int jcontainer(struct nn_json *p, int depth, int is_obj) {
  int id = jnew(p, is_obj ? NN_JV_OBJ : NN_JV_ARR);
  if (id < 0) return -1;
  p->pos++;
  int last = -1;
  jskip(p);
  if (p->pos < p->len && p->s[p->pos] == (is_obj ? '}' : ']')) {
    p->pos++;
    return id;
  }
  for (;;) {
    const char *key = NULL;
    if (is_obj) {
      jskip(p);
      if (p->pos >= p->len || p->s[p->pos] != '"') return jerr(p, "a member name");
      if (!(key = jstring(p))) return -1;
      jskip(p);
      if (p->pos >= p->len || p->s[p->pos] != ':') return jerr(p, "':'");
      p->pos++;
    }
    int child = jvalue(p, depth + 1);
    if (child < 0) return -1;
    p->v[child].key = key;
    if (last < 0) p->v[id].first = child;
    else p->v[last].next = child;
    last = child;
    jskip(p);
    if (p->pos >= p->len) return jerr(p, is_obj ? "',' or '}'" : "',' or ']'");
    char c = p->s[p->pos++];
    if (c == ',') continue;
    if (c == (is_obj ? '}' : ']')) return id;
    p->pos--;
    return jerr(p, is_obj ? "',' or '}'" : "',' or ']'");
  }
}

static int jliteral(struct nn_json *p, const char *word, int type, double num) {
  size_t n = strlen(word);
  if (p->len - p->pos < n || memcmp(p->s + p->pos, word, n)) return jerr(p, "a value");
  p->pos += n;
  int id = jnew(p, type);
  if (id >= 0) p->v[id].num = num;
  return id;
}

static int jnumber(struct nn_json *p) {
  char tmp[64];
  size_t n = 0;
  while (p->pos + n < p->len && n < sizeof tmp - 1 && strchr("+-0123456789.eE", p->s[p->pos + n]) &&
         p->s[p->pos + n])
    n++;
  memcpy(tmp, p->s + p->pos, n);
  tmp[n] = 0;
  double v;
  if (!n || nn_double_parse(tmp, &v)) return jerr(p, "a number");
  p->pos += n;
  int id = jnew(p, NN_JV_NUM);
  if (id >= 0) p->v[id].num = v;
  return id;
}

static int jvalue(struct nn_json *p, int depth) {
  if (depth > JSON_MAX_DEPTH) {
    nn_errbuf_set(p->err, p->errsz, "JSON nested deeper than %d levels", JSON_MAX_DEPTH);
    return -1;
  }
  jskip(p);
  if (p->pos >= p->len) return jerr(p, "a value");
  char c = p->s[p->pos];
  if (c == '{' || c == '[') return jcontainer(p, depth, c == '{');
  if (c == '"') {
    const char *s = jstring(p);
    if (!s) return -1;
    int id = jnew(p, NN_JV_STR);
    if (id >= 0) p->v[id].str = s;
    return id;
  }
  if (c == 't') return jliteral(p, "true", NN_JV_BOOL, 1);
  if (c == 'f') return jliteral(p, "false", NN_JV_BOOL, 0);
  if (c == 'n') return jliteral(p, "null", NN_JV_NULL, 0);
  return jnumber(p);
}

const struct nn_jv *nn_json_get(const struct nn_json *p, const struct nn_jv *obj, const char *key) {
  if (!obj || obj->type != NN_JV_OBJ) return NULL;
  for (int i = obj->first; i >= 0; i = p->v[i].next)
    if (p->v[i].key && !strcmp(p->v[i].key, key)) return &p->v[i];
  return NULL;
}

double nn_json_num(const struct nn_jv *v) {
  if (!v) return NAN;
  if (v->type == NN_JV_NUM) return v->num;
  double d; /* nccl-tests -J quotes some numbers ("    -1", "nan") */
  if (v->type == NN_JV_STR && !nn_double_parse_prefix(v->str, &d, NULL)) return d;
  return NAN;
}

int nn_json_parse(struct nn_json *p, const char *buf, size_t len, char *err, size_t errsz) {
  *p = (struct nn_json){buf, len, 0, NULL, 0, 0, malloc(len + 1), 0, err, errsz};
  if (!p->strbuf) {
    nn_errbuf_set(err, errsz, "out of memory");
    return -1;
  }
  int root = jvalue(p, 0);
  if (root < 0) return -1;
  jskip(p);
  if (p->pos < p->len) {
    nn_errbuf_set(err, errsz, "invalid JSON at byte %zu: text after the document", p->pos);
    return -1;
  }
  return root;
}

void nn_json_free(struct nn_json *p) {
  free(p->v);
  free(p->strbuf);
  p->v = NULL;
  p->strbuf = NULL;
}
