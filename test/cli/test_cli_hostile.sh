#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# explain, check and topo as root against what another user (uid 65534) controls. Each attack
# was reproduced on the code before: a venv of that user's had its python3 run (and its
# libnccl.so.2 loaded) by commands that look read-only; `topo -o PATH` opened the predictable
# PATH.tmp.<pid>, so a planted FIFO hung it and a planted hard link overwrote root's file; an
# OSC 52 sequence in CUDA_VISIBLE_DEVICES or in cpuinfo's vendor_id reached the terminal.
. "$(dirname "$0")/helpers/lib.sh"
nn_cli abs
nn_need_nobody
nn_tmp nn-cli-hostile
chmod 0755 "$tmp"
T=$tmp
conf=$root/test/fixtures/topo/good.conf
unset NCCL_NUMA_PYTHON VIRTUAL_ENV NCCL_TOPO_FILE

# --- 1. a venv uid 65534 owns: its python3 and libnccl.so.2 leave a mark when run or loaded
mkdir "$T/venv" && chown 65534:65534 "$T/venv"
site=$T/venv/lib/python3.11/site-packages
nobody mkdir -p "$T/venv/bin" "$site/nvidia/nccl/lib" "$site/nvidia_nccl_cu13-2.27.3.dist-info"
nobody sh -c "printf '#!/bin/sh\n: >\"$T/ran\"\necho $site\n' >'$T/venv/bin/python3' && chmod 0755 '$T/venv/bin/python3'"
nobody sh -c "printf 'home = /usr/bin\ninclude-system-site-packages = false\n' >'$T/venv/pyvenv.cfg'"
nobody sh -c "printf 'Name: nvidia-nccl-cu13\nVersion: 2.27.3\n' >'$site/nvidia_nccl_cu13-2.27.3.dist-info/METADATA'"
if command -v cc >/dev/null; then
  printf '#include <stdio.h>\n__attribute__((constructor)) static void loaded(void) { fclose(fopen("%s", "w")); }\n' \
    "$T/loaded" >"$T/evil.c"
  printf 'int ncclGetVersion(int *v) { *v = 23102; return 0; }\n' >>"$T/evil.c"
  cc -shared -fPIC -o "$T/evil.so" "$T/evil.c" && nobody cp "$T/evil.so" "$site/nvidia/nccl/lib/libnccl.so.2"
else
  nobody sh -c ": >'$site/nvidia/nccl/lib/libnccl.so.2'"
fi
check "the venv is uid 65534's" "[ \$(stat -c %u '$T/venv/bin/python3' '$site/nvidia/nccl/lib/libnccl.so.2' | sort -u) = 65534 ]"
for cmd in explain check topo; do
  rm -f "$T/ran" "$T/loaded"
  VIRTUAL_ENV=$T/venv nn_run 30 "$cmd" --config "$conf"
  check "$cmd: the venv's python3 never ran, its library never loaded" "[ ! -e '$T/ran' ] && [ ! -e '$T/loaded' ]"
  check "$cmd: NCCL 2.27.3 from the wheel's METADATA" \
    "grep -qF 'release: NCCL 2.27.3, from the Version in $site/nvidia_nccl_cu13-2.27.3.dist-info/METADATA' '$T/out' '$T/err'"
done
# the same through NCCL_NUMA_PYTHON naming that interpreter
rm -f "$T/ran" "$T/loaded"
NCCL_NUMA_PYTHON=$T/venv/bin/python3 nn_run 30 explain --config "$conf"
check "NCCL_NUMA_PYTHON=their python3: never run, release from METADATA" \
  "[ ! -e '$T/ran' ] && [ ! -e '$T/loaded' ] && grep -qF 'release: NCCL 2.27.3, from the Version in' '$T/out'"

