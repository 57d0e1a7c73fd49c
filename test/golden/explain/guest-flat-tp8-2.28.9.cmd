nccl-numa explain --config test/fixtures/config/ref-guest-flat.conf --cpuinfo "$SYSFS/ref-guest/proc/cpuinfo" --sysfs-root "$SYSFS/ref-guest" --nccl-version 2.28.9 --coll allreduce
