#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# `nccl-numa proxmox-numa` on the fixture VMs of test/fixtures/proxmox-numa against the
# made-up host pve-host.xml (HWLOC_XMLFILE): exact expected stdout/stderr for each case
# under expected/, --diff, --write (.bak, atomic replace, refusals) and usage errors.
# NCCL_NUMA_BIN overrides the CLI under test (default build/nccl-numa).
# NN_UPDATE_EXPECTED=1 rewrites the expected files (review them with git diff).
. "$(dirname "$0")/helpers/lib.sh"
nn_cli abs
fix=$root/test/fixtures/proxmox-numa
exp=$fix/expected
nn_tmp
export HWLOC_XMLFILE=pve-host.xml

# run DIR ARGS...: runs the command in DIR (short file names in messages); sets rc
run() {
  local dir=$1; shift
  (cd "$dir" && timeout 20 "$cli" proxmox-numa "$@") >"$tmp/out" 2>"$tmp/err"
  rc=$?
}

same() {   # same GOT WANT WHAT
  if [ "${NN_UPDATE_EXPECTED:-}" = 1 ]; then cp "$1" "$2"; return; fi
  if [ ! -f "$2" ]; then fail "$3: no expected file $2"; return; fi
  cmp -s "$1" "$2" || { fail "$3 differs from $2:"; diff -u "$2" "$1" | head -n 40; }
}

# Rewrites with exact output (and exact notes on stderr).
for vm in 101 102 103; do
  run "$fix" --vm-config $vm.conf --pci-mapping pci.cfg --node pve1
  [ $rc -eq 0 ] || fail "$vm.conf: exit $rc: $(cat "$tmp/err")"
  same "$tmp/out" "$exp/$vm.out" "$vm.conf stdout"
  same "$tmp/err" "$exp/$vm.err" "$vm.conf stderr"
done

# NICs hwloc sees as such (pve-host-nics.xml) move with their node's GPUs, after them, behind
# root ports of the same expander; a clique hint never goes on a NIC.
HWLOC_XMLFILE=pve-host-nics.xml run "$fix" --vm-config nics.conf --node pve1
[ $rc -eq 0 ] || fail "nics.conf: exit $rc: $(cat "$tmp/err")"
same "$tmp/out" "$exp/nics.out" "nics.conf stdout"
grep -q 'vfio-pci,host=0000:71:00.0,bus=nnrp0_3 -device pcie-root-port,id=nnrp0_4,bus=nnpxb0,[^ ]* -device vfio-pci,host=0000:41:00.0,bus=nnrp0_4 ' "$tmp/out" &&
  grep -q 'vfio-pci,host=0000:c1:00.0,bus=nnrp1_4$' "$tmp/out" && echo "ok NICs behind their node's expander, after its GPUs" ||
  fail "nics.conf: the NICs are not behind their nodes' expanders"
HWLOC_XMLFILE=pve-host-nics.xml run "$fix" --vm-config nics.conf --node pve1 --p2p-clique=socket
[ "$(grep '^args:' "$tmp/out" | grep -o 'x-nv-gpudirect-clique=' | wc -l)" = 8 ] &&
  ! grep -q 'host=0000:41:00.0,bus=nnrp0_4,x-nv' "$tmp/out" && echo "ok no clique hint on a NIC" ||
  fail "nics.conf --p2p-clique: clique hints not on the 8 GPUs alone"

# --p2p-clique: one clique for all GPUs, or one per host socket, on function 0 only; the note once.
for mode in one socket; do
  run "$fix" --vm-config 101.conf --pci-mapping pci.cfg --node pve1 --p2p-clique=$mode
  [ $rc -eq 0 ] || fail "--p2p-clique=$mode: exit $rc: $(cat "$tmp/err")"
  same "$tmp/out" "$exp/101-clique-$mode.out" "101.conf --p2p-clique=$mode stdout"
  [ "$(grep -c 'It is a hint, not a proof' "$tmp/out")" = 1 ] || fail "--p2p-clique=$mode: the note is not said once"
done
run "$fix" --vm-config 101.conf --pci-mapping pci.cfg --node pve1 --p2p-clique
cmp -s "$tmp/out" "$exp/101-clique-one.out" || fail "--p2p-clique without a value is not one clique"
[ "$(grep '^args:' "$tmp/out" | grep -o 'x-nv-gpudirect-clique=0' | wc -l)" = 8 ] || fail "--p2p-clique: not 8 GPUs in clique 0"
! grep -q '00\.1,[^ ]*clique' "$tmp/out" || fail "--p2p-clique: a GPU's audio function got the clique"
run "$fix" --vm-config 101.conf --pci-mapping pci.cfg --node pve1 --p2p-clique=socket
[ "$(grep '^args:' "$tmp/out" | grep -o 'x-nv-gpudirect-clique=1' | wc -l)" = 4 ] || fail "--p2p-clique=socket: not 4 GPUs in clique 1"
run "$fix" --vm-config 101.conf --pci-mapping pci.cfg --node pve1
! grep -q 'clique' "$tmp/out" || fail "without --p2p-clique the rewrite mentions a clique"
run "$fix" --vm-config 101.conf --pci-mapping pci.cfg --node pve1 --p2p-clique=all
[ $rc -eq 2 ] && grep -qF -- "--p2p-clique=all: expected one or socket" "$tmp/err" || fail "--p2p-clique=all: exit $rc"
# QEMU itself accepts the property the rewrite writes (skipped where QEMU is absent).
if command -v qemu-system-x86_64 >/dev/null; then
  qemu-system-x86_64 -device vfio-pci,help 2>&1 | grep -q 'x-nv-gpudirect-clique=<uint4>' ||
    fail "this QEMU's vfio-pci has no x-nv-gpudirect-clique property"
