/* SPDX-License-Identifier: BSD-3-Clause */
/* nccl_smoke.c - the first NCCL call, which loads the env plugin; no GPU needed. */
#include <stdio.h>

#include <nccl.h>

int main(void) {
  ncclUniqueId id;
  ncclResult_t rc = ncclGetUniqueId(&id);
  printf("ncclGetUniqueId: %s\n", ncclGetErrorString(rc));
  return rc == ncclSuccess ? 0 : 1;
}
