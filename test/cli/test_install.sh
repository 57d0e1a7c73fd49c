#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# `make install` into a temporary prefix and the installed CLI, through the same
# script the Docker image's build stage runs (docker/build-install.sh).
set -u
cd "$(dirname "$0")/../.."
T=$(mktemp -d /tmp/nn-install-XXXXXX)
trap 'rm -rf "$T"' EXIT
if ! bash docker/build-install.sh "$T/prefix" "${NN_INSTALL_BUILD:-build/install-test}"; then
  echo "FAIL: docker/build-install.sh"
  exit 1
fi
# The installed tree works from anywhere, also after the build tree is gone from PATH.
out=$(cd / && "$T/prefix/bin/nccl-numa" env --config "$T/prefix/share/nccl-numa/examples/proxmox-epyc-8gpu.conf")
echo "$out" | grep -qx "export NCCL_ENV_PLUGIN='$T/prefix/lib/libnccl-tuner-numa.so'" || { echo "FAIL: env from / : $out"; exit 1; }
# The manual pages are installed (help2man is one of make deps' packages) ...
if command -v help2man >/dev/null; then
  [ -f "$T/prefix/share/man/man1/nccl-numa.1" ] && [ -f "$T/prefix/share/man/man1/nccl-numa-explain.1" ] \
    || { echo "FAIL: manual pages not installed: $(ls -R "$T/prefix/share" 2>&1 | head)"; exit 1; }
else
  echo "manual pages: not checked (help2man not installed)"
fi
# ... and uninstall removes every file install put there.
make -s BUILD="${NN_INSTALL_BUILD:-build/install-test}" uninstall PREFIX="$T/prefix" >/dev/null || { echo "FAIL: make uninstall"; exit 1; }
left=$(find "$T/prefix" 2>/dev/null | sed "s|^$T/prefix/*||")
[ -z "$left" ] && [ ! -e "$T/prefix" ] || { echo "FAIL: left after uninstall: ${left:-the empty prefix}"; exit 1; }
echo "install checks passed (manual pages installed, uninstall leaves no file and no empty directory)"
