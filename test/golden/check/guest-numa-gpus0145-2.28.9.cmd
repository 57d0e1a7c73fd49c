nccl-numa check --no-cuda --sysfs-root "$SYSFS/ref-guest-numa" --config test/fixtures/config/ref-guest-numa.conf --nccl-version 2.28.9 --visible-devices 0,1,4,5
