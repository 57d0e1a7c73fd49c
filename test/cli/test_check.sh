#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# `nccl-numa check` on fake machines built at run time (sysfs trees, cpuinfo, mappings,
# topology files): a good guest and a bare-metal AMD host that hits NCCL's socket-link hazard
# (their exact reports are golden cases, test/golden/check), then one case per problem, each
# with its message and exit 1.
# NCCL_NUMA_BIN overrides the CLI under test (default build/nccl-numa).
. "$(dirname "$0")/helpers/lib.sh"
nn_cli
command -v python3 >/dev/null || nn_skip "python3 is needed to build the sysfs fixtures"
nn_tmp
unset NCCL_TOPO_FILE NCCL_NUMA_CONFIG NCCL_ALGO NCCL_PROTO
# check ARGS...: runs `nccl-numa check` (stdout and stderr together); sets $rc, $out.
# (Replaces lib.sh's check NAME EXPR, which this test does not use.)
check() { timeout 30 "$cli" check --no-cuda --nccl-version 2.28.9 "$@" >"$tmp/out" 2>&1; rc=$?; out=$(cat "$tmp/out"); }
cpuinfo() {   # cpuinfo ROOT VENDOR FAMILY MODEL
  mkdir -p "$1/proc"
  printf 'processor\t: 0\nvendor_id\t: %s\ncpu family\t: %s\nmodel\t\t: %s\n\n' "$2" "$3" "$4" >"$1/proc/cpuinfo"
}
has_problem() {   # has_problem NAME TEXT: exit 1 and a PROBLEM line containing TEXT
  if [ "$rc" -eq 1 ] && grep -F -- "  PROBLEM: " "$tmp/out" | grep -qF -- "$2"; then echo "ok $1"
  else fail "$1: exit $rc, no problem '$2' in:"; cat "$tmp/out"; fi
}

# The reference guest (8 GPUs, numa_node -1, one NUMA node) and its good mapping.
guest=$tmp/guest
{ for i in 0 1 2 3; do echo "port 0000:00:10.$i portnum=$((i + 5))"; echo "port 0000:00:1c.$i portnum=$((i + 1))"; done
  for i in 1 2 3 4 5 6 7 8; do echo "dev 0000:00:1c.0/0000:0$i:00.0"; done
  echo "dev 0000:00:1f.0 vendor=0x8086 class=0x060100"
  echo "node 0 cpus=0-15"; } | nn_sysfs_tree "$guest"
cpuinfo "$guest" AuthenticAMD 25 17
good=$tmp/good.conf
{ echo "cpu vendor=AuthenticAMD family=25 model=17"
  for i in 0 1 2 3; do echo "gpu $i bus=0000:0$((i + 1)):00.0 numa=1"; done
  for i in 4 5 6 7; do echo "gpu $i bus=0000:0$((i + 1)):00.0 numa=0"; done; } >"$good"

# The exact reports of a good guest and of the bare-metal hazard are golden cases
# (test/golden/check/ref-guest-zen3-2.28.9, bare-amd-no-mapping-2.28.9); here what they lead to.
check --sysfs-root "$guest" --config "$good"
[ "$rc" -eq 0 ] && grep -qx "Result: 0 problems" "$tmp/out" && echo "ok good guest: no problem, exit 0" || fail "good guest (exit $rc): $out"

