nccl-numa topo --validate test/fixtures/topo/billion-laughs.xml --config test/fixtures/topo/good.conf
