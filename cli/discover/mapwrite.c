/* SPDX-License-Identifier: BSD-3-Clause */
/* mapwrite.c - mapping file (format 1) writer; see mapwrite.h. */
#include "cli/discover/mapwrite.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "numparse.h"

void nn_mapwrite_comment(FILE *out, const char *fmt, ...) {
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  fprintf(out, line[0] ? "# %s\n" : "#\n", line);
}

int nn_mapwrite_cpu(FILE *out, const char *vendor, int family, int model) {
  if (!vendor || !vendor[0]) {
    nn_mapwrite_comment(out, "no cpu line: the topology does not name the CPU vendor "
                             "(the plugin falls back to /proc/cpuinfo)");
    return 0;
  }
  if (strcmp(vendor, "AuthenticAMD") && strcmp(vendor, "GenuineIntel")) {
    nn_mapwrite_comment(out, "no cpu line: vendor %s cannot be written in format 1", vendor);
    return 0;
  }
  fprintf(out, "cpu vendor=%s", vendor);
  if (family >= 0) fprintf(out, " family=%d", family);
  if (model >= 0) fprintf(out, " model=%d", model);
  fputc('\n', out);
  return 1;
}

void nn_mapwrite_numa(FILE *out, int node, const char *cpus) {
  fprintf(out, "numa %d cpus=%s\n", node, cpus);
}

void nn_mapwrite_gpu(FILE *out, const struct nn_mapwrite_gpu *g) {
  char id[32];
  fprintf(out, "gpu %d", g->index);
  if (g->has_bus) {
    nn_busid_format(&g->bus, id, sizeof id);
    fprintf(out, " bus=%s", id);
  }
  fprintf(out, " numa=%d", g->numa);
  if (g->has_host) {
    nn_busid_format(&g->host, id, sizeof id);
    fprintf(out, " host=%s", id);
  }
  if (g->sm > 0) fprintf(out, " sm=%d", g->sm);
  if (g->pcie_gen > 0 && g->pcie_width > 0) fprintf(out, " pcie=%dx%d", g->pcie_gen, g->pcie_width);
  if (g->comment && g->comment[0]) fprintf(out, "   # %s", g->comment);
  fputc('\n', out);
}

void nn_mapwrite_timestamp(char *buf, size_t size) {
  time_t t = time(NULL);
  const char *sde = getenv("SOURCE_DATE_EPOCH");
  uint64_t v;
  if (sde && !nn_u64_parse(sde, 0, INT64_MAX, &v)) t = (time_t)v;
  struct tm tm;
  if (!gmtime_r(&t, &tm) || !strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm))
    snprintf(buf, size, "unknown time");
}
