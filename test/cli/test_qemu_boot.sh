#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The QEMU boot test of `nccl-numa proxmox-numa`: rewrites the reference VM
# (test/fixtures/proxmox-numa/101.conf, made small enough to boot: 4 vCPUs, 1 GiB),
# turns the result into QEMU arguments (test/qemu/pve2qemu.py: numaK lines as guest
# NUMA nodes, the args: line with an emulated e1000e in place of every vfio-pci GPU),
# boots a Debian kernel with a busybox initramfs (test/qemu/init.sh) under TCG, and
# checks every GPU's stand-in sits behind its expander on the guest node of its
# GPU's host node, and the guest's nodes and CPUs. No GPU and no KVM needed.
#
# Needs qemu-system-x86_64, a static busybox (busybox-static), cpio, python3 and a
# kernel: NN_QEMU_KERNEL, else the newest build/qemu-cache/vmlinuz-* that
# test/qemu/fetch-kernel.sh put there. Installs nothing: says "skipped" without them.
# NCCL_NUMA_BIN overrides the CLI under test (default build/nccl-numa).
. "$(dirname "$0")/helpers/lib.sh"
fix=$root/test/fixtures/proxmox-numa

command -v qemu-system-x86_64 >/dev/null || nn_skip "no qemu-system-x86_64 (Debian: qemu-system-x86)"
command -v python3 >/dev/null || nn_skip "no python3"
command -v cpio >/dev/null || nn_skip "no cpio"
busybox=$(command -v busybox || true)
[ -n "$busybox" ] || nn_skip "no busybox (Debian: busybox-static)"
if ldd "$busybox" >/dev/null 2>&1; then nn_skip "$busybox is dynamically linked (Debian: busybox-static)"; fi
kernel=${NN_QEMU_KERNEL:-$(ls "$root"/build/qemu-cache/vmlinuz-* 2>/dev/null | sort -V | tail -n1)}
[ -n "$kernel" ] && [ -r "$kernel" ] || nn_skip "no kernel image (run test/qemu/fetch-kernel.sh, or set NN_QEMU_KERNEL)"
nn_cli
nn_tmp

# The reference VM, small enough for TCG: 2 sockets x 2 cores, 1 GiB.
mkdir -p "$tmp/vm"
sed -e 's/^memory: .*/memory: 1024/' -e 's/^cores: .*/cores: 2/' "$fix/101.conf" >"$tmp/vm/101.conf"
if ! HWLOC_XMLFILE=$fix/pve-host.xml "$cli" proxmox-numa --vm-config "$tmp/vm/101.conf" \
     --pci-mapping "$fix/pci.cfg" --node pve1 >"$tmp/new.conf" 2>"$tmp/err"; then
  echo "FAIL: proxmox-numa refused the boot VM:"; cat "$tmp/err"; exit 1
fi

# The initramfs: a static busybox and init.sh.
mkdir -p "$tmp/initrd/bin"
cp "$busybox" "$tmp/initrd/bin/busybox"
cp "$root/test/qemu/init.sh" "$tmp/initrd/init"
chmod 755 "$tmp/initrd/init" "$tmp/initrd/bin/busybox"
(cd "$tmp/initrd" && find . | cpio -o -H newc --quiet | gzip -1) >"$tmp/initrd.gz" || { echo "FAIL: cpio"; exit 1; }

mapfile -t args < <(python3 "$root/test/qemu/pve2qemu.py" args "$tmp/new.conf")
[ ${#args[@]} -gt 0 ] || { echo "FAIL: no QEMU arguments from the rewritten config"; exit 1; }
echo "qemu-system-x86_64 ... ${args[*]}"
start=$(date +%s)
timeout 300 qemu-system-x86_64 -machine q35 -accel tcg -nographic -no-reboot -nic none -nodefaults \
  -serial stdio -kernel "$kernel" -initrd "$tmp/initrd.gz" \
  -append "console=ttyS0 rdinit=/init panic=-1 quiet" "${args[@]}" </dev/null >"$tmp/guest.log" 2>&1
rc=$?
echo "boot: exit $rc after $(( $(date +%s) - start )) s"
if [ $rc -ne 0 ]; then
  echo "FAIL: qemu exited $rc"; tail -n 40 "$tmp/guest.log"; exit 1
fi
grep -E '^(NNPCI|NNNODE)' "$tmp/guest.log" | tr -d '\r'

if ! python3 "$root/test/qemu/pve2qemu.py" check "$tmp/new.conf" "$fix/pve-host.xml" "$tmp/guest.log"; then
  echo "FAIL: the guest does not show the GPUs where the rewrite put them"; exit 1
fi

# The checker must notice a missing device and a wrong node (else it proves nothing).
awk '!/vendor=0x8086 device=0x10d3/ || dropped++' "$tmp/guest.log" >"$tmp/missing.log"
sed '0,/vendor=0x8086 device=0x10d3 numa=1/s//vendor=0x8086 device=0x10d3 numa=0/' "$tmp/guest.log" >"$tmp/wrong.log"
for bad in missing wrong; do
  if python3 "$root/test/qemu/pve2qemu.py" check "$tmp/new.conf" "$fix/pve-host.xml" "$tmp/$bad.log" >/dev/null; then
    echo "FAIL: the checker accepts a guest report with a $bad device"; exit 1
  fi
done
echo "PASS: every GPU stand-in on its guest NUMA node behind its expander"
