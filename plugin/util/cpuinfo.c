/* SPDX-License-Identifier: BSD-3-Clause */
/* cpuinfo.c - the first processor's vendor, family and model (see cpuinfo.h). */
#include "cpuinfo.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "fileread.h"
#include "numparse.h"

/* A cpuinfo of a machine with thousands of CPUs stays well below this. */
#define NN_CPUINFO_MAX_BYTES (64u << 20)

static const char *default_path = "/proc/cpuinfo";

static int default_named;

const char *nn_cpuinfo_default(void) { return default_path; }

int nn_cpuinfo_default_named(void) { return default_named; }

void nn_cpuinfo_set_default(const char *path) {
  default_path = path ? path : "/proc/cpuinfo";
  default_named = path != NULL;
}

int nn_cpuinfo_read(const char *path, char vendor[16], int *family, int *model) {
  /* --cpuinfo may name any file: opened by the bounded reader's rules (never a FIFO). */
  FILE *f = nn_file_fopen(path ? path : default_path, 0, NN_CPUINFO_MAX_BYTES);
  if (!f) return -1;
  vendor[0] = 0;
  *family = *model = -1;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '\n' && vendor[0]) break; /* end of the first processor */
    char *colon = strchr(line, ':');
    if (!colon) continue;
    char *key_end = colon;
    while (key_end > line && isspace((unsigned char)key_end[-1])) key_end--;
    size_t klen = (size_t)(key_end - line);
    char *val = colon + 1;
    while (*val == ' ' || *val == '\t') val++;
    val[strcspn(val, " \t\r\n")] = 0;
    if (klen == 9 && !strncmp(line, "vendor_id", 9) && !vendor[0])
      snprintf(vendor, 16, "%.15s", val);
    else if (klen == 10 && !strncmp(line, "cpu family", 10) && *family < 0)
      nn_int_parse(val, 0, INT_MAX, family); /* junk leaves it unknown (-1) */
    else if (klen == 5 && !strncmp(line, "model", 5) && *model < 0)
      nn_int_parse(val, 0, INT_MAX, model);
  }
  fclose(f);
  return vendor[0] ? 0 : -1;
}
