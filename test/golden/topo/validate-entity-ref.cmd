nccl-numa topo --validate test/fixtures/topo/entity-ref.xml --config test/fixtures/topo/good.conf
