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
echo "install checks passed"
