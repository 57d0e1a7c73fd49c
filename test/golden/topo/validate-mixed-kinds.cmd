nccl-numa topo --validate test/fixtures/topo/mixed-kinds.xml --config test/fixtures/topo/good.conf