else
  echo "skipped: QEMU's x-nv-gpudirect-clique property not checked: no qemu-system-x86_64 here"
fi

# Refusals: exit 1, nothing on stdout, the exact message.
for vm in i440fx no-pcie args-pxb other-node mixed-mapping x-vga pending hotplug-memory no-gpu not-on-host; do
  run "$fix" --vm-config $vm.conf --pci-mapping pci.cfg --node pve1
  [ $rc -eq 1 ] || fail "$vm.conf: exit $rc, wanted 1"
  [ ! -s "$tmp/out" ] || fail "$vm.conf: printed a config although it refused"
  same "$tmp/err" "$exp/$vm.err" "$vm.conf stderr"
done

# A mapping= entry without the mapping file: the message names the missing file.
run "$fix" --vm-config 103.conf --pci-mapping missing.cfg --node pve1
[ $rc -eq 1 ] && grep -q "missing.cfg: cannot open" "$tmp/err" || fail "missing mapping file: exit $rc, $(cat "$tmp/err")"

# --diff: a unified diff of the file against the rewrite.
run "$fix" --vm-config 102.conf --node pve1 --diff
[ $rc -eq 0 ] || fail "--diff: exit $rc: $(cat "$tmp/err")"
same "$tmp/out" "$exp/102.diff" "102.conf --diff"

# --write: .bak holds the old file, the file the new config; a second run refuses and changes nothing.
mkdir -p "$tmp/vm"
cp "$fix/101.conf" "$fix/pci.cfg" "$fix/pve-host.xml" "$tmp/vm/"
run "$tmp/vm" --vm-config 101.conf --pci-mapping pci.cfg --node pve1 --write
[ $rc -eq 0 ] || fail "--write: exit $rc: $(cat "$tmp/err")"
[ ! -s "$tmp/out" ] || fail "--write printed on stdout"
grep -qxF "nccl-numa proxmox-numa: wrote 101.conf (the previous config is 101.conf.bak)" "$tmp/err" ||
  fail "--write: no 'wrote' line: $(cat "$tmp/err")"
cmp -s "$tmp/vm/101.conf.bak" "$fix/101.conf" || fail "--write: 101.conf.bak is not the old config"
cmp -s "$tmp/vm/101.conf" "$exp/101.out" || fail "--write: 101.conf is not the rewrite"
ls "$tmp/vm" | grep -q '\.tmp\.' && fail "--write left a temporary file"
cp "$tmp/vm/101.conf" "$tmp/written"
run "$tmp/vm" --vm-config 101.conf --pci-mapping pci.cfg --node pve1 --write
[ $rc -eq 1 ] && grep -q "already defines a PCIe expander" "$tmp/err" || fail "second --write: exit $rc: $(cat "$tmp/err")"
cmp -s "$tmp/vm/101.conf" "$tmp/written" || fail "second --write changed the file"
cmp -s "$tmp/vm/101.conf.bak" "$fix/101.conf" || fail "second --write changed the .bak"

# A .bak that differs from the current file is never overwritten.
cp "$fix/102.conf" "$tmp/vm/102.conf"
echo "something else" >"$tmp/vm/102.conf.bak"
run "$tmp/vm" --vm-config 102.conf --node pve1 --write
[ $rc -eq 1 ] && grep -q "102.conf.bak exists and differs" "$tmp/err" || fail "differing .bak: exit $rc: $(cat "$tmp/err")"
cmp -s "$tmp/vm/102.conf" "$fix/102.conf" || fail "differing .bak: the config was changed"
# ... but one equal to the current file is (a rerun after restoring with cp).
cp "$fix/102.conf" "$tmp/vm/102.conf.bak"
run "$tmp/vm" --vm-config 102.conf --node pve1 --write --diff
[ $rc -eq 0 ] || fail "--write --diff with an equal .bak: exit $rc: $(cat "$tmp/err")"
same "$tmp/out" "$exp/102.diff" "--write --diff stdout"
cmp -s "$tmp/vm/102.conf" "$exp/102.out" || fail "--write --diff: 102.conf is not the rewrite"

