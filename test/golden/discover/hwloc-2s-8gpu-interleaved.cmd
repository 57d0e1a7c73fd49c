nccl-numa discover --no-cuda --xml test/fixtures/hwloc/2s-8gpu-interleaved.xml
