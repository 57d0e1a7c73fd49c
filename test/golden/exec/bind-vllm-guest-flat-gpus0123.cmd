CUDA_VISIBLE_DEVICES=0,1,2,3 nccl-numa exec --config test/fixtures/config/ref-guest-flat.conf --bind-for vllm --sysfs-root "$SYSFS/ref-guest" -- echo vllm --tp 4
