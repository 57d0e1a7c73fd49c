/* SPDX-License-Identifier: BSD-3-Clause */
/* cost_fixture.h - the communicator the tests of NCCL's cost model share: `nranks` GPUs of
 * compute capability `cc` (x10) as NCCL's search sees them under one AMD CPU, PCIe gen5 x16
 * (NCCL's flat view): ring and tree 2 channels x 24 GB/s through the CPU (nccl-oracle). */
#ifndef NN_TEST_COST_FIXTURE_H
#define NN_TEST_COST_FIXTURE_H

#include "nccl_cost.h"

static inline struct nn_cost_comm cost_flat_comm(int version, int nranks, int cc) {
  struct nn_cost_comm c = {.version_code = version,
                           .nranks = nranks,
                           .nnodes = 1,
                           .cc_min = cc,
                           .cc_max = cc,
                           .cpu = NN_COST_CPU_X86_AMD,
                           .ll128 = NN_COST_LL128_RULE};
  nn_cost_graph_set(&c.ring, 2, 24.0f, 24.0f, NN_COST_PATH_PHB, 0);
  nn_cost_graph_set(&c.tree, 2, 24.0f, 24.0f, NN_COST_PATH_PHB, 1);
  return c;
}

#endif
