nccl-numa explain --config test/fixtures/config/bad.conf --nccl-version 2.28.9
