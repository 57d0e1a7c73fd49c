#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Which libnccl.so.2 `explain` and `topo` read the release from (cli/predict/ncclver.c, pyenv.c,
# ncclelf.c): --nccl-lib, else the Python environment's nvidia-nccl wheel (the one torch beside it
# loads, else the first in its site-packages; the wheel's METADATA Version, else the library's
# version string), else the library search path. Nothing is run or loaded: every fake venv's
# python3 would leave a mark, and every fake libnccl.so.2 would leave one when loaded. Each case
# checks the release, the file named and that no mark was left. NCCL_NUMA_BIN overrides the CLI.
. "$(dirname "$0")/helpers/lib.sh"
nn_cli abs
command -v cc >/dev/null || nn_skip "a C compiler is needed for the fake libnccl.so.2 files"
nn_tmp
unset NCCL_NUMA_PYTHON VIRTUAL_ENV NCCL_TOPO_FILE
conf=$root/test/fixtures/topo/good.conf

fake_nccl() {   # fake_nccl DIR X.Y.Z: DIR/libnccl.so.2 with NCCL's version banner, marking when loaded
  mkdir -p "$1"
  printf '#include <stdio.h>\n__attribute__((used)) static const char v[] = "NCCL version %s+cuda13.0";\n' "$2" >"$tmp/fake.c"
  printf '__attribute__((constructor)) static void loaded(void) { fclose(fopen("%s", "w")); }\n' "$tmp/loaded" >>"$tmp/fake.c"
  cc -shared -fPIC -o "$1/libnccl.so.2" "$tmp/fake.c" || fail "cc $1"
}
# venv NAME: $tmp/NAME, a venv whose python3 marks when run; SITE is its site-packages
venv() {
  mkdir -p "$tmp/$1/bin" "$tmp/$1/lib/python3.11/site-packages"
  printf '#!/bin/sh\n: >"%s"\necho "$@"\n' "$tmp/ran" >"$tmp/$1/bin/python3" && chmod +x "$tmp/$1/bin/python3"
  printf 'home = /usr/bin\ninclude-system-site-packages = false\n' >"$tmp/$1/pyvenv.cfg"
  SITE=$tmp/$1/lib/python3.11/site-packages
}
venv v-plain; fake_nccl "$SITE/nvidia/nccl/lib" 2.28.9
venv v-torch; fake_nccl "$SITE/nvidia/nccl/lib" 2.27.3; mkdir -p "$SITE/torch" && : >"$SITE/torch/__init__.py"
mkdir -p "$SITE/nvidia_nccl_cu13-2.27.3.dist-info"
printf 'Metadata-Version: 2.1\nName: nvidia-nccl-cu13\nVersion: 2.27.3\n' >"$SITE/nvidia_nccl_cu13-2.27.3.dist-info/METADATA"
venv v-broken; mkdir -p "$SITE/nvidia/nccl/lib" && echo "not ELF" >"$SITE/nvidia/nccl/lib/libnccl.so.2"
venv v-none
fake_nccl "$tmp/ldpath" 2.26.2
fake_nccl "$tmp/given" 2.31.2
lib() { echo "$tmp/$1/lib/python3.11/site-packages/nvidia/nccl/lib/libnccl.so.2"; }

# release CMD RELEASE FROM WHY [ARGS...]: `CMD` (explain or topo) names RELEASE "from FROM", saying WHY
release() {
  local cmd=$1 rel=$2 from=$3 why=$4 text
  shift 4
  rm -f "$tmp/ran" "$tmp/loaded"
  nn_run 20 "$cmd" --config "$conf" "$@"
  [ "$cmd" = explain ] && text=$out || text=$err
  local line
  line=$(grep -m1 'release: ' <<<"$text")
  if [ "$rc" -eq 0 ] && grep -qF "release: NCCL $rel, from $from" <<<"$line" && grep -qF "$why" <<<"$line" &&
     [ ! -e "$tmp/ran" ] && [ ! -e "$tmp/loaded" ]; then
    echo "ok   $cmd: NCCL $rel from $from, nothing run or loaded"
  else
    fail "$cmd: wanted NCCL $rel from $from ($why); exit $rc, got: $line; ran: $([ -e "$tmp/ran" ] && echo yes || echo no), loaded: $([ -e "$tmp/loaded" ] && echo yes || echo no)"
  fi
}

