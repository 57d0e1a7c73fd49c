/* SPDX-License-Identifier: BSD-3-Clause */
/* errbuf.c - formatting a message into a caller's error buffer. */
#include "errbuf.h"

#include <stdarg.h>
#include <stdio.h>

void nn_errbuf_set(char *err, size_t errsz, const char *fmt, ...) {
  if (!err || !errsz) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errsz, fmt, ap);
  va_end(ap);
}
