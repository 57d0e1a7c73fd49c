nccl-numa discover --no-cuda --xml test/fixtures/hwloc/epyc-2nic-host.xml