# One socket's GPUs of the shipped example (--visible-devices, else CUDA_VISIBLE_DEVICES): judged
# alone, as the plugin does, and served; the summary says what that changes. The example's numa
# lines are the host's CPUs (0-63), which this 16-CPU guest lacks: a PROBLEM, and no pinning.
check --sysfs-root "$guest" --config "$root/docs/examples/proxmox-epyc-8gpu.conf" --visible-devices 4,5,6,7
sum=$(sed -n '/^summary:/,$p' "$tmp/out" | tr '\n' ' ' | sed 's/   */ /g')
[ "$rc" -eq 1 ] && grep -qx "  devices: CUDA_VISIBLE_DEVICES=4,5,6,7: 4 GPUs, all on NUMA node 0; NCCL keeps only these of the file, so they are judged alone" "$tmp/out" \
  && grep -qx "  topology served: mode=auto, all GPUs on one NUMA node" "$tmp/out" \
  && grep -qF "summary: what nccl-numa changes for this job on NCCL 2.28.9: NCCL gets the topology file, which leaves its rings and trees as they are (ring 2 x 24.0 GB/s, tree 2 x 24.0 GB/s); its CPU affinity names CPUs this OS does not have online" <<<"$sum" \
  && echo "ok one socket's GPUs: judged alone, served, summarised" || fail "visible devices: $out"
CUDA_VISIBLE_DEVICES=4,5,6,7 check --sysfs-root "$guest" --config "$root/docs/examples/proxmox-epyc-8gpu.conf"
grep -q "devices: CUDA_VISIBLE_DEVICES=4,5,6,7" "$tmp/out" && echo "ok CUDA_VISIBLE_DEVICES honoured" || fail "CUDA_VISIBLE_DEVICES: $out"

# The same mapping found through ROOT/etc/nccl-numa.conf, and through NCCL_NUMA_CONFIG.
mkdir -p "$guest/etc" && cp "$good" "$guest/etc/nccl-numa.conf"
check --sysfs-root "$guest"
[ "$rc" -eq 0 ] && grep -qx "  $guest/etc/nccl-numa.conf" "$tmp/out" && echo "ok default /etc/nccl-numa.conf" || fail "default config: $out"
rm "$guest/etc/nccl-numa.conf"
NCCL_NUMA_CONFIG=$good check --sysfs-root "$guest"
[ "$rc" -eq 0 ] && grep -qx "  $good" "$tmp/out" && echo "ok NCCL_NUMA_CONFIG" || fail "NCCL_NUMA_CONFIG: $out"

# Serving the two-socket file with a CPU kind above the floor passes the search, but NCCL's model
# still rates it slower than its own flat view of this AMD guest (2 x 20 against 2 x 24): said, with the factor
{ echo "topology mode=numa"; echo "cpu vendor=GenuineIntel family=6 model=207"; grep '^gpu' "$good"; } >"$tmp/intel.conf"
check --sysfs-root "$guest" --config "$tmp/intel.conf"
grep -qx "  topology served: mode=numa (2 NUMA nodes)" "$tmp/out" \
  && grep -qx "    file with 2 CPU nodes:     ring 2 x 20.0 GB/s, 2 socket crossings | tree 2 x 20.0 GB/s  <- served" "$tmp/out" \
  && grep -qxF "  WARNING: topology mode=numa serves a file NCCL's model rates worse (NCCL 2.28.9): NCCL's model makes a 4 GiB all-reduce 20% slower with this file than with its own view; \`topology mode=auto\` would withhold it, so keep mode=numa only where \`nccl-numa ab\` measures it faster" "$tmp/out" \
  && echo "ok mode=numa with a 40 GB/s CPU kind: search passes, the WARNING gives the factor" || fail "intel mode=numa: $out"
has_problem "mode=numa slower by NCCL's model: a problem" "topology mode=numa serves a file NCCL's model rates worse (NCCL 2.28.9): NCCL's model makes a 4 GiB all-reduce 20% slower"
# A CPU kind whose served file NCCL's model rates no slower: no warning, no problem
{ echo "topology mode=numa"; echo "cpu vendor=GenuineIntel family=6 model=207"; grep '^gpu' "$good"; } >"$tmp/intel-same.conf"
check --sysfs-root "$guest" --config "$tmp/intel-same.conf" --cpuinfo "$NCCL_NUMA_CPUINFO"
[ "$rc" -eq 0 ] && ! grep -q "WARNING" "$tmp/out" && echo "ok mode=numa rated no slower (Intel's own view 2 x 20): no warning" \
  || fail "intel on intel mode=numa: $out"
