CUDA_VISIBLE_DEVICES=0,1,2,3 nccl-numa exec --config test/fixtures/config/ref-guest-flat.conf --bind-for sglang --sysfs-root "$SYSFS/ref-guest" -- echo sglang --tp 4
