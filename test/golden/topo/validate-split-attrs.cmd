nccl-numa topo --validate test/fixtures/topo/split-attrs.xml --config test/fixtures/topo/good.conf
