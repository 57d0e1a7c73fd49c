/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_topo_validate.c - libFuzzer target: the NCCL topology XML validator
 * (`nccl-numa check-topo`), which reads files it did not write.
 * Input: the first byte chooses whether a mapping is given to compare against.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nn_config.h"
#include "cli/topo/topo_validate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char mapping[] = "gpu 0 bus=0000:01:00.0 numa=0\ngpu 1 bus=0000:02:00.0 numa=0\n"
                              "gpu 2 bus=0000:81:00.0 numa=1\ngpu 3 bus=0000:82:00.0 numa=1\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static struct nn_config *cfg;
  if (!cfg) {
    struct nn_diag d = {0};
    if (nn_config_parse("map.conf", mapping, sizeof mapping - 1, NULL, &cfg, &d) != 0) abort();
  }
  int with_map = size > 0 && (data[0] & 1);
  struct nn_topo_report rep;
  memset(&rep, 0, sizeof rep);
  int errors =
    nn_topo_validate_buffer("fuzz.xml", (const char *)data, size, with_map ? cfg : NULL, &rep);
  if (errors != rep.errors || rep.n > NN_TOPO_VALIDATE_MAX_PROBLEMS ||
      rep.n + rep.dropped != rep.errors + rep.warnings)
    abort();
  for (int i = 1; i < rep.n; i++)
    if (rep.items[i].line < rep.items[i - 1].line || !rep.items[i].msg) abort();
  nn_topo_report_free(&rep);
  return 0;
}
