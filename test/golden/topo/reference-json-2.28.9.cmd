nccl-numa topo --config docs/examples/proxmox-epyc-8gpu.conf --nccl-version 2.28.9 --json | python3 -m json.tool --indent 1
