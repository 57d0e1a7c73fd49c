nccl-numa topo --validate test/fixtures/topo/wrong-root.xml --config test/fixtures/topo/good.conf
