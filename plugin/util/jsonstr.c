/* SPDX-License-Identifier: BSD-3-Clause */
/* jsonstr.c - a byte string as a JSON string literal (jsonstr.h). */
#include "jsonstr.h"

#include <stdio.h>
#include <string.h>

/* The length of the well-formed UTF-8 sequence at p (2 to 4), or 0. */
static int utf8_len(const unsigned char *p) {
  unsigned c = p[0];
  int n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
  for (int i = 1; i < n; i++)
    if ((p[i] & 0xc0) != 0x80) return 0;
  if ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] > 0x9f)) return 0; /* overlong, surrogate */
  if ((c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] > 0x8f)) return 0; /* overlong, > U+10FFFF */
  return n;
}

/* The code point of the well-formed n-byte sequence at p, as \uXXXX (a surrogate pair above
 * U+FFFF), so the output stays ASCII. */
static void put_code_point(void (*put)(void *ctx, const char *bytes, size_t n), void *ctx,
                           const unsigned char *p, int n) {
  unsigned cp = p[0] & (0x7f >> n);
  for (int i = 1; i < n; i++) cp = (cp << 6) | (p[i] & 0x3f);
  char esc[16];
  if (cp > 0xffff)
    snprintf(esc, sizeof esc, "\\u%04x\\u%04x", 0xd800 + ((cp - 0x10000) >> 10),
             0xdc00 + ((cp - 0x10000) & 0x3ff));
  else snprintf(esc, sizeof esc, "\\u%04x", cp);
  put(ctx, esc, strlen(esc));
}

void nn_json_string(void (*put)(void *ctx, const char *bytes, size_t n), void *ctx, const char *s) {
  const unsigned char *p = (const unsigned char *)(s ? s : "");
  put(ctx, "\"", 1);
  while (*p) {
    char esc[8];
    int n = *p >= 0x80 ? utf8_len(p) : 0;
    if (n) {
      put_code_point(put, ctx, p, n);
      p += n;
      continue;
    }
    if (*p == '"' || *p == '\\') snprintf(esc, sizeof esc, "\\%c", *p);
    else if (*p == '\n') snprintf(esc, sizeof esc, "\\n");
    else if (*p == '\t') snprintf(esc, sizeof esc, "\\t");
    else if (*p < 0x20 || *p >= 0x7f) snprintf(esc, sizeof esc, "\\u%04x", *p);
    else snprintf(esc, sizeof esc, "%c", *p);
    put(ctx, esc, strlen(esc));
    p++;
  }
  put(ctx, "\"", 1);
}
