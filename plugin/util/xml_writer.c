/* SPDX-License-Identifier: BSD-3-Clause */
/* xml_writer.c - elements and escaped attributes into a growing buffer. */
#include "xml_writer.h"

#include <stdlib.h>
#include <string.h>

void nn_xml_writer_init(struct nn_xml_writer *w) { memset(w, 0, sizeof *w); }

static void put(struct nn_xml_writer *w, const char *s, size_t n) {
  if (w->failed) return;
  if (w->cap - w->len <= n) {
    size_t cap = w->cap ? w->cap : 1024;
    while (cap - w->len <= n) {
      if (cap > ((size_t)-1) / 2) {
        w->failed = 1;
        return;
      }
      cap *= 2;
    }
    char *grown = realloc(w->buf, cap);
    if (!grown) {
      w->failed = 1;
      return;
    }
    w->buf = grown;
    w->cap = cap;
  }
  memcpy(w->buf + w->len, s, n);
  w->len += n;
  w->buf[w->len] = 0;
}

static void put_str(struct nn_xml_writer *w, const char *s) { put(w, s, strlen(s)); }

static void indent(struct nn_xml_writer *w, int depth) {
  for (int i = 0; i < depth; i++) put(w, " ", 1);
}

static int name_char(char c, int first) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_') return 1;
  return !first && ((c >= '0' && c <= '9') || c == '-' || c == '.');
}

static int plain_name(const char *s) {
  if (!s || !name_char(*s, 1)) return 0;
  for (s++; *s; s++)
    if (!name_char(*s, 0)) return 0;
  return 1;
}

/* The reference for a byte an attribute value cannot hold as it is; "" for one it can,
 * NULL for one XML 1.0 does not allow at all. */
static const char *escape_of(unsigned char c) {
  switch (c) {
  case '&':
    return "&amp;";
  case '<':
    return "&lt;";
  case '>':
    return "&gt;";
  case '"':
    return "&quot;";
  case '\t':
    return "&#9;";
  case '\n':
    return "&#10;";
  case '\r':
    return "&#13;";
  default:
    return c < 0x20 || c == 0x7f ? NULL : "";
  }
}

/* Ends a start tag that got children. */
static void close_start_tag(struct nn_xml_writer *w) {
  if (!w->tag_open) return;
  put_str(w, ">\n");
  w->tag_open = 0;
}

void nn_xml_writer_start(struct nn_xml_writer *w, const char *name) {
  if (w->failed) return;
  if (!plain_name(name) || w->depth == NN_XML_WRITER_MAX_DEPTH || (w->depth == 0 && w->len)) {
    w->failed = 1; /* a bad name, too deep, or a second root */
    return;
  }
  close_start_tag(w);
  indent(w, w->depth);
  put_str(w, "<");
  put_str(w, name);
  w->open[w->depth++] = name;
  w->tag_open = 1;
}

void nn_xml_writer_attr(struct nn_xml_writer *w, const char *name, const char *value) {
  if (w->failed) return;
  if (!w->tag_open || !plain_name(name) || !value) {
    w->failed = 1;
    return;
  }
  put_str(w, " ");
  put_str(w, name);
  put_str(w, "=\"");
  for (const char *s = value; *s && !w->failed; s++) {
    const char *e = escape_of((unsigned char)*s);
    if (!e) w->failed = 1;
    else if (*e) put_str(w, e);
    else put(w, s, 1);
  }
  put_str(w, "\"");
}

void nn_xml_writer_end(struct nn_xml_writer *w) {
  if (w->failed) return;
  if (w->depth == 0) {
    w->failed = 1;
    return;
  }
  const char *name = w->open[--w->depth];
  if (w->tag_open) {
    put_str(w, "/>\n");
    w->tag_open = 0;
    return;
  }
  indent(w, w->depth);
  put_str(w, "</");
  put_str(w, name);
  put_str(w, ">\n");
}

void nn_xml_writer_discard(struct nn_xml_writer *w) {
  free(w->buf);
  nn_xml_writer_init(w);
}

int nn_xml_writer_finish(struct nn_xml_writer *w, char **text, size_t *len) {
  if (w->failed || w->depth || !w->len) {
    nn_xml_writer_discard(w);
    return -1;
  }
  *text = w->buf;
  *len = w->len;
  nn_xml_writer_init(w);
  return 0;
}
