#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Finds the CUDA runtime and NCCL to build nn_coll_driver against and prints them as
# make variables (NCCL_INC= NCCL_LIB= CUDART_INC= CUDART_LIB= CUDART_SO=, one a line).
# NCCL: $NCCL_HOME, python3's nvidia-nccl wheel (site-packages/nvidia/nccl), $CUDA_HOME,
# Debian's libnccl-dev. CUDA runtime: $CUDA_HOME, python3's nvidia-cuda-runtime wheel.
# Without one of them: "skipped: <reason>" and exit 77.
#   find_cuda.sh --runtime   the libraries alone (what a prebuilt driver needs to run):
#                            NCCL_LIB= (libnccl.so.2) and CUDART_LIB= (libcudart.so.*, may be
#                            empty), also from the loader's cache; exit 77 without libnccl.so.2.
# NN_GPU_SYSLIBS (the bundle's rehearsal): the cache is not read, as on a machine without.
set -u
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}

wheel_dir() {   # wheel_dir MODULE: the directory of a python namespace package, or nothing
  command -v python3 >/dev/null || return 0
  python3 - "$1" 2>/dev/null <<'PY'
import importlib.util, sys
try:
    spec = importlib.util.find_spec(sys.argv[1])
except Exception:
    spec = None
if spec and spec.submodule_search_locations:
    print(list(spec.submodule_search_locations)[0])
PY
}

cached_dir() {   # cached_dir SONAME: the directory the loader's cache has it in, or nothing
  [ -z "${NN_GPU_SYSLIBS+set}" ] || return 0
  { command -v ldconfig >/dev/null && ldconfig -p || /sbin/ldconfig -p; } 2>/dev/null | awk -v so="$1" '$1 == so {sub(/\/[^\/]*$/, "", $NF); print $NF; exit}'
}
lib_dirs() {   # lib_dirs DIR: where a prefix keeps its libraries
  printf '%s\n' "$1/lib" "$1/lib64" "$1/lib/x86_64-linux-gnu" "$1/lib/aarch64-linux-gnu"
}
if [ "${1:-}" = --runtime ]; then
  nccl_lib='' cudart_lib=''
  for d in ${NCCL_HOME:+"$NCCL_HOME"} "$(wheel_dir nvidia.nccl)" "$CUDA_HOME"; do
    [ -n "$d" ] || continue
    for l in $(lib_dirs "$d"); do [ -e "$l/libnccl.so.2" ] && { nccl_lib=$l; break 2; }; done
  done
  [ -n "$nccl_lib" ] || nccl_lib=$(cached_dir libnccl.so.2)
  [ -n "$nccl_lib" ] || { echo "skipped: no NCCL: no libnccl.so.2 (NCCL_HOME, python3's nvidia-nccl wheel, $CUDA_HOME, the loader's cache)"; exit 77; }
  for d in "$CUDA_HOME" "$(wheel_dir nvidia.cuda_runtime)" "$(wheel_dir nvidia.cu13)"; do
    [ -n "$d" ] || continue
    for l in $(lib_dirs "$d"); do compgen -G "$l/libcudart.so.*" >/dev/null && { cudart_lib=$l; break 2; }; done
  done
  [ -n "$cudart_lib" ] || cudart_lib=$(cached_dir "${CUDART_SONAME:-libcudart.so.13}")
  echo "NCCL_LIB=$nccl_lib"
  echo "CUDART_LIB=$cudart_lib"
  exit 0
fi

nccl_inc='' nccl_lib=''
for d in ${NCCL_HOME:+"$NCCL_HOME"} "$(wheel_dir nvidia.nccl)" "$CUDA_HOME" /usr; do
  [ -n "$d" ] && [ -e "$d/include/nccl.h" ] || continue
  for l in "$d/lib" "$d/lib64" "$d/lib/x86_64-linux-gnu" "$d/lib/aarch64-linux-gnu"; do
    if [ -e "$l/libnccl.so.2" ]; then nccl_inc=$d/include nccl_lib=$l; break 2; fi
  done
done
[ -n "$nccl_inc" ] || { echo "skipped: no nccl.h + libnccl.so.2 (NCCL_HOME, python3 nvidia-nccl wheel, $CUDA_HOME, /usr)"; exit 77; }

cudart_inc='' cudart_lib='' cudart_so=''
for d in "$CUDA_HOME" "$(wheel_dir nvidia.cuda_runtime)" "$(wheel_dir nvidia.cu13)"; do
  [ -n "$d" ] && [ -e "$d/include/cuda_runtime_api.h" ] || continue
  for l in "$d/lib64" "$d/lib" "$d/lib/x86_64-linux-gnu"; do
    so=$(cd "$l" 2>/dev/null && ls libcudart.so libcudart.so.[0-9]* 2>/dev/null | head -n1)
    if [ -n "$so" ]; then cudart_inc=$d/include cudart_lib=$l cudart_so=-l:$so; break 2; fi
  done
done
[ -n "$cudart_inc" ] || { echo "skipped: no CUDA runtime (cuda_runtime_api.h + libcudart) under $CUDA_HOME or python3's nvidia wheels"; exit 77; }
echo "NCCL_INC=$nccl_inc"
echo "NCCL_LIB=$nccl_lib"
echo "CUDART_INC=$cudart_inc"
echo "CUDART_LIB=$cudart_lib"
echo "CUDART_SO=$cudart_so"
