CUDA_VISIBLE_DEVICES=0,1,2,3 nccl-numa exec --config test/fixtures/config/ref-guest-numa.conf --bind-for vllm --sysfs-root "$SYSFS/ref-guest-numa" -- echo vllm --tp 4
