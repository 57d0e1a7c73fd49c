/* SPDX-License-Identifier: BSD-3-Clause */
/* allocconf.c - PyTorch's expandable segments in this process; see allocconf.h. */
#include "allocconf.h"

#include <stdlib.h>
#include <string.h>

#include "ascii.h"

/* The text from s up to one of `stops` or the end, trimmed of blanks, into out; returns
 * where it stopped. */
static const char *take_field(const char *s, const char *stops, char *out, size_t size) {
  while (*s == ' ' || *s == '\t') s++;
  size_t n = strcspn(s, stops);
  size_t len = n;
  while (len && (s[len - 1] == ' ' || s[len - 1] == '\t')) len--;
  if (len >= size) len = size - 1;
  memcpy(out, s, len);
  out[len] = 0;
  return s + n;
}

int nn_allocconf_expandable(const char *conf) {
  int on = 0;
  for (const char *p = conf; p && *p;) {
    char key[64], value[64] = "";
    p = take_field(p, ":,", key, sizeof key);
    if (*p == ':') p = take_field(p + 1, ",", value, sizeof value);
    if (!strcmp(key, "expandable_segments")) on = nn_ascii_caseeq(value, "true");
    if (*p == ',') p++;
  }
  return on;
}

int nn_allocconf_process_expandable(const char **var) {
  static const char *const names[] = {"PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_ALLOC_CONF"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (nn_allocconf_expandable(getenv(names[i]))) {
      if (var) *var = names[i];
      return 1;
    }
  return 0;
}
