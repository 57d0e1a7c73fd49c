#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""What the plugin's tuner serves as chunk size, for the stand-in nccl-tests: loads the
built plugin, calls its tuner v6 init as NCCL would (no logger, no NVL domain, no
constants; the environment gives NCCL_NUMA_CONFIG) for one communicator, then
getChunkSize once per size with NCCL's own chunk DEFAULT, and prints "SIZE CHUNK" per
size (CHUNK = what the hook left: DEFAULT where no rule applies).
usage: plugin_chunk.py PLUGIN.so COLL ALGO PROTO NRANKS DEFAULT SIZE..."""
import ctypes
import sys

FUNCS = {"broadcast": 0, "reduce": 1, "all_gather": 2, "reduce_scatter": 3, "all_reduce": 4}
ALGOS = {"tree": 0, "ring": 1, "collnet_direct": 2, "collnet_chain": 3, "nvls": 4, "nvls_tree": 5, "pat": 6}
PROTOS = {"ll": 0, "ll128": 1, "simple": 2}

so, coll, algo, proto = sys.argv[1], sys.argv[2], sys.argv[3].lower(), sys.argv[4].lower()
nranks, default, sizes = int(sys.argv[5]), int(sys.argv[6]), [int(s) for s in sys.argv[7:]]
lib = ctypes.CDLL(so)
plugin = ctypes.addressof(ctypes.c_char.in_dll(lib, "ncclTunerPlugin_v6"))
ptr = ctypes.sizeof(ctypes.c_void_p)
# ncclTuner_v6_t: name, init, getCollInfo, finalize, getChunkSize
init_t = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_void_p), ctypes.c_uint64, ctypes.c_size_t,
                          ctypes.c_size_t, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)
chunk_t = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t, ctypes.c_int,
                           ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_size_t))
init = init_t(ctypes.c_void_p.from_address(plugin + ptr).value)
get_chunk = chunk_t(ctypes.c_void_p.from_address(plugin + 4 * ptr).value)
ctx = ctypes.c_void_p()
if init(ctypes.byref(ctx), 0x1234, nranks, 1, None, None, None) != 0:
    sys.exit("plugin_chunk.py: init failed")
for size in sizes:
    chunk = ctypes.c_size_t(default)
    if coll in FUNCS and get_chunk(ctx, FUNCS[coll], size, ALGOS[algo], PROTOS[proto], 2, ctypes.byref(chunk)) != 0:
        sys.exit("plugin_chunk.py: getChunkSize failed")
    print(size, chunk.value)
