#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Calls the built plugin's env plugin as NCCL does: init with a release, then
getEnv("NCCL_TOPO_FILE"); prints "none", or "served N" with the number of <cpu> elements of
the file served (read in this process: the path may be one of its /proc/self/fd entries). The environment gives
NCCL_NUMA_CONFIG and XDG_RUNTIME_DIR.
usage: env_verdict.py PLUGIN.so v1|v2 X.Y.Z [show]   (show: print the served file after)"""
import ctypes
import sys

so, abi, version = sys.argv[1], sys.argv[2], [int(x) for x in sys.argv[3].split(".")]
lib = ctypes.CDLL(so)
plugin = ctypes.addressof(ctypes.c_char.in_dll(lib, "ncclEnvPlugin_" + abi))
ptr = ctypes.sizeof(ctypes.c_void_p)
u8 = ctypes.c_uint8
# ncclEnv_v1_t / _v2_t: const char *name; init(major, minor, patch, suffix[, logger]); finalize; getEnv
if abi == "v2":
    init_t = ctypes.CFUNCTYPE(ctypes.c_int, u8, u8, u8, ctypes.c_char_p, ctypes.c_void_p)
else:
    init_t = ctypes.CFUNCTYPE(ctypes.c_int, u8, u8, u8, ctypes.c_char_p)
get_t = ctypes.CFUNCTYPE(ctypes.c_char_p, ctypes.c_char_p)
init = init_t(ctypes.c_void_p.from_address(plugin + ptr).value)
get_env = get_t(ctypes.c_void_p.from_address(plugin + 3 * ptr).value)
args = (version[0], version[1], version[2], b"")
rc = init(*args, None) if abi == "v2" else init(*args)
if rc != 0:
    sys.exit("init returned %d" % rc)
value = get_env(b"NCCL_TOPO_FILE")
if not value:
    print("none")
else:
    with open(value.decode()) as f:
        xml = f.read()
    print("served %d" % xml.count("<cpu "))
    if sys.argv[4:] == ["show"]:
        print(xml, end="")
