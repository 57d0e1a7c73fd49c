#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Inside the test image: the NCCL of the image's pip wheel (found through this python's
sys.path, as nccl-numa finds it) calls ncclGetUniqueId, its first call, which loads the env
plugin NCCL_ENV_PLUGIN names (the environment sets it, and NCCL_NUMA_CONFIG, NCCL_DEBUG).
Prints the library's path, then NCCL's own log; exits with NCCL's result."""
import ctypes
import os
import sys

lib = next((os.path.join(p, "nvidia", "nccl", "lib", "libnccl.so.2") for p in sys.path
            if os.path.exists(os.path.join(p, "nvidia", "nccl", "lib", "libnccl.so.2"))), None)
if lib is None:
    sys.exit("no nvidia/nccl/lib/libnccl.so.2 on sys.path")
print("libnccl: " + lib, flush=True)
nccl = ctypes.CDLL(lib)
unique_id = ctypes.create_string_buffer(128)   # ncclUniqueId: char internal[128]
rc = nccl.ncclGetUniqueId(unique_id)
nccl.ncclGetErrorString.restype = ctypes.c_char_p
print("ncclGetUniqueId: " + nccl.ncclGetErrorString(rc).decode(), flush=True)
sys.exit(rc)