# ... but forcing it with the AMD CPU kind is the hazard.
{ echo "topology mode=numa"; cat "$good"; } >"$tmp/amd-numa.conf"
check --sysfs-root "$guest" --config "$tmp/amd-numa.conf"
has_problem "mode=numa on AMD: hazard" "NCCL's graph search fails on the topology NCCL will read (NCCL 2.28.9): GPUs under 2 CPU nodes, socket link modelled at 16 GB/s, below the 18 GB/s floor"
has_problem "mode=numa on AMD: the factor" "runs 1 channel; NCCL's model makes a 4 GiB all-reduce 480x slower with this file than with its own view"
grep -qF 'let `topology mode=auto` choose the file' "$tmp/out" && grep -qF 'fix: remove `topology mode=numa` from the mapping: mode=auto then gives the job no file: NCCL'"'"'s own view, ring 2 x 24.0 GB/s' "$tmp/out" \
  && echo "ok hazard: way out given" || fail "hazard: no way out"
# NCCL 2.31.2 models Zen 3/4 at 24 GB/s: the served search passes (1 x 24, against NCCL's own 2 x 24)
check --sysfs-root "$guest" --config "$tmp/amd-numa.conf" --nccl-version 2.31.2
grep -qx "    file with 2 CPU nodes:     ring 1 x 24.0 GB/s, 2 socket crossings | tree 1 x 24.0 GB/s  <- served" "$tmp/out" \
  && echo "ok 2.31.2: Zen 3/4 passes the search" || fail "2.31.2 Zen 3/4: $out"
has_problem "2.31.2 Zen 3/4: half the channels, 2x slower" "(NCCL 2.31.2): NCCL's model makes a 4 GiB all-reduce 2.0x slower"
# NCCL older than 2.28.7 loads no env plugin: the verdict cannot apply, and no hazard is raised for it
check --sysfs-root "$guest" --config "$tmp/amd-numa.conf" --nccl-version 2.27.5
[ "$rc" -eq 0 ] && grep -qF "  no topology served: NCCL 2.27.5 has no env plugin (it came in 2.28.7), so neither the topology nor the mapping's \`env\` lines can apply" "$tmp/out" \
  && grep -qF "nccl-numa topo --config FILE -o FILE.xml, then NCCL_TOPO_FILE=FILE.xml" "$tmp/out" \
  && ! grep -q "topology served: mode=numa" "$tmp/out" && echo "ok 2.27.5: no env plugin, said instead of the verdict" \
  || fail "2.27.5: $out"
# a VM: the CPU kind NCCL detects is the guest's CPUID
printf 'processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 15\nmodel\t\t: 107\nflags\t\t: fpu hypervisor\n\n' >"$tmp/vmcpu"
check --sysfs-root "$guest" --config "$tmp/amd-numa.conf" --nccl-version 2.31.2 --cpuinfo "$tmp/vmcpu"
grep -qF "virtual machine: NCCL detects the guest's CPUID: AuthenticAMD family 15 model 107 -> AMD Zen 1/2 class (familyid 15), socket link 16 GB/s on NCCL 2.31.2" "$tmp/out" \
  && grep -qF '`cpu: host` passes it' "$tmp/out" && echo "ok VM: guest CPUID reported" || fail "VM CPU kind: $out"
# With GPUs of compute capability 9.0 the floor is 3 GB/s: no hazard.
sed 's/\(^gpu .*\)$/\1 sm=90/' "$tmp/amd-numa.conf" >"$tmp/sm90.conf"
check --sysfs-root "$guest" --config "$tmp/sm90.conf"
grep -qF "compute capability 9.0; search floor 3 GB/s" "$tmp/out" && ! grep -q "search fails" "$tmp/out" \
  && echo "ok sm=90: floor 3 GB/s, the search passes" || fail "sm=90: $out"
