CUDA_VISIBLE_DEVICES=0,1,2,3 nccl-numa exec --config test/fixtures/config/ref-guest-numa.conf --bind-for sglang --sysfs-root "$SYSFS/ref-guest-numa" -- echo sglang --tp 4
