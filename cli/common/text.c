/* SPDX-License-Identifier: BSD-3-Clause */
/* text.c - small in-place string helpers shared by the CLI's parsers. */
#include "cli/common/text.h"

#include <ctype.h>
#include <string.h>

char *nn_text_trim(char *s) {
  while (isspace((unsigned char)*s)) s++;
  size_t n = strlen(s);
  while (n && isspace((unsigned char)s[n - 1])) s[--n] = 0;
  return s;
}
