nccl-numa topo --validate test/fixtures/topo/spacing.xml --config test/fixtures/topo/good.conf
