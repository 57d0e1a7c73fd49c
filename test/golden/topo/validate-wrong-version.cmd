nccl-numa topo --validate test/fixtures/topo/wrong-version.xml --config test/fixtures/topo/good.conf
