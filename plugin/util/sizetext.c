/* SPDX-License-Identifier: BSD-3-Clause */
/* sizetext.c - a byte count for people (see sizetext.h). */
#include "sizetext.h"

#include <stdio.h>

void nn_sizetext(uint64_t bytes, char *buf, size_t size) {
  static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (u < 4 && bytes >= 1024 && bytes % 1024 == 0) {
    bytes /= 1024;
    u++;
  }
  snprintf(buf, size, "%llu %s", (unsigned long long)bytes, units[u]);
}
