nccl-numa topo --config test/fixtures/topo/good.conf --nccl-version 2.28.9
