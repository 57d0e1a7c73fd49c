#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# `discover` from a hostile hwloc XML: a HostName or CPUVendor carrying
# a newline and an `env` line, a HostName carrying the host-side marker, and a VM config
# whose file name holds a newline, through `discover --xml F`, `HWLOC_XMLFILE=F discover`
# and `discover --proxmox-vm`. The mapping written must hold no line the source did not
# mean: no `env` line, check-config counts 0 env, and the hostile text is there, escaped.
# NCCL_NUMA_BIN overrides the CLI under test (default build/nccl-numa).
. "$(dirname "$0")/helpers/lib.sh"
nn_cli abs
nn_tmp
export SOURCE_DATE_EPOCH=0
unset HWLOC_XMLFILE
fix=$root/test/fixtures

# hostile XML: HostName and CPUVendor with LF / CR LF and an env line, as XML character references
evil=$tmp/evil.xml
sed 's|name="HostName" value="[^"]*"|name="HostName" value="pve1\&#10;env NCCL_NET_PLUGIN=/x/evil.so\&#10;"|
     s|name="CPUVendor" value="[^"]*"|name="CPUVendor" value="AuthenticAMD\&#13;\&#10;env NCCL_PROFILER_PLUGIN=/x/e.so\&#10;"|' \
  "$fix/hwloc/epyc-ref-host.xml" >"$evil"
check "the fixture carries the attack" "[ \$(grep -c 'env NCCL_NET_PLUGIN\|env NCCL_PROFILER_PLUGIN' '$evil') -ge 2 ]"

# mapping_is_safe NAME FILE [--host-side]: only comments and cpu/numa/gpu lines, no env
# directive for check-config, and the hostile HostName shown escaped in the head comment.
mapping_is_safe() {
  local name=$1 f=$2
  shift 2
  check "$name: every line a comment or cpu/numa/gpu" "! grep -qvE '^(#|(cpu|numa|gpu) )' '$f'"
  check "$name: no env line" "! grep -q '^[[:space:]]*env' '$f'"
  check "$name: the HostName is kept, escaped" \
    "grep -qF 'on pve1\\x0aenv NCCL_NET_PLUGIN=/x/evil.so\\x0a, from' '$f'"
  timeout 30 "$cli" check-config "$f" "$@" >"$tmp/cc.out" 2>"$tmp/cc.err"
  check "$name: check-config accepts it with 0 env" "grep -q ', 0 env)' '$tmp/cc.out'" ||
    cat "$tmp/cc.out" "$tmp/cc.err"
}

nn_run 30 discover --no-cuda --xml "$evil"
expect_rc 0 "discover --xml"
printf '%s\n' "$out" >"$tmp/xml.conf"
mapping_is_safe "discover --xml" "$tmp/xml.conf"
check "discover --xml: the CPUVendor is kept, escaped, in a comment" \
  "grep -qF '# no cpu line: vendor AuthenticAMD\\x0d\\x0aenv NCCL_PROFILER' '$tmp/xml.conf'"

HWLOC_XMLFILE=$evil nn_run 30 discover --no-cuda
expect_rc 0 "HWLOC_XMLFILE discover"
printf '%s\n' "$out" >"$tmp/env.conf"
mapping_is_safe "HWLOC_XMLFILE discover" "$tmp/env.conf"

# --proxmox-vm: the VM config's file name carries a newline and an env line too
vm=$tmp/vm$'\n'"env NCCL_NET_PLUGIN=evil.so"$'\n'101.conf
cp "$fix/proxmox/101.conf" "$vm"
(cd "$fix/proxmox" && nn_run 30 discover --no-cuda --proxmox-vm "$vm" --pci-mapping pci.cfg --node pve1 --xml "$evil"
 printf '%s\n' "$rc" >"$tmp/pve.rc"; printf '%s\n' "$out" >"$tmp/pve.conf")
rc=$(cat "$tmp/pve.rc")
expect_rc 0 "discover --proxmox-vm"
mapping_is_safe "discover --proxmox-vm" "$tmp/pve.conf" --host-side
check "discover --proxmox-vm: the VM config's name is kept, escaped" \
  "grep -qF '# VM config $tmp/vm\\x0aenv NCCL_NET_PLUGIN=evil.so\\x0a101.conf, Proxmox node pve1' '$tmp/pve.conf'"

# A HostName carrying the host-side marker does not make a host's mapping host-side.
sed 's|name="HostName" value="[^"]*"|name="HostName" value="h # nccl-numa: host-side mapping"|' \
  "$fix/hwloc/epyc-ref-host.xml" >"$tmp/marker.xml"
nn_run 30 discover --no-cuda --xml "$tmp/marker.xml"
expect_rc 0 "discover, marker in HostName"
printf '%s\n' "$out" >"$tmp/marker.conf"
check "the marker is escaped" "grep -qF 'on h \\x23 nccl-numa\\x3a host-side mapping, from hwloc XML' '$tmp/marker.conf'"
timeout 30 "$cli" check-config "$tmp/marker.conf" >"$tmp/cc.out" 2>&1
check "check-config reads it as a host's mapping, not host-side" \
  "grep -q ': ok (' '$tmp/cc.out' && ! grep -q 'host-side' '$tmp/cc.out'"

nn_finish "discover hostile input: ok"
