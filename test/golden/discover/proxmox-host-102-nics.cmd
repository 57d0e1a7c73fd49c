nccl-numa discover --no-cuda --proxmox-vm test/fixtures/proxmox/102.conf --node pve2nic --xml test/fixtures/hwloc/epyc-2nic-host.xml
