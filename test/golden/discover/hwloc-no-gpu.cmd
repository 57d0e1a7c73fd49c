nccl-numa discover --no-cuda --xml test/fixtures/hwloc/no-gpu.xml
