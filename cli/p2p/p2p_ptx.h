/* SPDX-License-Identifier: BSD-3-Clause */
/* p2p_ptx.h - p2p_kernels.ptx, embedded by the build (a generated C file), NUL-terminated as
 * cuModuleLoadData takes PTX. */
#ifndef NCCL_NUMA_CLI_P2P_PTX_H
#define NCCL_NUMA_CLI_P2P_PTX_H

extern const unsigned char nn_p2p_ptx[];

#endif
