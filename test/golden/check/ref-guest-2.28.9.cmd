nccl-numa check --no-cuda --sysfs-root "$SYSFS/ref-guest" --config docs/examples/proxmox-epyc-8gpu.conf --nccl-version 2.28.9