for cmd in explain topo; do
  VIRTUAL_ENV=$tmp/v-torch release $cmd 2.27.3 \
    "the Version in $tmp/v-torch/lib/python3.11/site-packages/nvidia_nccl_cu13-2.27.3.dist-info/METADATA, the wheel of $(lib v-torch)" \
    "the Python environment of $tmp/v-torch/bin/python3: the one torch beside it loads"
  VIRTUAL_ENV=$tmp/v-plain LD_LIBRARY_PATH=$tmp/ldpath release $cmd 2.28.9 "the version string in $(lib v-plain)" \
    "the nvidia-nccl wheel first on its sys.path"
  VIRTUAL_ENV=$tmp/v-plain release $cmd 2.31.2 "the version string in $tmp/given/libnccl.so.2" "" \
    --nccl-lib "$tmp/given/libnccl.so.2"
  VIRTUAL_ENV=$tmp/v-none LD_LIBRARY_PATH=$tmp/ldpath release $cmd 2.26.2 "the version string in $tmp/ldpath/libnccl.so.2" \
    "the library search path; no nvidia/nccl/lib/libnccl.so.2 in the site-packages of $tmp/v-none/bin/python3"
done

# NCCL_NUMA_PYTHON names the interpreter (over VIRTUAL_ENV); set empty, no environment is looked at
NCCL_NUMA_PYTHON=$tmp/v-plain/bin/python3 VIRTUAL_ENV=$tmp/v-torch release explain 2.28.9 \
  "the version string in $(lib v-plain)" "the Python environment of $tmp/v-plain/bin/python3"
NCCL_NUMA_PYTHON='' VIRTUAL_ENV=$tmp/v-torch LD_LIBRARY_PATH=$tmp/ldpath release explain 2.26.2 \
  "the version string in $tmp/ldpath/libnccl.so.2" "NCCL_NUMA_PYTHON is empty: no Python environment looked at"
# the venv first on PATH, as the job's `python3` would be
PATH=$tmp/v-plain/bin:$PATH release explain 2.28.9 "the version string in $(lib v-plain)" "the Python environment of python3"

# a wheel's library whose release cannot be read is reported, not passed over for the library path
VIRTUAL_ENV=$tmp/v-broken LD_LIBRARY_PATH=$tmp/ldpath nn_run 20 explain --config "$conf"
grep 'release: ' <<<"$out" | grep -qF "from $(lib v-broken): not an ELF64 file" \
  && echo "ok   a broken wheel library is reported" || fail "broken wheel library: $(grep 'release: ' <<<"$out")"

# the real library, where NCCL is installed: its banner read as data gives the release it reports
real=$(ls /usr/local/cuda/lib/libnccl.so.2 /usr/lib/x86_64-linux-gnu/libnccl.so.2 2>/dev/null | head -n1)
if [ -n "$real" ] && command -v python3 >/dev/null; then
  want=$(python3 -c 'import ctypes, sys; v = ctypes.c_int(); ctypes.CDLL(sys.argv[1]).ncclGetVersion(ctypes.byref(v)); print(f"{v.value // 10000}.{v.value // 100 % 100}.{v.value % 100}")' "$real")
  release explain "$want" "the version string in $real" "" --nccl-lib "$real"
else
  echo "note: no real libnccl.so.2 here: its version string was not compared with ncclGetVersion"
fi

# a real interpreter: a venv made by python3 -m venv, its purelib holding the wheel
if python3 -m venv --without-pip "$tmp/real" 2>/dev/null; then
  purelib=$("$tmp/real/bin/python3" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  fake_nccl "$purelib/nvidia/nccl/lib" 2.28.9
  VIRTUAL_ENV=$tmp/real release explain 2.28.9 "the version string in $purelib/nvidia/nccl/lib/libnccl.so.2" \
    "the Python environment of $tmp/real/bin/python3: the nvidia-nccl wheel first on its sys.path"
else
  echo "note: python3 -m venv unavailable: the real-interpreter case was not run"
fi
nn_finish "passed: --nccl-lib, then the Python environment (torch's, then sys.path order), then the library path; nothing run or loaded"
