nccl-numa explain --config test/fixtures/config/ref-guest-numa.conf --cpuinfo "$SYSFS/ref-guest-numa/proc/cpuinfo" --sysfs-root "$SYSFS/ref-guest-numa" --nccl-version 2.28.9 --coll allreduce
