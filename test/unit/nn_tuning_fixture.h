/* SPDX-License-Identifier: BSD-3-Clause */
/* nn_tuning_fixture.h - NCCL's logged tuning tables (cli/sweep/nccltuning.h) as the unit tests
 * read them from test/fixtures/nccl-tests/. */
#ifndef NCCL_NUMA_TUNING_FIXTURE_H
#define NCCL_NUMA_TUNING_FIXTURE_H

#include "nn_test.h"

#include "cli/sweep/nccltuning.h"

#define NN_NCCLTUNING_FIX "test/fixtures/nccl-tests/"

/* Parses the log at path into t; returns nn_nccltuning_parse's result (NN_NCCLTUNING_*). */
static inline int nn_test_tuning_file(const char *path, struct nn_nccltuning *t, char *err,
                                      size_t errsz) {
  size_t len;
  char *b = nn_test_slurp(path, &len);
  int rc = nn_nccltuning_parse(b, len, t, err, errsz);
  free(b);
  return rc;
}

/* NCCL 2.31's table (synthetic: two blocks cut from nccl-oracle's dev-branch table, 8 GPUs
 * flat, gen5 x16) into t; fails the test unless it is read as one complete table. */
static inline void nn_test_tuning_231(struct nn_nccltuning *t) {
  char err[256] = "";
  int rc = nn_test_tuning_file(NN_NCCLTUNING_FIX "synthetic-tuning-2.31.txt", t, err, sizeof err);
  if (rc != NN_NCCLTUNING_FOUND) fail_msg("2.31 tuning fixture: %d (%s)", rc, err);
}

#endif
