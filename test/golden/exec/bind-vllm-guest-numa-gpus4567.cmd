CUDA_VISIBLE_DEVICES=4,5,6,7 nccl-numa exec --config test/fixtures/config/ref-guest-numa.conf --bind-for vllm --sysfs-root "$SYSFS/ref-guest-numa" -- echo vllm --tp 4