has_problem "sm=90: 1 x 15 against 2 x 24 is slower by NCCL's model" "NCCL's model makes a 4 GiB all-reduce 3.2x slower"

# Bare metal, AMD, GPUs on two sockets and no mapping: NCCL's own search fails.
bm=$tmp/bare
printf '%s\n' "port 0000:00:01.1" "port 0000:80:01.1" "dev 0000:00:01.1/0000:01:00.0 numa=0" \
  "dev 0000:00:01.1/0000:02:00.0 numa=0" "dev 0000:80:01.1/0000:81:00.0 numa=1" "dev 0000:80:01.1/0000:82:00.0 numa=1" \
  "node 0 cpus=0-31" "node 1 cpus=32-63" | nn_sysfs_tree "$bm"
cpuinfo "$bm" AuthenticAMD 25 17
check --sysfs-root "$bm"
has_problem "bare-metal AMD, no mapping: NCCL's own search fails" "socket link modelled at 16 GB/s, below the 18 GB/s floor"
cpuinfo "$bm" GenuineIntel 6 207
check --sysfs-root "$bm"
[ "$rc" -eq 0 ] && echo "ok bare-metal Intel model 207: no hazard" || fail "bare-metal intel: $out"
check --sysfs-root "$bm" --cpuinfo "$guest/proc/cpuinfo"
has_problem "--cpuinfo overrides ROOT/proc/cpuinfo" "socket link modelled at 16 GB/s"
# Zen 5 (Turin) on 2.31.2: a 32 GB/s link, above the floor, and still the tree search fails
# (nccl-oracle, dev 2.31.0: ring 2 x 15 cut to 1, tree none; docs/user/host-to-guest.md says so)
cpuinfo "$bm" AuthenticAMD 26 2
check --sysfs-root "$bm" --nccl-version 2.31.2
has_problem "bare-metal Zen 5 on 2.31.2" "(NCCL 2.31.2): GPUs under 2 CPU nodes, socket link modelled at 32 GB/s, above the 18 GB/s floor for compute capability 10.0 (assumed) (ring ok, tree fails)"
cpuinfo "$bm" GenuineIntel 6 207

# One case per problem.
check --sysfs-root "$guest"
has_problem "numa_node -1 without a mapping" "8 GPUs with numa_node -1 (0000:01:00.0 0000:02:00.0 0000:03:00.0 0000:04:00.0 ...) and no valid mapping to give their socket"
grep -qF "  - make a mapping: nccl-numa discover > new && nccl-numa check-config new &&" "$tmp/out" \
  && ! grep -qF -- "--proxmox-vm" "$tmp/out" && echo "ok next step on bare metal: discover, check-config, mv" || fail "next step discover: $out"
check --sysfs-root "$guest" --cpuinfo "$tmp/vmcpu"
grep -qF "  - make a mapping on the Proxmox host" "$tmp/out" \
  && grep -qxF "    nccl-numa discover --proxmox-vm /etc/pve/qemu-server/<vmid>.conf > host.map, then in the VM" "$tmp/out" \
  && grep -qxF "    nccl-numa discover --guest --host-map host.map > new && nccl-numa check-config new &&" "$tmp/out" \
  && ! grep -qF "discover > new" "$tmp/out" && echo "ok next step in a VM: the host-to-guest path" || fail "next step in a VM: $out"

printf 'gpu 0 bus=0000:01:00.0 numa=1\ngpu 0 bus=0000:02:00.0 numa=1\n' >"$tmp/dup.conf"
check --sysfs-root "$guest" --config "$tmp/dup.conf"
has_problem "invalid mapping" "mapping invalid: $tmp/dup.conf:2:"

