#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Every .ptx file of the tree (the kernels `nccl-numa p2p` embeds) assembles with ptxas for
# sm_90 (Hopper) and sm_120 (Blackwell), and holds the kernels the command asks for by name.
# Skipped where no ptxas is found (PATH, $CUDA_HOME/bin, /usr/local/cuda/bin).
. "$(dirname "$0")/helpers/lib.sh"
cd "$root" || exit 1
nn_tmp nn-ptx
ptxas=$(command -v ptxas || true)
for d in "${CUDA_HOME:-}" /usr/local/cuda; do
  [ -n "$ptxas" ] || { [ -n "$d" ] && [ -x "$d/bin/ptxas" ] && ptxas=$d/bin/ptxas; }
done
files=$(git ls-files -co --exclude-standard -- '*.ptx' 2>/dev/null || find . -name '*.ptx' -not -path './build/*')
check "the tree has PTX files (cli/p2p/p2p_kernels.ptx among them)" "grep -qx 'cli/p2p/p2p_kernels.ptx' <<<'$files'"
for k in nn_p2p_fill nn_p2p_verify nn_p2p_pingpong; do
  check "p2p_kernels.ptx has .entry $k (the name p2ptest.h asks for)" "grep -q '^.visible .entry $k(' cli/p2p/p2p_kernels.ptx && grep -q '\"$k\"' cli/p2p/p2ptest.h"
done
if [ -z "$ptxas" ]; then
  [ "$fails" -eq 0 ] || nn_finish "unused"
  nn_skip "no ptxas (PATH, CUDA_HOME/bin, /usr/local/cuda/bin): the PTX files were not assembled"
fi
for f in $files; do
  for arch in sm_90 sm_120; do
    if "$ptxas" -arch="$arch" -o "$tmp/out.cubin" "$f" > "$tmp/log" 2>&1 && [ -s "$tmp/out.cubin" ]; then
      echo "ok   $f assembles for $arch"
    else
      fail "$f does not assemble for $arch: $(head -n 3 "$tmp/log")"
    fi
    rm -f "$tmp/out.cubin"
  done
done
nn_finish "test_p2p_ptx: all passed ($("$ptxas" --version | tail -n 1))"
