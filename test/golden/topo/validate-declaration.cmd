nccl-numa topo --validate test/fixtures/topo/declaration.xml --config test/fixtures/topo/good.conf
