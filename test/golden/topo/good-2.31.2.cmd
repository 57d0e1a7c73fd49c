nccl-numa topo --config test/fixtures/topo/good.conf --nccl-version 2.31.2
