nccl-numa explain --config test/fixtures/explain/two-socket.conf --ranks 4 --coll allgather --nccl-version 2.28.9
