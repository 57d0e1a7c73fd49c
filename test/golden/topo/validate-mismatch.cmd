nccl-numa topo --validate test/fixtures/topo/mismatch.xml --config test/fixtures/topo/good.conf
