#!/bin/busybox sh
# SPDX-License-Identifier: BSD-3-Clause
# /init of the QEMU boot test's initramfs: prints what the test checks, then powers off.
# NNPCI <sysfs path> class=.. vendor=.. device=.. numa=.. port=<PCIe port number of a bridge, or ->
# NNNODE <node> cpus=<cpulist>
/bin/busybox --install -s /bin
export PATH=/bin
mkdir -p /proc /sys
mount -t proc proc /proc
mount -t sysfs sysfs /sys

# byte N of a config-space dump held in $cfg (space-separated hex)
byte() { echo $cfg | cut -d' ' -f$(($1 + 1)); }

# the Port Number of a PCIe bridge: LnkCap bits 31:24 in the PCI Express capability (id 0x10)
port_of() {
  cfg=$(hexdump -v -n 256 -e '1/1 "%02x "' "$1/config" 2>/dev/null)
  [ $(echo $cfg | wc -w) -ge 256 ] || { echo -; return; }
  ptr=$((0x$(byte 52)))
  hops=0
  while [ $ptr -ge 64 ] && [ $hops -lt 48 ]; do
    if [ "$(byte $ptr)" = 10 ]; then echo $((0x$(byte $((ptr + 15))))); return; fi
    ptr=$((0x$(byte $((ptr + 1)))))
    hops=$((hops + 1))
  done
  echo -
}

echo NNBOOT-BEGIN
for d in /sys/bus/pci/devices/*; do
  class=$(cat $d/class)
  port=-
  case $class in 0x0604*) port=$(port_of $d) ;; esac
  echo "NNPCI $(readlink -f $d) class=$class vendor=$(cat $d/vendor) device=$(cat $d/device) numa=$(cat $d/numa_node) port=$port"
done
for n in /sys/devices/system/node/node*; do
  [ -d "$n" ] && echo "NNNODE ${n##*/node} cpus=$(cat $n/cpulist)"
done
echo NNBOOT-END
poweroff -f
