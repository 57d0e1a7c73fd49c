nccl-numa explain --config test/fixtures/explain/two-socket.conf --ranks 4 --nodes 2 --coll allreduce --nccl-version 2.28.9
