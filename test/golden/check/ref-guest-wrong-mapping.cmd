nccl-numa check --no-cuda --sysfs-root "$SYSFS/ref-guest" --config test/fixtures/explain/two-socket.conf --nccl-version 2.28.9
