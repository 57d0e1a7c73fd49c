/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_printable.c - libFuzzer target: nn_printable (include/util/printable.h) on arbitrary
 * bytes, and a mapping written through mapwrite with those bytes in its comments. The
 * escaped text must be printable ASCII within its bound, escaping it again must change
 * nothing, and the written mapping must read back as its one gpu line: no new directive.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/discover/mapwrite.h"
#include "printable.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_printable(const char *s, size_t bound) {
  size_t n = strlen(s);
  if (n >= bound) abort();
  for (size_t i = 0; i < n; i++)
    if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f) abort();
}

static void escape(const uint8_t *data, size_t size) {
  size_t bound = size ? (size_t)data[0] + 1 : 1;
  char *full = malloc(4 * size + 1), *cut = malloc(bound), *again = malloc(4 * size + 1);
  if (!full || !cut || !again) abort();
  nn_printable(full, 4 * size + 1, (const char *)data, size, NULL);
  check_printable(full, 4 * size + 1);
  if (strlen(full) == 4 * size + 1) abort();
  nn_printable(again, 4 * size + 1, full, NN_PRINTABLE_CSTR, NULL);
  if (strcmp(again, full)) abort();
  nn_printable(cut, bound, (const char *)data, size, "\\#");
  check_printable(cut, bound);
  free(full);
  free(cut);
  free(again);
}

/* The bytes as hwloc or sysfs could hand them over: a C string (up to the first NUL). */
static void mapping(const uint8_t *data, size_t size) {
  char *text = malloc(size + 1), *buf = NULL;
  size_t len = 0;
  if (!text) abort();
  memcpy(text, data, size);
  text[size] = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f) abort();
  nn_mapwrite_comment(f, "nccl-numa discover: on %s, from hwloc XML %s", text, text);
  nn_mapwrite_cpu(f, text, 25, 17);
  if (strspn(text, "0123456789,-") != strlen(text) || !text[0]) nn_mapwrite_numa(f, 0, text);
  struct nn_mapwrite_gpu g = {.index = 0, .numa = 0, .has_bus = 1, .comment = text};
  nn_mapwrite_gpu(f, &g);
  if (fclose(f)) abort();
  struct nn_config *cfg = NULL;
  struct nn_diag diag = {0};
  if (nn_config_parse("fuzz.conf", buf, len, NULL, &cfg, &diag) != 0) abort();
  if (cfg->n_gpus != 1 || cfg->n_envs || cfg->n_rules || cfg->n_numas || cfg->host_side) abort();
  if (cfg->cpu.present && strcmp(text, "AuthenticAMD") && strcmp(text, "GenuineIntel")) abort();
  nn_config_free(cfg);
  nn_diag_clear(&diag);
  free(buf);
  free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  escape(data, size);
  mapping(data, size);
  return 0;
}
