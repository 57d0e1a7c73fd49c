#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# `make demo`: install what is missing, build, and run the main job on the example mapping:
# explain for TP=8 and for the two TP=4 servers (one per socket), the topology XML the plugin
# serves one of them, the engine binding exec adds, and the real-NCCL env plugin smoke test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash .ci/deps.sh
make -s -j"$(nproc)" all
conf=docs/examples/proxmox-epyc-8gpu.conf
unset CUDA_VISIBLE_DEVICES   # each step names the GPUs it is about
echo "== nccl-numa explain --config $conf   (TP=8: every GPU, across the sockets)"
build/nccl-numa explain --config "$conf" --coll allreduce
for gpus in 0,1,2,3 4,5,6,7; do
  echo
  echo "== nccl-numa explain --config $conf --visible-devices $gpus   (a TP=4 server on one socket)"
  build/nccl-numa explain --config "$conf" --visible-devices "$gpus" --coll allreduce
done
echo
echo "== nccl-numa topo --config $conf --visible-devices 4,5,6,7   (the XML the env plugin serves that server)"
build/nccl-numa topo --config "$conf" --visible-devices 4,5,6,7
echo
echo "== nccl-numa exec --bind-for vllm with CUDA_VISIBLE_DEVICES=4,5,6,7   (the engine's own NUMA binding)"
CUDA_VISIBLE_DEVICES=4,5,6,7 build/nccl-numa exec --config "$conf" --bind-for vllm -- echo vllm serve MODEL --tp 4
echo
echo "== real NCCL loads the plugin as its env plugin (no GPU needed)"
bash test/nccl/run_smoke.sh | tail -n 1
