/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ascii.h - the config's keywords, compared ignoring ASCII case whatever locale the host
 * program set: strcasecmp and tolower follow the process locale (NCCL's host may set one,
 * and in a Turkish one 'I' need not lower to 'i'), and their locale lookups were a third of
 * the time of parsing a long mapping.
 */
#ifndef NCCL_NUMA_ASCII_H
#define NCCL_NUMA_ASCII_H

#include <stddef.h>

/* c with A-Z lowered, any other value unchanged. */
static inline int nn_ascii_lower(int c) { return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c; }

/* The value of the hexadecimal digit c (0-9, a-f, A-F), or -1. */
static inline int nn_ascii_hex_digit(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  c = nn_ascii_lower(c);
  return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Whether the first n bytes of a and b agree ignoring ASCII case, stopping at a NUL both share. */
static inline int nn_ascii_caseeq_n(const char *a, const char *b, size_t n) {
  for (size_t i = 0; i < n; i++) {
    int x = nn_ascii_lower((unsigned char)a[i]), y = nn_ascii_lower((unsigned char)b[i]);
    if (x != y) return 0;
    if (!x) return 1;
  }
  return 1;
}

/* Whether the NUL-terminated a and b are equal ignoring ASCII case. */
static inline int nn_ascii_caseeq(const char *a, const char *b) {
  return nn_ascii_caseeq_n(a, b, (size_t)-1);
}

#endif