(cd "$root/test/fixtures/proxmox" && timeout 30 "$cli" discover --no-cuda --proxmox-vm 101.conf --pci-mapping pci.cfg \
   --node pve1 --xml ../hwloc/epyc-ref-host.xml) >"$tmp/host.map"
check --sysfs-root "$guest" --config "$tmp/host.map"
has_problem "host-side mapping" "mapping $tmp/host.map is a host-side mapping (no bus= for this machine); complete it here with: nccl-numa discover --guest --host-map $tmp/host.map"

sed 's/^gpu 7 bus=0000:08:00.0/gpu 7 bus=0000:09:00.0/' "$good" >"$tmp/absent.conf"
check --sysfs-root "$guest" --config "$tmp/absent.conf"
has_problem "bus id absent" "$tmp/absent.conf:9: gpu 7 bus=0000:09:00.0: no such PCI device on this machine"
has_problem "GPU missing from the mapping" "GPU 0000:08:00.0 is not in the mapping $tmp/absent.conf"

sed 's/^gpu 7 bus=0000:08:00.0/gpu 7 bus=0000:00:1f.0/' "$good" >"$tmp/notgpu.conf"
check --sysfs-root "$guest" --config "$tmp/notgpu.conf"
has_problem "bus id not a GPU" "$tmp/notgpu.conf:9: gpu 7 bus=0000:00:1f.0: not an NVIDIA GPU (vendor 0x8086, class 0x060100)"

{ echo "cpu vendor=AuthenticAMD family=25 model=17"; grep '^gpu' "$good" | sed 's/^gpu 0 bus=0000:01/gpu 0 bus=0000:02/; s/^gpu 1 bus=0000:02/gpu 1 bus=0000:01/'; } >"$tmp/order.conf"
check --sysfs-root "$guest" --config "$tmp/order.conf"
has_problem "indices not in bus order" "mapping $tmp/order.conf: gpu indices do not follow PCI bus order"

printf 'gpu 0 bus=0000:01:00.0 numa=1\ngpu 1 bus=0000:02:00.0 numa=1\ngpu 2 bus=0000:81:00.0 numa=1\ngpu 3 bus=0000:82:00.0 numa=1\n' >"$tmp/wrongnuma.conf"
check --sysfs-root "$bm" --config "$tmp/wrongnuma.conf"
has_problem "numa= against sysfs" "$tmp/wrongnuma.conf:1: gpu 0 bus=0000:01:00.0: numa=1, but sysfs says numa_node 0"

printf '%s\n' "dev 0000:00:1f.0 vendor=0x8086 class=0x060100" | nn_sysfs_tree "$tmp/nogpu"
check --sysfs-root "$tmp/nogpu"
has_problem "no GPU" "no NVIDIA GPU found under $tmp/nogpu/sys/bus/pci/devices"

check --sysfs-root "$tmp/nonexistent"
[ "$rc" -eq 1 ] && grep -qF "nccl-numa check: $tmp/nonexistent/sys/bus/pci/devices: cannot read" "$tmp/out" \
  && echo "ok unreadable sysfs" || fail "unreadable sysfs: $rc $out"

# Topology files: NCCL_TOPO_FILE (what it says, disagreements, broken files) and virtualTopology.xml.
cat >"$tmp/topo.xml" <<'X'
<system version="1">
 <cpu numaid="0" affinity="0000ffff" arch="x86_64" vendor="AuthenticAMD" familyid="25" modelid="17">
  <pci busid="0000:01:00.0" class="0x030000"/>
  <pci busid="0000:09:00.0" class="0x030000"/>
 </cpu>
 <cpu numaid="1" affinity="ffff0000" arch="x86_64" vendor="AuthenticAMD" familyid="25" modelid="17">
  <pci busid="0000:02:00.0" class="0x030000"/>
 </cpu>
