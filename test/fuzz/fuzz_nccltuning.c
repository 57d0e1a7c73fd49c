/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_nccltuning.c - libFuzzer target: the reader of NCCL's tuning table
 * (NCCL_DEBUG_SUBSYS=TUNING log), which calibrate runs on a probe's output.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/sweep/nccltuning.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  struct nn_nccltuning t;
  char err[256];
  err[0] = 0;
  int rc = nn_nccltuning_parse((const char *)data, size, &t, err, sizeof err);
  if (rc != NN_NCCLTUNING_FOUND && rc != NN_NCCLTUNING_NONE && rc != NN_NCCLTUNING_TRUNCATED)
    abort();
  if (rc == NN_NCCLTUNING_FOUND && t.n_tables < 1) abort();
  if (rc != NN_NCCLTUNING_FOUND && (t.n_tables || !err[0])) abort();
  if (t.n_funcs < 0 || t.n_funcs > NN_NCCLTUNING_MAX_FUNCS || t.n_algos < 0 ||
      t.n_algos > NN_NCCLTUNING_MAX_ALGOS || t.n_protos < 0 ||
      t.n_protos > NN_NCCLTUNING_MAX_PROTOS)
    abort();
  for (int f = 0; f < t.n_funcs; f++)
    for (int a = 0; a < t.n_algos; a++)
      for (int p = 0; p < t.n_protos; p++) {
        int e = nn_nccltuning_enabled(&t, t.funcs[f], t.algos[a], t.protos[p]);
        if (e != (t.seen[f][a][p] ? t.enabled[f][a][p] : -1)) abort();
      }
  return 0;
}
