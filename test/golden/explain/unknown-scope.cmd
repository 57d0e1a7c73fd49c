nccl-numa explain --config test/fixtures/explain/two-socket.conf --ranks 3 --nodes 2 --coll allreduce --nccl-version 2.28.9
