#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Real NCCL, no GPU: ncclGetUniqueId loads our env plugin, which serves NCCL_SOCKET_IFNAME=lo
# from the mapping's `env` line, and not NCCL_COMM_ID, NCCL_NET_PLUGIN or NCCL_DEBUG_FILE.
# Passes only when NCCL's own log says so.
# usage: run_smoke.sh [PLUGIN.so]   (default: the build tree's, built first; test_deb.sh
# passes the one the Debian package installed)
set -u
cd "$(dirname "$0")/../.."
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
BUILD=${BUILD:-build}
lib=$(ls "$CUDA_HOME"/lib64/libnccl.so.2 "$CUDA_HOME"/lib/libnccl.so.2 2>/dev/null | head -n1)
if [ -z "$lib" ] || [ ! -e "$CUDA_HOME/include/nccl.h" ]; then
  echo "skipped: no libnccl.so.2 / nccl.h under $CUDA_HOME"; exit 77
fi
# The env plugin version this NCCL looks for: the newest ncclEnvPlugin_vN in its own strings
# (v1 from 2.28.7, v2 from 2.30.7); NCCL takes the newest it knows, and the plugin exports both.
want=$(strings -a "$lib" | grep -oE '^ncclEnvPlugin_v[0-9]+$' | sed 's/.*_v//' | sort -rn | head -n1)
[ -n "$want" ] || { echo "skipped: $lib looks for no env plugin (NCCL before 2.28.7)"; exit 77; }
if [ $# -gt 0 ]; then
  [ -f "$1" ] || { echo "FAIL: plugin $1 not found"; exit 1; }
  make -s BUILD="$BUILD" CUDA_HOME="$CUDA_HOME" "$BUILD/tools/nccl_smoke" || exit 1
  so=$(readlink -f "$1")
else
  make -s BUILD="$BUILD" CUDA_HOME="$CUDA_HOME" "$BUILD/libnccl-tuner-numa.so" "$BUILD/tools/nccl_smoke" || exit 1
  so=$(readlink -f "$BUILD/libnccl-tuner-numa.so")
fi
version=$(cat VERSION)
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
printf '# smoke test\nenv NCCL_SOCKET_IFNAME=lo\n' > "$dir/with-env.conf"
printf '# smoke test, no env line\n' > "$dir/without-env.conf"

run() {  # run CONFIG -> NCCL's log on stdout
  env -u NCCL_SOCKET_IFNAME -u NCCL_TOPO_FILE -u NCCL_DEBUG_SUBSYS XDG_RUNTIME_DIR="$dir" \
    NCCL_NUMA_CONFIG="$1" NCCL_ENV_PLUGIN="$so" NCCL_DEBUG=INFO "$BUILD/tools/nccl_smoke" 2>&1
}

out=$(run "$dir/with-env.conf"); rc=$?
echo "$out"
[ $rc -eq 0 ] || { echo "FAIL: ncclGetUniqueId failed"; exit 1; }
grep -q "ENV/Plugin: Using nccl-numa (v$want)" <<<"$out" || { echo "FAIL: NCCL did not use the env plugin nccl-numa (v$want)"; exit 1; }
grep -q 'NCCL_SOCKET_IFNAME set by environment to lo' <<<"$out" || { echo "FAIL: NCCL_SOCKET_IFNAME was not served as lo"; exit 1; }
grep -q "nccl-numa $version: env plugin v" <<<"$out" || { echo "FAIL: the plugin's INIT line does not name version $version"; exit 1; }
# The INIT line names the NCCL the plugin was loaded into, found among the loaded objects: the
# library nccl_smoke linked, and its release as that library's own version string says.
release=$(strings -a "$lib" | grep -oE '^NCCL version [0-9]+\.[0-9]+\.[0-9]+' | head -n1 | sed 's/NCCL version //')
loaded=$(grep -o "env plugin v[0-9]* on NCCL [^ ]* (loaded from [^)]*)" <<<"$out" | head -n1)
case "$loaded" in
  *"on NCCL $release"*"(loaded from "*libnccl.so*")") ;;
  *) echo "FAIL: the INIT line does not name the loaded NCCL $release and its library: '$loaded'"; exit 1 ;;
esac
[ "$(readlink -f "$(sed 's/.*loaded from //; s/)$//' <<<"$loaded")")" = "$(readlink -f "$lib")" ] ||
  { echo "FAIL: the INIT line names another library than $lib: '$loaded'"; exit 1; }

# Control: the same run without the env line must not show the variable, or the check above proves nothing.
out=$(run "$dir/without-env.conf")
if grep -q 'NCCL_SOCKET_IFNAME set by environment' <<<"$out"; then
  echo "FAIL: control run shows NCCL_SOCKET_IFNAME although nothing served it"; exit 1
fi
# A mapping naming a peer, a library and a file NCCL would use: none is served, the rest is.
# Control: NCCL_COMM_ID in the real environment makes ncclGetUniqueId look for an interface on
# that peer's subnet and fail, so its success here shows the mapping's was not served.
printf 'env NCCL_SOCKET_IFNAME=lo\nenv NCCL_COMM_ID=203.0.113.7:5555\nenv NCCL_NET_PLUGIN=%s/evil.so\nenv NCCL_DEBUG_FILE=%s/debug.log\n' \
  "$dir" "$dir" > "$dir/hostile.conf"
hostile=$(run "$dir/hostile.conf"); rc=$?
echo "$hostile"
[ $rc -eq 0 ] || { echo "FAIL: ncclGetUniqueId failed with the hostile mapping (NCCL_COMM_ID served?)"; exit 1; }
grep -q 'NCCL_SOCKET_IFNAME set by environment to lo' <<<"$hostile" || { echo "FAIL: the rest of the hostile mapping was not served"; exit 1; }
for n in NCCL_COMM_ID NCCL_NET_PLUGIN NCCL_DEBUG_FILE; do
  grep -q "WARN.*$n refused, not served" <<<"$hostile" || { echo "FAIL: no WARN refusing $n"; exit 1; }
done
if grep -q 'evil\.so' <<<"$hostile" || [ -e "$dir/debug.log" ]; then echo "FAIL: NCCL used a refused name"; exit 1; fi
NCCL_COMM_ID=203.0.113.7:5555 run "$dir/with-env.conf" >/dev/null
[ $? -ne 0 ] || { echo "FAIL: control: NCCL_COMM_ID in the environment changed nothing, the check above proves nothing"; exit 1; }

echo "passed: NCCL $(grep -o 'NCCL [0-9.]* ' <<<"$out" | head -n1)used nccl-numa $version ($so, env v$want) and got NCCL_SOCKET_IFNAME=lo, not a refused name"