</system>
X
NCCL_TOPO_FILE=$tmp/topo.xml check --sysfs-root "$guest" --config "$good"
has_problem "NCCL_TOPO_FILE lists an absent GPU" "NCCL_TOPO_FILE lists GPU 0000:09:00.0, which is not present on this machine"
has_problem "NCCL_TOPO_FILE: hazard judged on it" "GPUs under 2 CPU nodes, socket link modelled at 16 GB/s"
grep -qx "    GPU 0000:03:00.0 is not in it: NCCL attaches it from sysfs, with no socket" "$tmp/out" && echo "ok NCCL_TOPO_FILE: missing GPUs noted" || fail "topo: missing GPU note"
grep -qx "  NCCL_TOPO_FILE $tmp/topo.xml: 2 CPU nodes holding GPUs, vendor AuthenticAMD" "$tmp/out" && echo "ok NCCL_TOPO_FILE summarised" || fail "topo summary: $out"
printf '<system version="1"><cpu numaid="0">\n' >"$tmp/broken.xml"
NCCL_TOPO_FILE=$tmp/broken.xml check --sysfs-root "$guest" --config "$good"
has_problem "NCCL_TOPO_FILE broken" "NCCL_TOPO_FILE $tmp/broken.xml: does not parse as XML (NCCL then fails communicator creation)"
NCCL_TOPO_FILE=$tmp/none.xml check --sysfs-root "$guest" --config "$good"
has_problem "NCCL_TOPO_FILE missing" "NCCL_TOPO_FILE $tmp/none.xml: cannot open: No such file or directory"
printf '<!DOCTYPE system [<!ENTITY a "aaaa">]>\n<system version="1"><cpu numaid="0">&a;</cpu></system>\n' >"$tmp/doctype.xml"
NCCL_TOPO_FILE=$tmp/doctype.xml check --sysfs-root "$guest" --config "$good"
has_problem "NCCL_TOPO_FILE with a DOCTYPE" "NCCL_TOPO_FILE $tmp/doctype.xml: has a DOCTYPE, which nccl-numa does not read"
head -c 2000000 /dev/zero | tr '\0' ' ' >"$tmp/huge.xml"
NCCL_TOPO_FILE=$tmp/huge.xml check --sysfs-root "$guest" --config "$good"
has_problem "NCCL_TOPO_FILE too large" "NCCL_TOPO_FILE $tmp/huge.xml: file is 2000000 bytes, over the 1 MiB limit: refused"
mkdir -p "$guest/var/run/nvidia-topologyd"
sed 's/0000:09:00.0/0000:03:00.0/' "$tmp/topo.xml" >"$guest/var/run/nvidia-topologyd/virtualTopology.xml"
check --sysfs-root "$guest" --config "$good"
[ "$rc" -eq 0 ] && grep -qF "/var/run/nvidia-topologyd/virtualTopology.xml: present; NCCL reads it when no NCCL_TOPO_FILE is given" "$tmp/out" \
  && grep -qx "    GPU 0000:03:00.0 on cpu numaid 0" "$tmp/out" && echo "ok virtualTopology.xml reported" || fail "virtualTopology: $out"
echo "<system" >"$guest/var/run/nvidia-topologyd/virtualTopology.xml"
check --sysfs-root "$guest" --config "$good"
has_problem "broken virtualTopology.xml" "virtualTopology.xml $guest/var/run/nvidia-topologyd/virtualTopology.xml: does not parse as XML"

# A mapping with a `cpu` line on a machine whose cpuinfo is unreadable: NCCL's own detection
# is judged with the mapping's CPU kind, never "no `cpu` line in the mapping".
nocpu=$tmp/nocpu
printf '%s\n' "port 0000:00:01.1" "port 0000:80:01.1" "dev 0000:00:01.1/0000:01:00.0 numa=0" \
  "dev 0000:80:01.1/0000:81:00.0 numa=1" "node 0 cpus=0-31" "node 1 cpus=32-63" | nn_sysfs_tree "$nocpu"
