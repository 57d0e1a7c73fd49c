nccl-numa topo --validate test/fixtures/topo/good.xml --config test/fixtures/topo/good.conf
