/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_csv_rules.c - libFuzzer target: rule files in the CSV format of NCCL's example
 * tuner (`include-csv`, NCCL_TUNER_CONFIG_FILE), parsed inside the plugin.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "csv_rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  struct nn_rule *rules = NULL;
  int n = -1;
  struct nn_diag diag = {0};
  int rc = nn_csv_rules_parse("fuzz.csv", (const char *)data, size, &rules, &n, &diag);
  if (rc == 0) {
    if (n < 0 || n > NN_MAX_RULES || (n > 0) != (rules != NULL)) abort();
    for (int i = 0; i < n; i++) {
      const struct nn_rule *r = &rules[i];
      if (r->bytes_lo > r->bytes_hi || r->algo >= NN_ALGO_COUNT || r->proto >= NN_PROTO_COUNT)
        abort();
      if (r->channels < 0 || r->channels > NN_MAX_CHANNELS || strcmp(r->file, "fuzz.csv")) abort();
    }
  } else if (rules || n != 0 || diag.n + diag.dropped == 0) {
    abort();
  }
  free(rules);
  nn_diag_clear(&diag);
  return 0;
}
