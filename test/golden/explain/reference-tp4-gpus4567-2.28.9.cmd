nccl-numa explain --config docs/examples/proxmox-epyc-8gpu.conf --cpuinfo test/fixtures/cpuinfo/amd-turin --nccl-version 2.28.9 --visible-devices 4,5,6,7
