#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Which libnccl.so.2 `explain` and `topo` read the release from (cli/ncclver.c, cli/predict/pyenv.c):
# --nccl-lib, else the Python environment's nvidia-nccl wheel (the one torch beside it loads,
# else the first on sys.path), else the library search path. Fake site-packages trees, each
# with a fake libnccl.so.2 of its own release, and fake and real interpreters; every case
# checks the release and the file named. NCCL_NUMA_BIN overrides the CLI under test.
. "$(dirname "$0")/helpers/lib.sh"
nn_cli abs
command -v cc >/dev/null || nn_skip "a C compiler is needed for the fake libnccl.so.2 files"
nn_tmp
unset NCCL_NUMA_PYTHON VIRTUAL_ENV NCCL_TOPO_FILE
conf=$root/test/fixtures/topo/good.conf

fake_nccl() {   # fake_nccl DIR CODE: DIR/libnccl.so.2 answering ncclGetVersion with CODE
  mkdir -p "$1"
  printf 'int ncclGetVersion(int *v) { *v = %s; return 0; }\n' "$2" >"$tmp/fake.c"
  cc -shared -fPIC -o "$1/libnccl.so.2" "$tmp/fake.c" || fail "cc $1"
}
fake_nccl "$tmp/site-plain/nvidia/nccl/lib" 22809
fake_nccl "$tmp/site-torch/nvidia/nccl/lib" 22703
mkdir -p "$tmp/site-torch/torch" && : >"$tmp/site-torch/torch/__init__.py"
fake_nccl "$tmp/ldpath" 22602
mkdir -p "$tmp/site-broken/nvidia/nccl/lib" && echo "not ELF" >"$tmp/site-broken/nvidia/nccl/lib/libnccl.so.2"

venv() {   # venv SITE...: $tmp/venv/bin/python3 printing this sys.path
  mkdir -p "$tmp/venv/bin"
  { echo '#!/bin/sh'; echo "echo ''"; for s in "$@"; do echo "echo '$tmp/$s'"; done; } >"$tmp/venv/bin/python3"
  chmod +x "$tmp/venv/bin/python3"
}

# release CMD RELEASE FILE WHY [ARGS...]: `CMD` (explain or topo) names RELEASE read from FILE, saying WHY
release() {
  local cmd=$1 rel=$2 file=$3 why=$4 text
  shift 4
  nn_run 20 "$cmd" --config "$conf" "$@"
  [ "$cmd" = explain ] && text=$out || text=$err
  local line
  line=$(grep -m1 'release: ' <<<"$text")
  if [ "$rc" -eq 0 ] && grep -qF "release: NCCL $rel, from ncclGetVersion of $file" <<<"$line" &&
     grep -qF "$why" <<<"$line"; then
    echo "ok   $cmd: NCCL $rel from $file"
  else
    fail "$cmd: wanted NCCL $rel from $file ($why); exit $rc, got: $line"
  fi
}

fake_nccl "$tmp/given" 23102
for cmd in explain topo; do
  venv site-plain site-torch
  VIRTUAL_ENV=$tmp/venv release $cmd 2.27.3 "$tmp/site-torch/nvidia/nccl/lib/libnccl.so.2" \
    "the Python environment of $tmp/venv/bin/python3: the one torch beside it loads"
  venv site-plain
  VIRTUAL_ENV=$tmp/venv LD_LIBRARY_PATH=$tmp/ldpath release $cmd 2.28.9 \
    "$tmp/site-plain/nvidia/nccl/lib/libnccl.so.2" "the nvidia-nccl wheel first on its sys.path"
  VIRTUAL_ENV=$tmp/venv release $cmd 2.31.2 "$tmp/given/libnccl.so.2" "" --nccl-lib "$tmp/given/libnccl.so.2"
  venv
  VIRTUAL_ENV=$tmp/venv LD_LIBRARY_PATH=$tmp/ldpath release $cmd 2.26.2 "$tmp/ldpath/libnccl.so.2" \
    "the library search path; no nvidia/nccl/lib/libnccl.so.2 on the sys.path of $tmp/venv/bin/python3"
done

# NCCL_NUMA_PYTHON names the interpreter (over VIRTUAL_ENV); set empty, no Python is asked
venv site-torch
printf '#!/bin/sh\necho %s/site-plain\n' "$tmp" >"$tmp/other-python" && chmod +x "$tmp/other-python"
NCCL_NUMA_PYTHON=$tmp/other-python VIRTUAL_ENV=$tmp/venv release explain 2.28.9 \
  "$tmp/site-plain/nvidia/nccl/lib/libnccl.so.2" "the Python environment of $tmp/other-python"
NCCL_NUMA_PYTHON='' VIRTUAL_ENV=$tmp/venv LD_LIBRARY_PATH=$tmp/ldpath release explain 2.26.2 \
  "$tmp/ldpath/libnccl.so.2" "NCCL_NUMA_PYTHON is empty: no Python asked"

# a wheel's library that does not load is reported, not passed over for the library path
venv site-broken
VIRTUAL_ENV=$tmp/venv LD_LIBRARY_PATH=$tmp/ldpath nn_run 20 explain --config "$conf"
grep 'release: ' <<<"$out" | grep -qF "from $tmp/site-broken/nvidia/nccl/lib/libnccl.so.2 not loadable" \
  && echo "ok   a broken wheel library is reported" || fail "broken wheel library: $(grep 'release: ' <<<"$out")"

# a real interpreter: a venv, activated (VIRTUAL_ENV) or first on PATH, its purelib holding the wheel
if python3 -m venv --without-pip "$tmp/real" 2>/dev/null; then
  purelib=$("$tmp/real/bin/python3" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  fake_nccl "$purelib/nvidia/nccl/lib" 22809
  VIRTUAL_ENV=$tmp/real release explain 2.28.9 "$purelib/nvidia/nccl/lib/libnccl.so.2" \
    "the Python environment of $tmp/real/bin/python3: the nvidia-nccl wheel first on its sys.path"
  PATH=$tmp/real/bin:$PATH release explain 2.28.9 "$purelib/nvidia/nccl/lib/libnccl.so.2" \
    "the Python environment of python3: the nvidia-nccl wheel first on its sys.path"
else
  echo "note: python3 -m venv unavailable: the real-interpreter cases were not run"
fi
nn_finish "passed: --nccl-lib, then the Python environment (torch's, then sys.path order), then the library path"
