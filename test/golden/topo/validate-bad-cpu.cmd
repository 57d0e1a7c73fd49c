nccl-numa topo --validate test/fixtures/topo/bad-cpu.xml --config test/fixtures/topo/good.conf
