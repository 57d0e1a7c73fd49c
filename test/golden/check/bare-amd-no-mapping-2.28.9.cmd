nccl-numa check --no-cuda --sysfs-root "$SYSFS/bare-amd-2s" --nccl-version 2.28.9
