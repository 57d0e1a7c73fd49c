/* SPDX-License-Identifier: BSD-3-Clause */
/* cpulist.c - CPU lists and cpumaps (see cpulist.h). */
#include "cpulist.h"

#include <stdio.h>
#include <string.h>

#include "errbuf.h"
#include "numparse.h"

static void mask_set_range(uint32_t *mask, int lo, int hi) {
  for (int c = lo; c <= hi; c++) mask[c / 32] |= 1u << (c % 32);
}

/* One list item "N" or "N-M" into *lo, *hi; returns 0, or -1 with a reason in err. */
static int list_item(char *item, uint64_t *lo, uint64_t *hi, char *err, size_t errsz) {
  char *dash = strchr(item, '-');
  if (dash) *dash = 0;
  int r1 = nn_u64_parse(item, 0, NN_MAX_CPU, lo);
  int r2 = dash ? nn_u64_parse(dash + 1, 0, NN_MAX_CPU, hi) : r1;
  if (!dash) *hi = *lo;
  if (r1 == -2 || r2 == -2) {
    nn_errbuf_set(err, errsz, "CPU numbers go up to %d", NN_MAX_CPU);
    return -1;
  }
  if (r1 || r2) {
    nn_errbuf_set(err, errsz, "expected N or N-M items separated by commas");
    return -1;
  }
  if (*lo > *hi) {
    nn_errbuf_set(err, errsz, "range %llu-%llu is inverted", (unsigned long long)*lo,
                  (unsigned long long)*hi);
    return -1;
  }
  return 0;
}

int nn_cpulist_parse(const char *list, uint32_t *mask, char *err, size_t errsz) {
  if (mask) memset(mask, 0, NN_CPUMASK_WORDS * sizeof *mask);
  if (err && errsz) err[0] = 0;
  if (!list || !*list) {
    nn_errbuf_set(err, errsz, "the list is empty");
    return -1;
  }
  int highest = -1;
  const char *p = list;
  for (;;) {
    char item[32];
    size_t n = strcspn(p, ",");
    if (n == 0 || n >= sizeof item) {
      nn_errbuf_set(err, errsz, n ? "an item is too long" : "an item is empty");
      return -1;
    }
    memcpy(item, p, n);
    item[n] = 0;
    uint64_t lo = 0, hi = 0;
    if (list_item(item, &lo, &hi, err, errsz)) return -1;
    if (mask) mask_set_range(mask, (int)lo, (int)hi);
    if ((int)hi > highest) highest = (int)hi;
    p += n;
    if (!*p) break;
    p++;
  }
  return highest;
}

int nn_cpumask_chars(int highest) { return (highest / 32 + 1) * 9 - 1; }

int nn_cpumask_format(const uint32_t *mask, int highest, char *buf, size_t size) {
  if (!mask || highest < 0 || highest > NN_MAX_CPU) return -1;
  int words = highest / 32 + 1;
  int len = nn_cpumask_chars(highest);
  if (!buf || size < (size_t)len + 1) return -1;
  char *o = buf;
  for (int w = words - 1; w >= 0; w--) o += sprintf(o, w ? "%08x," : "%08x", mask[w]);
  return len;
}
