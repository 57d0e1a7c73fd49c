#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# `make demo`: install what is missing, build, and run the main job on the example mapping:
# the explain table, the generated topology XML and the real-NCCL env plugin smoke test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash .ci/deps.sh
make -s -j"$(nproc)" all
conf=docs/examples/proxmox-epyc-8gpu.conf
echo "== nccl-numa explain --config $conf --ranks 4   (a TP=4 group)"
build/nccl-numa explain --config "$conf" --ranks 4 --coll allreduce
echo
echo "== nccl-numa explain --config $conf --ranks 8   (TP=8 crosses the sockets)"
build/nccl-numa explain --config "$conf" --ranks 8 --coll allreduce
echo
echo "== nccl-numa topo --config $conf   (the XML the env plugin serves when the verdict allows)"
build/nccl-numa topo --config "$conf"
echo
echo "== real NCCL loads the plugin as its env plugin (no GPU needed)"
bash test/nccl/run_smoke.sh | tail -n 1
