/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_nccltests.c - libFuzzer target: the nccl-tests output parser (text and -J JSON),
 * which reads what a benchmark run printed.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/sweep/nccltests.h"
#include "nccl_model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  struct nn_nccltests_result r;
  char err[512];
  memset(&r, 0, sizeof r);
  err[0] = 0;
  int rc = nn_nccltests_parse((const char *)data, size, &r, err, sizeof err);
  if (rc == 0) {
    if (r.n_rows < 0 || r.n_rows > NN_NT_MAX_ROWS || (r.n_rows && !r.rows)) abort();
    if (r.format != NN_NT_TEXT && r.format != NN_NT_JSON) abort();
    for (int i = 0; i < r.n_rows; i++) {
      nn_nccltests_row_failed(&r.rows[i]);
      if (!memchr(r.rows[i].type, 0, sizeof r.rows[i].type) ||
          !memchr(r.rows[i].redop, 0, sizeof r.rows[i].redop))
        abort();
    }
    if (!memchr(r.test_name, 0, sizeof r.test_name) ||
        !memchr(r.nccl_version, 0, sizeof r.nccl_version))
      abort();
  } else if (!err[0] || r.n_rows || r.rows) {
    abort();
  }
  /* a version read as a code of 2.9+ reads back through the one parser as the same code */
  if (nn_nccl_version_plausible(r.nccl_code) &&
      nn_nccl_version_parse(r.nccl_version) != r.nccl_code)
    abort();
  nn_nccltests_free(&r);
  return 0;
}
