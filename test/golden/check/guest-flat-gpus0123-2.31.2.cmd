nccl-numa check --no-cuda --sysfs-root "$SYSFS/ref-guest" --config test/fixtures/config/ref-guest-flat.conf --nccl-version 2.31.2 --visible-devices 0,1,2,3
