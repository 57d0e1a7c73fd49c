nccl-numa discover --no-cuda --xml test/fixtures/hwloc/epyc-ref-host.xml
