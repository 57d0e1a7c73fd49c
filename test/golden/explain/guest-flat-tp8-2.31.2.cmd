nccl-numa explain --config test/fixtures/config/ref-guest-flat.conf --cpuinfo "$SYSFS/ref-guest/proc/cpuinfo" --sysfs-root "$SYSFS/ref-guest" --nccl-version 2.31.2 --coll allreduce
