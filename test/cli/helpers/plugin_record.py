#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Makes the plugin write real NCCL_NUMA_LOG_FILE records for nccl-numa's tests:
loads the built plugin and calls its tuner v5 init as NCCL would (no logger, no NVL
domain, no constants), for one communicator. The environment says the rest
(NCCL_NUMA_CONFIG, NCCL_NUMA_LOG_FILE, OMPI_COMM_WORLD_RANK ...).
usage: plugin_record.py PLUGIN.so COMMID NRANKS NNODES"""
import ctypes
import sys

so, comm, nranks, nnodes = sys.argv[1], int(sys.argv[2], 0), int(sys.argv[3]), int(sys.argv[4])
lib = ctypes.CDLL(so)
plugin = ctypes.addressof(ctypes.c_char.in_dll(lib, "ncclTunerPlugin_v5"))
# ncclTuner_v5_t: const char *name; then init(void **ctx, uint64_t commId, size_t nRanks,
# size_t nNodes, logger, nvlDomainInfo *, constants *)
init_t = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_void_p), ctypes.c_uint64, ctypes.c_size_t,
                          ctypes.c_size_t, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)
init = init_t(ctypes.c_void_p.from_address(plugin + ctypes.sizeof(ctypes.c_void_p)).value)
ctx = ctypes.c_void_p()
sys.exit(init(ctypes.byref(ctx), comm, nranks, nnodes, None, None, None))
