#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The real-NCCL smoke tool (build/tools/nccl_smoke, test/nccl/run_smoke.sh) is rebuilt when
# CUDA_HOME names another NCCL, or the same path holds another release (its settings stamp, as
# the GPU driver's): pointed at another NCCL it must not test the old one. In a build directory
# of its own; a second CUDA_HOME is the first one's NCCL with another release number in nccl.h.
. "$(dirname "$0")/helpers/lib.sh"
nn_build_cli
cuda=${CUDA_HOME:-/usr/local/cuda}
lib=$(ls "$cuda"/lib64/libnccl.so.2 "$cuda"/lib/libnccl.so.2 2>/dev/null | head -n1)
[ -n "$lib" ] && [ -e "$cuda/include/nccl.h" ] || nn_skip "no libnccl.so.2 / nccl.h under $cuda"
nn_tmp nn-smoke-rebuild
B=$tmp/build
tool=$B/tools/nccl_smoke
mkdir -p "$tmp/other/include" "$tmp/other/lib64"
sed 's/^#define NCCL_PATCH .*/#define NCCL_PATCH 99/' "$cuda/include/nccl.h" >"$tmp/other/include/nccl.h"
ln -s "$lib" "$tmp/other/lib64/libnccl.so.2"
make -s BUILD="$B" CUDA_HOME="$cuda" "$tool" >/dev/null 2>&1 || fail "cannot build $tool"
first=$(stat -c %Y.%s "$tool"); sleep 1
make -s BUILD="$B" CUDA_HOME="$cuda" "$tool" >/dev/null 2>&1
check "same CUDA_HOME: not rebuilt" "[ \"\$(stat -c %Y.%s '$tool')\" = '$first' ]"
make -s BUILD="$B" CUDA_HOME="$tmp/other" "$tool" >/dev/null 2>&1 || fail "cannot build against $tmp/other"
check "another CUDA_HOME: rebuilt" "[ \"\$(stat -c %Y.%s '$tool')\" != '$first' ]"
check "the stamp names it and its release" "grep -q '$tmp/other' '$tool.settings' && grep -q 'NCCL_PATCH 99' '$tool.settings'"
second=$(stat -c %Y.%s "$tool"); sleep 1
sed -i 's/^#define NCCL_PATCH .*/#define NCCL_PATCH 98/' "$tmp/other/include/nccl.h"
make -s BUILD="$B" CUDA_HOME="$tmp/other" "$tool" >/dev/null 2>&1
check "same path, another release: rebuilt" "[ \"\$(stat -c %Y.%s '$tool')\" != '$second' ]"
nn_finish "nccl_smoke is rebuilt for each NCCL it is pointed at"
