/* SPDX-License-Identifier: BSD-3-Clause */
/* mapwrite.c - mapping file (format 1) writer; see mapwrite.h. */
#include "cli/discover/mapwrite.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "numparse.h"
#include "printable.h"

/* A comment's text comes partly from outside (hwloc's HostName, a VM config's path, a file
 * name): a newline in it would start a line of the mapping, and the host-side marker, which
 * the parser finds anywhere in a comment line, would change what the file means. Our own
 * comments never hold the marker, so a text that does has its ':' escaped too. */
static const char *comment_safe(char *buf, size_t size, const char *text) {
  nn_printable(buf, size, text, NN_PRINTABLE_CSTR, "#");
  if (strstr(buf, NN_CONFIG_HOST_SIDE_MARKER))
    nn_printable(buf, size, text, NN_PRINTABLE_CSTR, "#:");
  return buf;
}

void nn_mapwrite_comment(FILE *out, const char *fmt, ...) {
  char line[1024], safe[NN_MAX_LINE_BYTES - 8];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  fprintf(out, line[0] ? "# %s\n" : "#\n", comment_safe(safe, sizeof safe, line));
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
  /* The guest's list is read from files under --root: write only what a list can hold. */
  if (!cpus[0] || cpus[strspn(cpus, "0123456789,-")]) {
    nn_mapwrite_comment(out, "numa %d: '%.200s' is not a CPU list, left out", node, cpus);
    return;
  }
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
  char safe[1024];
  if (g->comment && g->comment[0])
    fprintf(out, "   # %s", comment_safe(safe, sizeof safe, g->comment));
  fputc('\n', out);
}

/* What config_nic.c accepts as name=. */
static int nic_name_ok(const char *s) {
  size_t n = s ? strlen(s) : 0;
  if (!n || n >= NN_NIC_NAME_MAX) return 0;
  for (size_t i = 0; i < n; i++)
    if (!isalnum((unsigned char)s[i]) && !strchr("_.-:", s[i])) return 0;
  return 1;
}

void nn_mapwrite_nic(FILE *out, const struct nn_mapwrite_nic *n) {
  char id[32];
  fprintf(out, "nic %d", n->index);
  if (n->has_bus) {
    nn_busid_format(&n->bus, id, sizeof id);
    fprintf(out, " bus=%s", id);
  }
  fprintf(out, " numa=%d", n->numa);
  if (nic_name_ok(n->name)) fprintf(out, " name=%s", n->name);
  if (n->has_host) {
    nn_busid_format(&n->host, id, sizeof id);
    fprintf(out, " host=%s", id);
  }
  char safe[1024];
  if (n->comment && n->comment[0])
    fprintf(out, "   # %s", comment_safe(safe, sizeof safe, n->comment));
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
