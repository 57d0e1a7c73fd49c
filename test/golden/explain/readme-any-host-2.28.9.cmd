(unset NCCL_NUMA_CPUINFO; nccl-numa explain --config docs/examples/proxmox-epyc-8gpu.conf --nccl-version 2.28.9 --coll allreduce)
