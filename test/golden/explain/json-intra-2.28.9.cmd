nccl-numa explain --config test/fixtures/explain/two-socket.conf --ranks 2 --coll allreduce --nccl-version 2.28.9 --json | python3 -m json.tool --indent 1
