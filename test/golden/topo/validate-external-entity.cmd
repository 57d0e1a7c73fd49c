nccl-numa topo --validate test/fixtures/topo/external-entity.xml --config test/fixtures/topo/good.conf
