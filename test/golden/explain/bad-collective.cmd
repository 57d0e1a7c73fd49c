nccl-numa explain --config test/fixtures/explain/two-socket.conf --coll alltoall --nccl-version 2.28.9
