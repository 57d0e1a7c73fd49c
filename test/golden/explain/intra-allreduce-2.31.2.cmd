nccl-numa explain --config test/fixtures/explain/two-socket.conf --ranks 2 --coll allreduce --nccl-version 2.31.2