printf 'cpu vendor=AuthenticAMD family=25 model=17\ngpu 0 bus=01:00.0 numa=0\ngpu 1 bus=81:00.0 numa=1\n' >"$tmp/cpu.conf"
check --sysfs-root "$nocpu" --config "$tmp/cpu.conf"
if ! grep -q "CPU kind unknown" "$tmp/out" && ! grep -q "no \`cpu\` line" "$tmp/out" \
   && grep -qxF "  CPU kind from the mapping's \`cpu\` line ($tmp/cpu.conf:1): $nocpu/proc/cpuinfo unreadable" "$tmp/out" \
   && grep -qF "NCCL models the AuthenticAMD socket link at 16 GB/s" "$tmp/out"; then
  echo "ok cpu line used when cpuinfo is unreadable"
else fail "cpu line with unreadable cpuinfo:"; cat "$tmp/out"; fi
check --sysfs-root "$nocpu"
grep -qF "CPU kind unknown: $nocpu/proc/cpuinfo unreadable and no \`cpu\` line in the mapping" "$tmp/out" \
  && echo "ok no cpu line, no cpuinfo: says both" || { fail "no cpu line, no cpuinfo:"; cat "$tmp/out"; }

# The mapping found as the plugin finds it, NCCL_TUNER_CONFIG_FILE included.
printf 'allreduce,0,10,bogus,simple,2,1,-1\n' >"$tmp/bad.csv"
NCCL_TUNER_CONFIG_FILE=$tmp/bad.csv NCCL_NUMA_CONFIG=$good check --sysfs-root "$guest"
has_problem "bad NCCL_TUNER_CONFIG_FILE named with its line" "$tmp/bad.csv:1: unknown algorithm 'bogus'"
grep -qxF "  NCCL_TUNER_CONFIG_FILE $tmp/bad.csv" "$tmp/out" && grep -qxF "  $good" "$tmp/out" \
  && echo "ok NCCL_NUMA_CONFIG and NCCL_TUNER_CONFIG_FILE shown" || fail "config sources not shown: $out"

# A mapping others could have written is not used; an env line a mapping may not serve is a
# problem (test_trust.sh has the other commands).
cp "$good" "$tmp/open.conf" && chmod 0666 "$tmp/open.conf"
check --sysfs-root "$guest" --config "$tmp/open.conf"
has_problem "mapping of mode 0666 refused" "$tmp/open.conf: not trusted: writable by group and others (mode 0666)"
{ cat "$good"; echo "env NCCL_NET_PLUGIN=/tmp/evil.so"; } >"$tmp/plugin.conf"
check --sysfs-root "$guest" --config "$tmp/plugin.conf"
has_problem "env NCCL_NET_PLUGIN refused" \
  "$tmp/plugin.conf:10: env: NCCL_NET_PLUGIN refused, not served: it names a library for NCCL to load"
# NCCL_ALGO / NCCL_PROTO decide before any tuner: named, with where they came from and the
# rules they keep from firing; not a problem of its own, and no section when neither is set.
{ cat "$good"; echo "rule coll=allreduce algo=tree proto=ll"; echo "rule coll=allgather algo=ring";
  echo "env NCCL_PROTO=^ll"; } >"$tmp/forced.conf"
NCCL_ALGO=ring check --sysfs-root "$guest" --config "$tmp/forced.conf"
grep -qxF "Who decides first:" "$tmp/out" \
  && grep -qxF "  NCCL_ALGO=ring (from the environment) decides before any tuner for broadcast, reduce, allgather, reducescatter, allreduce: 1 rule choosing what it leaves out cannot fire there (first $tmp/forced.conf:10)" "$tmp/out" \
  && grep -qxF "  NCCL_PROTO=^ll (from $tmp/forced.conf:12's env line) decides before any tuner for broadcast, reduce, allgather, reducescatter, allreduce: 1 rule choosing what it leaves out cannot fire there (first $tmp/forced.conf:10)" "$tmp/out" \
  && ! grep -q "PROBLEM: .*NCCL_ALGO" "$tmp/out" && echo "ok NCCL_ALGO and the env line's NCCL_PROTO named" || { fail "who decides first (exit $rc):"; cat "$tmp/out"; }
