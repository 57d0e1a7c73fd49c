nccl-numa topo --validate test/fixtures/topo/not-wellformed.xml --config test/fixtures/topo/good.conf