# --write keeps the config's owner, group and mode (nobody:nogroup 0640 once
# came back root:root 0640), for the new file and the .bak, whatever the umask.
if [ "$(id -u)" = 0 ]; then
  mkdir -p "$tmp/own"
  cp "$fix/101.conf" "$fix/pci.cfg" "$fix/pve-host.xml" "$tmp/own/"
  chown 65534:65534 "$tmp/own/101.conf" && chmod 0640 "$tmp/own/101.conf"
  (umask 077; cd "$tmp/own" && timeout 20 "$cli" proxmox-numa --vm-config 101.conf --pci-mapping pci.cfg --node pve1 --write) \
    >"$tmp/out" 2>"$tmp/err"
  rc=$?
  [ $rc -eq 0 ] || fail "--write of a uid 65534 file: exit $rc: $(cat "$tmp/err")"
  cmp -s "$tmp/own/101.conf" "$exp/101.out" || fail "--write of a uid 65534 file: not the rewrite"
  for f in 101.conf 101.conf.bak; do
    got=$(stat -c '%u:%g %a' "$tmp/own/$f")
    [ "$got" = "65534:65534 640" ] && echo "ok   --write keeps $f at 65534:65534 0640" ||
      fail "--write: $f is $got, wanted 65534:65534 640"
  done
  cp "$fix/102.conf" "$tmp/own/" && chown 0:0 "$tmp/own/102.conf" && chmod 0664 "$tmp/own/102.conf"
  (umask 077; cd "$tmp/own" && timeout 20 "$cli" proxmox-numa --vm-config 102.conf --node pve1 --write) >"$tmp/out" 2>"$tmp/err"
  got=$(stat -c '%u:%g %a' "$tmp/own/102.conf")
  [ "$got" = "0:0 664" ] && echo "ok   --write keeps 0664 under umask 077" || fail "--write under umask 077: $got, wanted 0:0 664"
  # Run as uid 65534, whose file's group (0) it cannot give a new file: refused, nothing written.
  if ! command -v setpriv >/dev/null || ! setpriv --reuid 65534 --regid 65534 --clear-groups test -x "$cli"; then
    echo "note: uid 65534 cannot run $cli here: the refused --write is left out"
  else
    nob=$(mktemp -d /tmp/nn-pxn-own-XXXXXX)
    cp "$fix/101.conf" "$fix/pci.cfg" "$fix/pve-host.xml" "$nob/"
    chmod 0755 "$nob" && chown 65534 "$nob" && chown 65534:0 "$nob/101.conf" && chmod 0640 "$nob/101.conf"
    (cd "$nob" && timeout 20 setpriv --reuid 65534 --regid 65534 --clear-groups "$cli" proxmox-numa \
       --vm-config 101.conf --pci-mapping pci.cfg --node pve1 --write) >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc -eq 1 ] && grep -q "cannot give the new file the owner 65534:0 and mode 0640: Operation not permitted; nothing written" "$tmp/err" ||
      fail "--write that cannot keep the group: exit $rc: $(cat "$tmp/err")"
    cmp -s "$nob/101.conf" "$fix/101.conf" && [ "$(ls "$nob" | wc -l)" -eq 3 ] ||
      fail "--write that cannot keep the group changed or left files: $(ls "$nob")"
    rm -rf "$nob"
  fi
else
  echo "note: not root: the owner check of --write (a uid 65534 file) is left out"
fi

# A locked VM and a symbolic link are not written.
{ cat "$fix/103.conf"; echo "lock: backup"; } >"$tmp/vm/103.conf"
run "$tmp/vm" --vm-config 103.conf --pci-mapping pci.cfg --node pve1 --write
[ $rc -eq 1 ] && grep -q "the VM is locked (lock: backup)" "$tmp/err" || fail "locked VM: exit $rc: $(cat "$tmp/err")"
[ ! -e "$tmp/vm/103.conf.bak" ] || fail "locked VM: a .bak was written"
ln -s "$fix/102.conf" "$tmp/vm/104.conf"
run "$tmp/vm" --vm-config 104.conf --write
[ $rc -eq 1 ] && grep -q "not a symbolic link" "$tmp/err" || fail "symlink: exit $rc: $(cat "$tmp/err")"

# Usage.
run "$fix"
[ $rc -eq 2 ] || fail "no --vm-config: exit $rc, wanted 2"
run "$fix" --vm-config 101.conf --bogus
[ $rc -eq 2 ] || fail "unknown option: exit $rc, wanted 2"
run "$fix" --help
[ $rc -eq 0 ] && grep -q -- "--vm-config" "$tmp/out" || fail "--help: exit $rc"

# Hostile input: binary junk and over-long lines end in a clear refusal, never a crash.
head -c 3000 /dev/urandom >"$tmp/vm/900.conf"
run "$tmp/vm" --vm-config 900.conf
[ $rc -eq 1 ] || fail "random bytes: exit $rc, wanted 1"
{ printf 'machine: q35\nargs: '; head -c 9000 /dev/zero | tr '\0' 'x'; echo; } >"$tmp/vm/901.conf"
run "$tmp/vm" --vm-config 901.conf
[ $rc -eq 1 ] || fail "over-long line: exit $rc, wanted 1"

nn_finish "PASS: proxmox-numa" "failure(s)"
