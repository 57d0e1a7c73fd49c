#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Builds nccl-numa, installs it into PREFIX with `make install`, and checks the
# installed files the way a user meets them: the CLI from PREFIX/bin finds
# PREFIX/lib/libnccl-tuner-numa.so by itself, and the shipped example mapping
# is valid. The Docker image's build stage runs this script, and so does
# test/cli/test_install.sh (make test / .ci/run), so what the image does is
# tested without a Docker engine.
#
# usage: docker/build-install.sh PREFIX [BUILD_DIR]
set -euo pipefail
PREFIX=${1:?usage: build-install.sh PREFIX [BUILD_DIR]}
BUILD=${2:-build/install}
cd "$(dirname "$0")/.."
make -s -j"$(nproc)" BUILD="$BUILD" install PREFIX="$PREFIX"

fail() { echo "build-install: FAIL: $*" >&2; exit 1; }
CLI=$PREFIX/bin/nccl-numa
SO=$PREFIX/lib/libnccl-tuner-numa.so
[ -x "$CLI" ] || fail "$CLI missing"
[ -f "$SO" ] || fail "$SO missing"
[ "$(readlink "$PREFIX/lib/libnccl-env-numa.so")" = libnccl-tuner-numa.so ] || fail "libnccl-env-numa.so symlink missing"
"$CLI" --help | grep -q '^  ab ' || fail "installed CLI lacks the ab command"
EX=$(ls "$PREFIX"/share/nccl-numa/examples/*.conf | head -n1)
[ -n "$EX" ] || fail "no example mapping installed"
"$CLI" check-config "$EX" >/dev/null || fail "installed example $EX is not valid"
# The installed CLI must point NCCL at the installed library, not at the build tree.
want=$(readlink -f "$SO")
"$CLI" env --config "$EX" | grep -qx "export NCCL_TUNER_PLUGIN='$want'" || fail "env does not name $want"
got=$("$CLI" exec --config "$EX" -- sh -c 'echo "$NCCL_ENV_PLUGIN"')
[ "$got" = "$want" ] || fail "exec gave NCCL_ENV_PLUGIN=$got, want $want"
"$CLI" explain --config "$EX" >/dev/null || fail "explain on $EX failed"
# The plugin is loaded into every NCCL process: it needs glibc alone (libc, libpthread,
# libdl), never libxml2 or hwloc.
if command -v readelf >/dev/null; then
  extra=$(readelf -d "$SO" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | grep -vE '^(libc|libpthread|libdl)\.so' || true)
  [ -z "$extra" ] || fail "plugin links more than libc/libpthread/libdl: $extra"
fi
echo "build-install: nccl-numa installed in $PREFIX and checked"
