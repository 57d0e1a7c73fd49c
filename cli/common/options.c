/* SPDX-License-Identifier: BSD-3-Clause */
/* options.c - naming the option getopt_long refused; the options commands share (options.h). */
#include "cli/common/options.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "printable.h"

static int is_long(const char *arg) { return arg && arg[0] == '-' && arg[1] == '-' && arg[2]; }

/* A short option refused inside a bundle ("-xh"): getopt_long has not moved past it yet,
 * so argv[optind] is the bundle, and argv[optind - 1] whatever came before it. */
static int short_in_bundle(int argc, char *const argv[]) {
  const char *a = optind >= 0 && optind < argc ? argv[optind] : NULL;
  return a && a[0] == '-' && a[1] && a[1] != '-' && optopt > 0 && optopt < 0x80 &&
         strchr(a + 1, optopt);
}

/* The long option getopt_long refused, argv[optind - 1] (it always moves past one), or NULL
 * when it refused a short option. A missing value (':') ends argv, so argv[optind - 1] is
 * the option; an unknown or ambiguous name leaves optopt 0; a value given to a flag
 * (`--flag=x`) leaves optopt at the flag's code, as a short option does. */
static const char *refused_long(int c, int argc, char *const argv[]) {
  const char *last = optind >= 1 && optind - 1 < argc ? argv[optind - 1] : NULL;
  if (!is_long(last)) return NULL;
  if (c == ':' || optopt == 0) return last;
  return strchr(last, '=') && !short_in_bundle(argc, argv) ? last : NULL;
}

void nn_options_begin(void) {
  optind = 0;
  opterr = 0;
}

void nn_options_problem(int c, int argc, char *const argv[], char *buf, size_t size) {
  const char *lng = refused_long(c, argc, argv);
  char name[128];
  if (lng) {
    const char *eq = strchr(lng, '=');
    nn_printable(name, sizeof name, lng, eq ? (size_t)(eq - lng) : NN_PRINTABLE_CSTR, NULL);
  } else {
    char shorty[3] = {'-', optopt > 0 && optopt < 0x80 ? (char)optopt : '?', 0};
    nn_printable(name, sizeof name, shorty, NN_PRINTABLE_CSTR, NULL);
  }
  if (c == ':') snprintf(buf, size, "'%s' needs a value", name);
  else if (lng && optopt != 0) snprintf(buf, size, "'%s' takes no value", name);
  else snprintf(buf, size, "unknown option '%s'", name);
}

void nn_options_error(const char *cmd, int c, int argc, char *const argv[]) {
  char msg[512];
  nn_options_problem(c, argc, argv, msg, sizeof msg);
  fprintf(stderr, "nccl-numa %s: %s\n", cmd, msg);
}

int nn_options_proxmox(int c, const char **pci_mapping, const char **node, const char **xml) {
  const char **to = c == 'm' ? pci_mapping : c == 'n' ? node : c == 'x' ? xml : NULL;
  if (to) *to = optarg;
  return to != NULL;
}
