nccl-numa discover --no-cuda --xml test/fixtures/hwloc/vm-gpus-under-machine.xml
