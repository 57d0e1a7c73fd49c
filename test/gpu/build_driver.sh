#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Builds nn_coll_driver against the CUDA runtime and NCCL found here (no GPU needed) and
# checks that it runs: --help, and --devices answering (0 devices is fine without a GPU).
# Skipped (77) when no CUDA runtime or NCCL headers and libraries are found.
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
vars=$(bash test/gpu/find_cuda.sh) || { echo "$vars"; exit 77; }
# shellcheck disable=SC2086
make -s BUILD="$BUILD" $vars "$BUILD/tools/nn_coll_driver" || { echo "FAIL: build with $vars"; exit 1; }
d=$BUILD/tools/nn_coll_driver
"$d" --help | grep -q 'ranks-per-gpu' || { echo "FAIL: --help"; exit 1; }
"$d" --bogus >/dev/null 2>&1; [ $? -eq 2 ] || { echo "FAIL: a bad option is not a usage error"; exit 1; }
out=$("$d" --devices); rc=$?
echo "$out"
case $rc in 0|3) ;; *) echo "FAIL: --devices exit $rc"; exit 1 ;; esac
grep -q '^devices [0-9]' <<<"$out" || { echo "FAIL: --devices printed no count"; exit 1; }
if [ $rc -eq 3 ]; then
  # No GPU: a rank that cannot start must end the run, not leave the others waiting in NCCL.
  tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
  TMPDIR=$tmp timeout 60 "$d" --ranks-per-gpu 2 -e 64K > "$tmp/threads.out" 2>&1
  r=$?
  [ $r -eq 1 ] && grep -q 'stopping every rank' "$tmp/threads.out" ||
    { echo "FAIL: threads without a GPU: exit $r"; cat "$tmp/threads.out"; exit 1; }
  TMPDIR=$tmp timeout 60 "$d" --procs --hostid-per-rank --ranks-per-gpu 2 -e 64K > "$tmp/procs.out" 2>&1
  r=$?
  [ $r -eq 1 ] || { echo "FAIL: --procs without a GPU: exit $r"; cat "$tmp/procs.out"; exit 1; }
  ! compgen -G "$tmp/nn_coll_driver.*" >/dev/null || { echo "FAIL: --procs left its id directory"; exit 1; }
  echo "no GPU: threads and --procs runs end with exit 1 and clean up"
fi
echo "passed: nn_coll_driver built with $(echo $vars) and runs"
