#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Builds nccl-tests at a pinned release tag, against the NCCL the image already
# has (the pip wheel PyTorch loads; else /usr/local/cuda or the system's libnccl),
# so `nccl-numa ab` measures the NCCL that SGLang runs. Two forms: DEST/build
# (MPI=0: one process drives -g GPUs) and DEST/build-mpi (MPI=1 with Open MPI at
# MPI_HOME: one rank per GPU, across nodes with `nccl-numa ab --launcher`).
# SRC: empty = clone TAG; `none` = leave nccl-tests out (DEST gets only a note saying so);
# else a directory holding nccl-tests' source, built instead of a clone.
# usage: docker/build-nccl-tests.sh TAG DEST [SRC]
set -euo pipefail
TAG=${1:?usage: build-nccl-tests.sh TAG DEST [SRC]}
DEST=${2:?usage: build-nccl-tests.sh TAG DEST [SRC]}
SRC=${3:-}
if [ "$SRC" = none ]; then
  mkdir -p "$DEST"
  echo "nccl-tests were left out of this image (NCCL_TESTS_SRC=none)" >"$DEST/NOT-BUILT"
  echo "build-nccl-tests: left out (NCCL_TESTS_SRC=none)"
  exit 0
fi
if [ -n "$SRC" ] && [ ! -f "$SRC/src/all_reduce.cu" ]; then
  echo "build-nccl-tests: $SRC does not hold nccl-tests' source (no src/all_reduce.cu)" >&2
  exit 1
fi
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
# CUDA 13 builds sm_75 and newer only; PCIe data-centre and workstation GPUs from Ampere on.
NVCC_GENCODE=${NVCC_GENCODE:--gencode=arch=compute_75,code=sm_75 -gencode=arch=compute_80,code=sm_80 -gencode=arch=compute_86,code=sm_86 -gencode=arch=compute_89,code=sm_89 -gencode=arch=compute_90,code=sm_90 -gencode=arch=compute_100,code=sm_100 -gencode=arch=compute_120,code=sm_120 -gencode=arch=compute_120,code=compute_120}

nccl_home() {
  local d
  d=$(python3 -c 'import nvidia.nccl as m; print(list(m.__path__)[0])' 2>/dev/null || true)
  if [ -n "$d" ] && [ -f "$d/include/nccl.h" ] && [ -d "$d/lib" ]; then echo "$d"; return; fi
  for d in "$CUDA_HOME" /usr; do
    if [ -f "$d/include/nccl.h" ]; then echo "$d"; return; fi
  done
  echo "build-nccl-tests: no NCCL headers found (pip wheel nvidia-nccl, $CUDA_HOME, /usr)" >&2
  exit 1
}
NCCL_HOME=$(nccl_home)
# A wheel ships lib/libnccl.so.2 only: link through a private NCCL_HOME that adds the
# unversioned name, and record the real directory as rpath so the binaries find it.
REAL=
for f in "$NCCL_HOME"/lib/libnccl.so.2* "$NCCL_HOME"/lib64/libnccl.so.2* "$NCCL_HOME"/lib/x86_64-linux-gnu/libnccl.so.2*; do
  [ -f "$f" ] && { REAL=$f; break; }
done
[ -n "$REAL" ] || { echo "build-nccl-tests: no libnccl.so.2 under $NCCL_HOME" >&2; exit 1; }
LINK=$(mktemp -d)
mkdir -p "$LINK/lib"
ln -s "$NCCL_HOME/include" "$LINK/include"
ln -s "$REAL" "$LINK/lib/libnccl.so"
if [ -n "$SRC" ]; then
  mkdir -p "$DEST" && cp -a "$SRC"/. "$DEST"/
else
  git clone --depth 1 --branch "$TAG" "${NCCL_TESTS_REPO:-https://github.com/NVIDIA/nccl-tests.git}" "$DEST"
fi
MPI_HOME=${MPI_HOME:-/usr/lib/$(gcc -print-multiarch)/openmpi}
[ -f "$MPI_HOME/include/mpi.h" ] || { echo "build-nccl-tests: no mpi.h under MPI_HOME=$MPI_HOME (libopenmpi-dev)" >&2; exit 1; }
for mpi in 0 1; do
  dir=$DEST/build; [ $mpi = 0 ] || dir=$DEST/build-mpi
  NVCC_APPEND_FLAGS="-Xlinker -rpath=$(dirname "$REAL")" \
    make -C "$DEST" -j"$(nproc)" MPI=$mpi MPI_HOME="$MPI_HOME" BUILDDIR="$dir" CUDA_HOME="$CUDA_HOME" \
      NCCL_HOME="$LINK" NVCC_GENCODE="$NVCC_GENCODE"
  # no GPU at build time: only check that it links NCCL (and MPI for the MPI form)
  ldd "$dir/all_reduce_perf" | grep -q 'libnccl.so.2 => /' || { echo "build-nccl-tests: libnccl not resolved in $dir" >&2; exit 1; }
  [ $mpi = 0 ] || ldd "$dir/all_reduce_perf" | grep -q 'libmpi.so' || { echo "build-nccl-tests: $dir is not linked with MPI" >&2; exit 1; }
done
echo "build-nccl-tests: ${SRC:-$TAG} built in $DEST/build and $DEST/build-mpi against $NCCL_HOME"
