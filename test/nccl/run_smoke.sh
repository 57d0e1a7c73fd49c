#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Real NCCL, no GPU: ncclGetUniqueId loads our env plugin, which serves NCCL_SOCKET_IFNAME=lo
# from the mapping's `env` line. Passes only when NCCL's own log says so.
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
if [ $# -gt 0 ]; then
  [ -f "$1" ] || { echo "FAIL: plugin $1 not found"; exit 1; }
  make -s BUILD="$BUILD" "$BUILD/tools/nccl_smoke" || exit 1
  so=$(readlink -f "$1")
else
  make -s BUILD="$BUILD" "$BUILD/libnccl-tuner-numa.so" "$BUILD/tools/nccl_smoke" || exit 1
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
grep -q 'ENV/Plugin: Using nccl-numa (v1)' <<<"$out" || { echo "FAIL: NCCL did not use the env plugin nccl-numa (v1)"; exit 1; }
grep -q 'NCCL_SOCKET_IFNAME set by environment to lo' <<<"$out" || { echo "FAIL: NCCL_SOCKET_IFNAME was not served as lo"; exit 1; }
grep -q "nccl-numa $version: env plugin v" <<<"$out" || { echo "FAIL: the plugin's INIT line does not name version $version"; exit 1; }

# Control: the same run without the env line must not show the variable, or the check above proves nothing.
out=$(run "$dir/without-env.conf")
if grep -q 'NCCL_SOCKET_IFNAME set by environment' <<<"$out"; then
  echo "FAIL: control run shows NCCL_SOCKET_IFNAME although nothing served it"; exit 1
fi
echo "passed: NCCL $(grep -o 'NCCL [0-9.]* ' <<<"$out" | head -n1)used nccl-numa $version ($so, env v1) and got NCCL_SOCKET_IFNAME=lo"
