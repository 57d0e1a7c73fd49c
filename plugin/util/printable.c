/* SPDX-License-Identifier: BSD-3-Clause */
/* printable.c - untrusted text escaped for terminals, logs and mapping comments (printable.h). */
#include "printable.h"

#include <string.h>

static int plain(unsigned char c, const char *also) {
  return c >= 0x20 && c < 0x7f && !(also && strchr(also, c));
}

char *nn_printable(char *out, size_t outsz, const char *s, size_t len, const char *also) {
  static const char hex[] = "0123456789abcdef";
  if (!outsz) return out;
  if (!s) s = "", len = 0;
  size_t room = outsz - 1, o = 0, keep = 0; /* keep: the last whole escape with room for "..." */
  for (size_t i = 0; len == NN_PRINTABLE_CSTR ? s[i] != 0 : i < len; i++) {
    unsigned char c = (unsigned char)s[i];
    int ok = plain(c, also);
    if (o + (ok ? 1 : 4) > room) {
      size_t dots = room < 3 ? room : 3;
      o = room < 3 ? 0 : keep;
      memset(out + o, '.', dots);
      o += dots;
      break;
    }
    if (ok) {
      out[o++] = (char)c;
    } else {
      out[o++] = '\\';
      out[o++] = 'x';
      out[o++] = hex[c >> 4];
      out[o++] = hex[c & 15];
    }
    if (o + 3 <= room) keep = o;
  }
  out[o] = 0;
  return out;
}
