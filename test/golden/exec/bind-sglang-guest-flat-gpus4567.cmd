CUDA_VISIBLE_DEVICES=4,5,6,7 nccl-numa exec --config test/fixtures/config/ref-guest-flat.conf --bind-for sglang --sysfs-root "$SYSFS/ref-guest" -- echo sglang --tp 4
