nccl-numa check --no-cuda --sysfs-root "$SYSFS/ref-guest-nics" --config test/fixtures/config/ref-nics.conf --nccl-version 2.28.9
