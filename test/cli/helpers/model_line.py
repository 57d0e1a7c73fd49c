#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A mapping's `model pci-latency-us` line under a given NCCL release: calls the built plugin's
env plugin v2 init with the release (as NCCL does first), then its tuner v5 init with a zeroed
constants block; prints hwLatencies[PCI][Ring][LL] as the tuner left it. NCCL_DEBUG=WARN shows
the plugin's warning. usage: model_line.py PLUGIN.so X.Y.Z"""
import ctypes
import sys

so, version = sys.argv[1], [int(x) for x in sys.argv[2].split(".")]
lib = ctypes.CDLL(so)
ptr = ctypes.sizeof(ctypes.c_void_p)
env = ctypes.addressof(ctypes.c_char.in_dll(lib, "ncclEnvPlugin_v2"))
u8 = ctypes.c_uint8
env_init = ctypes.CFUNCTYPE(ctypes.c_int, u8, u8, u8, ctypes.c_char_p, ctypes.c_void_p)(
    ctypes.c_void_p.from_address(env + ptr).value)
if env_init(version[0], version[1], version[2], b"", None) != 0:
    sys.exit("env init failed")
tuner = ctypes.addressof(ctypes.c_char.in_dll(lib, "ncclTunerPlugin_v5"))
init = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_void_p), ctypes.c_uint64, ctypes.c_size_t,
                        ctypes.c_size_t, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)(
    ctypes.c_void_p.from_address(tuner + ptr).value)
# ncclTunerConstants_v5_t begins with baseLatencies[7][3] then hwLatencies[3][7][3] (doubles):
# PCI is link 1, Ring algorithm 1, LL protocol 0
consts = (ctypes.c_double * 4096)()
ctx = ctypes.c_void_p()
if init(ctypes.byref(ctx), 1, 8, 1, None, None, consts) != 0:
    sys.exit("tuner init failed")
print("%.2f" % consts[7 * 3 + 1 * 7 * 3 + 1 * 3 + 0])
