# SPDX-License-Identifier: BSD-3-Clause
# Sourced by test_p2p.sh and test_p2p_faults.sh after lib.sh: the stand-in driver
# (build/tools/libnn-fakecuda.so, test/p2p/fakecuda.c) as the CUDA and NVML library, no
# running driver, and p2p/has/row.
nn_cli abs
FAKE=$build_dir/tools/libnn-fakecuda.so
nn_need_built "$FAKE"
nn_tmp "$1"
unset NCCL_NUMA_CONFIG NN_FAKECUDA NN_FAKECUDA_BAD NN_FAKECUDA_GPUS NN_FAKECUDA_TAG NCCL_NUMA_ALLOW_UNTRUSTED
export NCCL_NUMA_CUDA_LIB=$FAKE NCCL_NUMA_NVML_LIB=$FAKE
# the running driver's /proc/driver/nvidia/version is read under this root: none there, so
# driver= is NVML's (the stand-in's 580.95.05) whatever driver this machine has
export NCCL_NUMA_DRIVER_ROOT=$tmp/no-driver
today=$(date -u +%Y-%m-%d)
p2p() { nn_run 120 p2p --ring 1 "$@"; }   # p2p ARGS...: $rc, $out, $err (all GPUs at once for 1 s)
has() { grep -qE -- "$1" "$tmp/out"; }
row() { grep -E "^$1 " "$tmp/out"; }   # row 0-\>1: that pair's row

