nccl-numa check --no-cuda --sysfs-root "$SYSFS/ref-guest-nics" --config test/fixtures/config/reference.conf --nccl-version 2.28.9