# --- 2. topo -o in a sticky directory (as /tmp) where uid 65534 plants what the old name was:
# PATH.tmp.<pid> as a FIFO (hang), as a hard link to root's file (overwrite), as their own file.
mkdir "$T/sticky" && chmod 1777 "$T/sticky"
echo "root's own file" >"$T/rootfile"
xml=$T/sticky/topo.xml
plant_and_run() {   # plant_and_run KIND: plants $xml.tmp.<pid of the next topo> as KIND, then runs topo -o
  export -f nobody
  timeout 20 bash -c '
    kind=$1 out=$2 rootfile=$3; shift 3
    name=$out.tmp.$$
    case $kind in
      fifo) nobody mkfifo "$name" ;;
      hardlink) ln "$rootfile" "$name" ;;   # what a user can do where fs.protected_hardlinks is off
      file) nobody sh -c ": >\"$name\"; chmod 666 \"$name\"" ;;
    esac
    exec "$@"' _ "$1" "$xml" "$T/rootfile" "$cli" topo --config "$conf" -o "$xml" >"$T/out" 2>"$T/err"
  rc=$?
}
for kind in fifo hardlink file; do
  rm -f "$xml" "$xml".tmp.*
  plant_and_run $kind
  planted=$(ls "$xml".tmp.* 2>/dev/null)
  check "topo -o with a planted $kind at the old temporary name: done (exit 0), no hang" "[ $rc -eq 0 ]"
  check "... the planted $kind is there, untouched, and was not used" \
    "[ -n '$planted' ] && [ -e '$planted' ] && [ \$(ls '$T/sticky' | grep -c '^topo\.xml\.') -eq 1 ]"
  check "... the output is root's regular file, and root's other file unchanged" \
    "[ -f '$xml' ] && [ ! -L '$xml' ] && [ \$(stat -c %u '$xml') -eq 0 ] && grep -q '<system' '$xml' && [ \"\$(cat '$T/rootfile')\" = \"root's own file\" ]"
done
# a link planted at the output name itself is replaced, never written through
rm -f "$xml" "$xml".tmp.*
nobody ln -s "$T/rootfile" "$xml"
nn_run 20 topo --config "$conf" -o "$xml"
check "topo -o over a planted link: the link replaced, its target unchanged" \
  "[ $rc -eq 0 ] && [ -f '$xml' ] && [ ! -L '$xml' ] && [ \"\$(cat '$T/rootfile')\" = \"root's own file\" ]"

# --- 3. an OSC 52 sequence (writes the terminal's clipboard) in CUDA_VISIBLE_DEVICES and in
# cpuinfo's vendor_id: printed escaped by explain, check and topo, on stdout and stderr
osc=$'\e]52;c;cHduZWQ=\a'
sed "s/^vendor_id.*/vendor_id\t: Auth${osc}/" "$root/test/fixtures/cpuinfo/intel-emerald-rapids" >"$T/cpuinfo"
check "the cpuinfo file holds the raw sequence" "grep -q \$'\\x1b' '$T/cpuinfo'"
grep -v '^cpu' "$conf" >"$T/nocpu.conf"   # the CPU kind then comes from cpuinfo
for cmd in explain check topo; do
  NCCL_NUMA_CPUINFO=$T/cpuinfo CUDA_VISIBLE_DEVICES="0,${osc}1" nn_run 30 "$cmd" --config "$T/nocpu.conf" --nccl-version 2.28.9
  check "$cmd: no raw ESC or BEL byte printed" "! grep -q \$'[\\x1b\\x07]' '$T/out' '$T/err'"
  check "$cmd: the vendor shown escaped" "grep -qF \"CPU vendor 'Auth\\x1b]52;c;\" '$T/out' '$T/err'"
  [ $cmd = topo ] ||
    check "$cmd: CUDA_VISIBLE_DEVICES shown escaped" "grep -qF 'CUDA_VISIBLE_DEVICES=0,\\x1b]52;c;cHduZWQ=\\x071' '$T/out' '$T/err'"
done

nn_finish "explain, check and topo: nothing of another user's run, loaded or written through; no raw escapes"
