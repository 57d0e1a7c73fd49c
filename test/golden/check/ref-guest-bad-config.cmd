nccl-numa check --no-cuda --sysfs-root "$SYSFS/ref-guest" --config test/fixtures/config/bad.conf --nccl-version 2.28.9
