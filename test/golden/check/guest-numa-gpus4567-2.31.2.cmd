nccl-numa check --no-cuda --sysfs-root "$SYSFS/ref-guest-numa" --config test/fixtures/config/ref-guest-numa.conf --nccl-version 2.31.2 --visible-devices 4,5,6,7
