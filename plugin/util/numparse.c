/* SPDX-License-Identifier: BSD-3-Clause */
/* numparse.c - checked text-to-number conversion (see numparse.h). */
#include "ascii.h"
#include "numparse.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* strtol with the checks it leaves to the caller: digits present, no overflow, in range.
 * strtol would skip blanks and read "0x" alone as 0; both are refused here. */
static int int_at(const char *s, int base, int min, int max, int *out, const char **end) {
  const char *digits = s + (*s == '+' || *s == '-');
  int hex = base != 10 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X');
  if (!(hex          ? isxdigit((unsigned char)digits[2])
        : base == 16 ? isxdigit((unsigned char)*digits)
                     : isdigit((unsigned char)*digits)))
    return -1;
  char *e;
  errno = 0;
  long v = strtol(s, &e, base);
  if (errno || v < min || v > max) return -1;
  *out = (int)v;
  *end = e;
  return 0;
}

int nn_int_parse(const char *s, int min, int max, int *out) {
  const char *end;
  int v;
  if (!s || int_at(s, 10, min, max, &v, &end) || *end) return -1;
  *out = v;
  return 0;
}

int nn_int_parse_base(const char *s, int base, int min, int max, int *out) {
  const char *end;
  int v;
  if (!s || (base != 0 && base != 10 && base != 16) || int_at(s, base, min, max, &v, &end) || *end)
    return -1;
  *out = v;
  return 0;
}

int nn_int_parse_prefix(const char *s, int min, int max, int *out, const char **end) {
  const char *e;
  if (!s) return -1;
  while (*s == ' ' || *s == '\t') s++;
  if (int_at(s, 10, min, max, out, &e)) return -1;
  if (end) *end = e;
  return 0;
}

/* strtod with the checks it leaves to the caller: a number present, finite, in range. */
static int double_at(const char *s, double *out, const char **end) {
  if (!*s || isspace((unsigned char)*s)) return -1;
  char *e;
  errno = 0;
  double v = strtod(s, &e);
  if (e == s || errno == ERANGE || !isfinite(v)) return -1;
  *out = v;
  *end = e;
  return 0;
}

int nn_double_parse(const char *s, double *out) {
  const char *end;
  double v;
  if (!s || double_at(s, &v, &end) || *end) return -1;
  *out = v;
  return 0;
}

int nn_double_parse_prefix(const char *s, double *out, const char **end) {
  const char *e;
  if (!s) return -1;
  while (*s == ' ' || *s == '\t') s++;
  if (double_at(s, out, &e)) return -1;
  if (end) *end = e;
  return 0;
}

int nn_u64_parse(const char *s, int allow_suffix, uint64_t max, uint64_t *out) {
  if (!s || !isdigit((unsigned char)*s)) return -1;
  uint64_t v = 0;
  int too_big = 0;
  for (; isdigit((unsigned char)*s); s++) {
    unsigned d = (unsigned)(*s - '0');
    if (v > (UINT64_MAX - d) / 10) too_big = 1;
    else v = v * 10 + d;
  }
  if (*s) {
    static const char sfx[] = "kmgt";
    const char *p = allow_suffix ? strchr(sfx, nn_ascii_lower((unsigned char)*s)) : NULL;
    if (!p || s[1]) return -1;
    for (int shift = (int)(p - sfx) + 1; shift > 0; shift--) {
      if (v > UINT64_MAX / 1024) too_big = 1;
      else v *= 1024;
    }
  }
  if (too_big || v > max) return -2;
  *out = v;
  return 0;
}

int nn_hex_parse_prefix(const char *s, uint64_t max, uint64_t *out, const char **end) {
  if (!s || nn_ascii_hex_digit((unsigned char)*s) < 0) return -1;
  uint64_t v = 0;
  int too_big = 0;
  for (int digit; (digit = nn_ascii_hex_digit((unsigned char)*s)) >= 0; s++) {
    unsigned d = (unsigned)digit;
    if (v > (UINT64_MAX - d) / 16) too_big = 1;
    else v = v * 16 + d;
  }
  if (too_big || v > max) return -1;
  *out = v;
  if (end) *end = s;
  return 0;
}
