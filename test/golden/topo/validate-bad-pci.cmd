nccl-numa topo --validate test/fixtures/topo/bad-pci.xml --config test/fixtures/topo/good.conf
