nccl-numa topo --validate test/fixtures/topo/tabs.xml --config test/fixtures/topo/good.conf
