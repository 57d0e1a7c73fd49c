nccl-numa discover --no-cuda --proxmox-vm test/fixtures/proxmox/101.conf --pci-mapping test/fixtures/proxmox/pci.cfg --node pve1 --xml test/fixtures/hwloc/epyc-ref-host.xml