check --sysfs-root "$guest" --config "$good"
grep -q "decides before any tuner\|Who decides first" "$tmp/out" && fail "neither set, yet a 'Who decides first' section" \
  || echo "ok neither set: no section"

# Usage.
# The mapping's `numa` lines against this OS (--sysfs-root): CPUs not online, a node the OS
# lacks, and distinct per-node sets in a one-node guest; the summary then promises no pinning.
{ echo "numa 0 cpus=0-7"; echo "numa 1 cpus=8-15"; cat "$good"; } >"$tmp/split.conf"
check --sysfs-root "$guest" --config "$tmp/split.conf"
has_problem "one-node OS, distinct sets" "split.conf:2: numa 1 cpus=8-15 differs from line 1's cpus=0-7, but this OS has one NUMA node"
{ echo "numa 0 cpus=0-31"; echo "numa 1 cpus=0-31"; cat "$good"; } >"$tmp/wide.conf"
check --sysfs-root "$guest" --config "$tmp/wide.conf" --visible-devices 0,1,2,3
has_problem "CPUs the OS lacks" "wide.conf:1: numa 0 cpus=0-31: CPUs 16-31 are not online on this OS (online: 0-15)"
sum=$(sed -n '/^summary:/,$p' "$tmp/out" | tr '\n' ' ' | sed 's/   */ /g')
grep -qF "its CPU affinity names CPUs this OS does not have online" <<<"$sum" && ! grep -qF "it pins NCCL's threads to" <<<"$sum" \
  && echo "ok the summary promises no pinning to CPUs that are not there" || fail "summary pins absent CPUs: $out"
mkdir -p "$guest/sys/devices/system/cpu" && echo "0-11" >"$guest/sys/devices/system/cpu/online"
{ echo "numa 0 cpus=0-15"; echo "numa 1 cpus=0-15"; cat "$good"; } >"$tmp/all.conf"
check --sysfs-root "$guest" --config "$tmp/all.conf"
has_problem "offline CPUs" "all.conf:1: numa 0 cpus=0-15: CPUs 12-15 are not online on this OS (online: 0-11)"
rm "$guest/sys/devices/system/cpu/online"
check --sysfs-root "$guest" --config "$tmp/all.conf"
! grep -q "numa 0 cpus=" "$tmp/out" && echo "ok every CPU online and one set: no problem with the numa lines" \
  || fail "good numa lines flagged: $out"
# two-node OS: a numa line for a node it lacks
{ echo "numa 0 cpus=0-31"; echo "numa 2 cpus=32-63"; echo "cpu vendor=GenuineIntel family=6 model=207"
  printf '%s\n' "gpu 0 bus=0000:01:00.0 numa=0" "gpu 1 bus=0000:02:00.0 numa=0" "gpu 2 bus=0000:81:00.0 numa=2" \
    "gpu 3 bus=0000:82:00.0 numa=2"; } >"$tmp/node2.conf"
check --sysfs-root "$bm" --config "$tmp/node2.conf"
has_problem "a node the OS lacks" "node2.conf:2: numa 2: this OS has no NUMA node 2 (its nodes: 0 (cpus 0-31), 1 (cpus 32-63))"

timeout 10 "$cli" check --bogus >/dev/null 2>&1; [ $? -eq 2 ] && echo "ok usage error" || fail "usage error"
timeout 10 "$cli" check extra >/dev/null 2>&1; [ $? -eq 2 ] && echo "ok stray argument" || fail "stray argument"
timeout 10 "$cli" check --help | grep -q -- "--sysfs-root" && echo "ok --help" || fail "--help"

nn_finish "all passed" failed
