nccl-numa topo --validate test/fixtures/topo/doctype.xml --config test/fixtures/topo/good.conf
