/* numparse.c - checked text-to-number conversion (see numparse.h). */
#include "numparse.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>

/* strtol with the checks it leaves to the caller: digits present, no overflow, in range. */
static int int_at(const char *s, int min, int max, int *out, const char **end) {
  const char *digits = s + (*s == '+' || *s == '-');
  if (!isdigit((unsigned char)*digits)) return -1;
  char *e;
  errno = 0;
  long v = strtol(s, &e, 10);
  if (errno || v < min || v > max) return -1;
  *out = (int)v;
  *end = e;
  return 0;
}

int nn_int_parse(const char *s, int min, int max, int *out) {
  const char *end;
  int v;
  if (!s || int_at(s, min, max, &v, &end) || *end) return -1;
  *out = v;
  return 0;
}

int nn_int_parse_prefix(const char *s, int min, int max, int *out, const char **end) {
  const char *e;
  if (!s) return -1;
  while (*s == ' ' || *s == '\t') s++;
  if (int_at(s, min, max, out, &e)) return -1;
  if (end) *end = e;
  return 0;
}

int nn_double_parse(const char *s, double *out) {
  if (!s || !*s || isspace((unsigned char)*s)) return -1;
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (*end || errno == ERANGE || !isfinite(v)) return -1;
  *out = v;
  return 0;
}
