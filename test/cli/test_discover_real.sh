#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# `nccl-numa discover` on real hwloc exports (CI only): ../shared/fixtures/hwloc relative to
# the repository root, read from there, never copied; skipped when absent.
# NCCL_NUMA_BIN overrides the CLI under test (default build/nccl-numa).
. "$(dirname "$0")/helpers/lib.sh"
nn_cli
fix=$root/test/fixtures/hwloc
nn_tmp
export SOURCE_DATE_EPOCH=0
unset HWLOC_XMLFILE
run() { nn_run 30 discover --no-cuda "$@"; }

# CI only: the real hwloc exports (never copied into the repository).
shared=$root/../shared/fixtures/hwloc
if [ ! -d "$shared" ]; then
  nn_skip "$shared absent (the real hwloc exports exist only in CI)"
fi
run --xml "$shared/24em64t-2n6c2t-pci.xml"
[ "$rc" -eq 0 ] && grep -qx "gpu 0 bus=0000:06:00.0 numa=0 host=0000:06:00.0" "$tmp/out" \
  && grep -qx "gpu 1 bus=0000:11:00.0 numa=1 host=0000:11:00.0" "$tmp/out" \
  && grep -qx "gpu 2 bus=0000:14:00.0 numa=1 host=0000:14:00.0" "$tmp/out" \
  && grep -qx "# no cpu line: the topology does not name the CPU vendor (the plugin falls back to /proc/cpuinfo)" "$tmp/out" \
  && echo "ok real export 24em64t" || fail "real export 24em64t: $out $err"
for f in "$shared"/*.xml; do
  run --xml "$f"
  want=$(grep -c 'pci_type="03[0-9a-f][0-9a-f] \[10de:' "$f")
  got=$(grep -c '^gpu ' "$tmp/out")
  bad=$(awk '/^numa /{n[$2]=1} /^gpu /{split($4,a,"="); if (!(a[2] in n)) print}' "$tmp/out")
  printf '%s\n' "$out" >"$tmp/real.conf"
  if [ "$rc" -ne 0 ] || [ "$got" -ne "$want" ] || [ -n "$bad" ]; then
    fail "real export $(basename "$f"): exit $rc, $got gpu lines for $want NVIDIA GPUs, lines without numa: $bad"
  elif ! timeout 30 "$cli" check-config "$tmp/real.conf" >/dev/null 2>&1; then
    fail "real export $(basename "$f"): output rejected: $("$cli" check-config "$tmp/real.conf" 2>&1 | head -3)"
  else
    echo "ok real export $(basename "$f"): $got GPUs"
  fi
done

nn_finish "all passed" failed
