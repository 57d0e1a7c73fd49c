/* SPDX-License-Identifier: BSD-3-Clause */
/* nccl_version.c - NCCL release numbers as text and back (declared in nccl_model.h). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "nccl_model.h"
#include "numparse.h"

/* One component: digits only (no blank or sign, which nn_int_parse_prefix would skip or take). */
static int version_part(const char **p, int min, int *out) {
  if (!isdigit((unsigned char)**p)) return -1;
  return nn_int_parse_prefix(*p, min, 99, out, p);
}

int nn_nccl_version_parse(const char *s) {
  if (!s) return -1;
  int x, y, z;
  const char *p = s;
  if (version_part(&p, 2, &x) || *p++ != '.' || version_part(&p, 0, &y) || *p++ != '.' ||
      version_part(&p, 0, &z))
    return -1;
  if (*p && *p != '-' && *p != '+') return -1;
  return NN_NCCL_VERSION(x, y, z);
}

int nn_nccl_version_parse_word(const char *s) {
  char word[32];
  size_t n = 0;
  if (!s) return -1;
  while (s[n] && !isspace((unsigned char)s[n]) && n < sizeof word - 1) n++;
  if (s[n] && !isspace((unsigned char)s[n])) return -1;
  memcpy(word, s, n);
  word[n] = 0;
  return nn_nccl_version_parse(word);
}

void nn_nccl_version_format(int code, char *buf, size_t size) {
  if (code >= 10000) snprintf(buf, size, "%d.%d.%d", code / 10000, code / 100 % 100, code % 100);
  else snprintf(buf, size, "%d.%d.%d", code / 1000, code / 100 % 10, code % 100); /* before 2.9 */
}
