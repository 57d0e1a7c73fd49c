#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# nccl-numa exec --bind-for sglang|vllm: the engine's own NUMA binding options, with the
# NUMA node of each GPU the job sees (CUDA_VISIBLE_DEVICES, in the engine's order; the whole
# mapping when unset), appended to the command's arguments (sglang --numa-node N...,
# vllm --numa-bind --numa-bind-nodes N...); nothing added, with the reason, when this OS lacks
# one of the nodes (a fake sysfs under --sysfs-root), when the command already gives the option,
# or without gpu lines. The command prints the arguments it received, one per line.
. "$(dirname "$0")/helpers/lib.sh"
nn_build_cli
nn_tmp nn-exec-bind
unset NCCL_TUNER_PLUGIN NCCL_ENV_PLUGIN NCCL_NUMA_CONFIG NCCL_TOPO_FILE CUDA_VISIBLE_DEVICES
printf 'gpu 0 bus=01:00.0 numa=0\ngpu 1 bus=02:00.0 numa=0\ngpu 2 bus=81:00.0 numa=1\ngpu 3 bus=82:00.0 numa=1\n' \
  >"$tmp/m.conf"
printf '# no gpu lines\n' >"$tmp/empty.conf"
mkdir -p "$tmp/two/sys/devices/system/node/node0" "$tmp/two/sys/devices/system/node/node1" \
  "$tmp/one/sys/devices/system/node/node0"

# run CONFIG ARGS...: exec with CONFIG and ARGS up to '--', then a command echoing its argv
# (after "ENGINE"); $rc, $out (the arguments, space-separated), $err
run() {
  local conf=$1
  shift
  "$CLI" exec --config "$conf" "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  out=$(tr '\n' ' ' <"$tmp/out")
  out=${out% }
  err=$(cat "$tmp/err")
}
argv=(sh -c 'printf "%s\n" "$@"; [ -n "$NCCL_TUNER_PLUGIN" ] || echo "NO-PLUGIN-VARIABLE"' ENGINE)

run "$tmp/m.conf" --bind-for sglang --sysfs-root "$tmp/two" -- "${argv[@]}" --tp 4
check "sglang: --numa-node with each GPU's node appended" "[ $rc -eq 0 ] && [ \"\$out\" = '--tp 4 --numa-node 0 0 1 1' ]"
check "sglang: stderr says what was appended" \
  "grep -qx 'nccl-numa exec: --bind-for sglang: appended --numa-node 0 0 1 1 (the NUMA node of each GPU of the mapping: CUDA_VISIBLE_DEVICES is unset)' <<<\"\$err\""
run "$tmp/m.conf" --bind-for=vllm --sysfs-root="$tmp/two" -- "${argv[@]}" serve m
check "vllm: --numa-bind --numa-bind-nodes appended" "[ $rc -eq 0 ] && [ \"\$out\" = 'serve m --numa-bind --numa-bind-nodes 0 0 1 1' ]"
run "$tmp/m.conf" --bind-for vllm --sysfs-root "$tmp/two" -- "${argv[@]}" serve m --numa-bind
check "vllm: --numa-bind given: only the node list appended" \
  "[ \"\$out\" = 'serve m --numa-bind --numa-bind-nodes 0 0 1 1' ]"

# The reference machine's two TP=4 servers, one per socket (GPUs 0-3 on node 1, 4-7 on node 0):
# each engine numbers its own GPUs 0-3, so each gets its socket's node four times
ref="$root/test/fixtures/config/reference.conf"
CUDA_VISIBLE_DEVICES=4,5,6,7 run "$ref" --bind-for vllm --sysfs-root "$tmp/two" -- "${argv[@]}" serve m --tp 4
check "socket-0 server, vllm: nodes 0 0 0 0" "[ $rc -eq 0 ] && [ \"\$out\" = 'serve m --tp 4 --numa-bind --numa-bind-nodes 0 0 0 0' ]"
check "socket-0 server: stderr names the visible GPUs" \
  "grep -q 'appended --numa-bind --numa-bind-nodes 0 0 0 0 (the NUMA node of each GPU the job sees, in the engine.s order: CUDA_VISIBLE_DEVICES=4,5,6,7 is the mapping.s GPUs 4 5 6 7)' <<<\"\$err\""
CUDA_VISIBLE_DEVICES=4,5,6,7 run "$ref" --bind-for sglang --sysfs-root "$tmp/two" -- "${argv[@]}" --tp 4
check "socket-0 server, sglang: nodes 0 0 0 0" "[ \"\$out\" = '--tp 4 --numa-node 0 0 0 0' ]"
CUDA_VISIBLE_DEVICES=0,1,2,3 run "$ref" --bind-for vllm --sysfs-root "$tmp/two" -- "${argv[@]}" serve m --tp 4
check "socket-1 server, vllm: nodes 1 1 1 1" "[ \"\$out\" = 'serve m --tp 4 --numa-bind --numa-bind-nodes 1 1 1 1' ]"
CUDA_VISIBLE_DEVICES=0,1,2,3 run "$ref" --bind-for sglang --sysfs-root "$tmp/two" -- "${argv[@]}" --tp 4
check "socket-1 server, sglang: nodes 1 1 1 1" "[ \"\$out\" = '--tp 4 --numa-node 1 1 1 1' ]"
# nothing names the job's GPUs: the whole mapping's list, and the --tp 4 it does not fit is said
run "$ref" --bind-for sglang --sysfs-root "$tmp/two" -- "${argv[@]}" --tp 4
check "--tp 4, no device list: all eight appended, and said" \
  "[ \"\$out\" = '--tp 4 --numa-node 1 1 1 1 0 0 0 0' ] && grep -qF 'asks for tensor parallelism 4, but nothing names the job' <<<\"\$err\""
CUDA_VISIBLE_DEVICES=5,0 run "$ref" --bind-for sglang --sysfs-root "$tmp/two" -- "${argv[@]}"
check "CUDA's order, not the mapping's: 5,0 -> 0 1" "[ \"\$out\" = '--numa-node 0 1' ]"
# a guest with one NUMA node: its node 0 is not the mapping's (host) node 0, so neither server is
# bound (one rule both ways)
CUDA_VISIBLE_DEVICES=4,5,6,7 run "$ref" --bind-for vllm --sysfs-root "$tmp/one" -- "${argv[@]}" serve m
check "one-node guest, socket-0 server: nothing added either" \
  "[ \"\$out\" = 'serve m' ] && grep -qF \"its nodes are not the mapping's\" <<<\"\$err\""
CUDA_VISIBLE_DEVICES=0,1,2,3 run "$ref" --bind-for sglang --sysfs-root "$tmp/one" -- "${argv[@]}" --tp 4
check "one-node guest, socket-1 server: nothing added, node 1 named" \
  "[ \"\$out\" = '--tp 4' ] && grep -qF 'nothing added: this OS has no NUMA node 1' <<<\"\$err\""
CUDA_VISIBLE_DEVICES=GPU-8f2b3c1d run "$ref" --bind-for sglang --sysfs-root "$tmp/two" -- "${argv[@]}"
check "UUIDs without a driver: nothing added, and why" \
  "[ -z \"\$out\" ] && grep -qF 'nothing added: CUDA_VISIBLE_DEVICES=GPU-8f2b3c1d: UUID or MIG entries need the CUDA driver' <<<\"\$err\""

# nothing added, the command run unchanged, the reason said
run "$tmp/m.conf" --bind-for sglang --sysfs-root "$tmp/one" -- "${argv[@]}" --tp 4
check "one NUMA node in this OS: nothing added" "[ $rc -eq 0 ] && [ \"\$out\" = '--tp 4' ]"
check "one NUMA node: the reason names node 1" \
  "grep -qF 'nothing added: this OS has no NUMA node 1 ($tmp/one/sys/devices/system/node/node1 absent)' <<<\"\$err\""
run "$tmp/m.conf" --bind-for sglang --sysfs-root "$tmp/two" -- "${argv[@]}" --numa-node=1 1 0 0
check "sglang: --numa-node already given: nothing added" \
  "[ \"\$out\" = '--numa-node=1 1 0 0' ] && grep -q 'the command already gives --numa-node' <<<\"\$err\""
run "$tmp/empty.conf" --bind-for vllm --sysfs-root "$tmp/two" -- "${argv[@]}" serve m
check "no gpu lines: nothing added" "[ \"\$out\" = 'serve m' ] && grep -q 'the mapping has no gpu lines' <<<\"\$err\""
# the control: without --bind-for the arguments are the command's own
run "$tmp/m.conf" --sysfs-root "$tmp/two" -- "${argv[@]}" --tp 4
check "without --bind-for: nothing appended, nothing said" "[ \"\$out\" = '--tp 4' ] && [ -z \"\$err\" ]"

# usage errors
run "$tmp/m.conf" --bind-for tgi -- "${argv[@]}"
check "unknown engine: exit 2, named" "[ $rc -eq 2 ] && grep -q \"bind-for 'tgi': expected sglang or vllm\" <<<\"\$err\""
run "$tmp/m.conf" --bind-for
check "--bind-for without a value: exit 2" "[ $rc -eq 2 ] && grep -qF -- \"'--bind-for' needs a value\" <<<\"\$err\""
"$CLI" env --config "$tmp/m.conf" --bind-for sglang >/dev/null 2>"$tmp/err"
check "env has no --bind-for" "[ $? -eq 2 ] && grep -q \"unknown option '--bind-for'\" '$tmp/err'"
# check mentions it when this OS has every node of a mapping on two or more nodes, not otherwise
if command -v python3 >/dev/null; then
  spec='port 0000:00:1c.0 portnum=1\ndev 0000:00:1c.0/0000:01:00.0\ndev 0000:00:1c.0/0000:02:00.0\nnode 0 cpus=0-3\n'
  printf "${spec}node 1 cpus=4-7\n" | nn_sysfs_tree "$tmp/g2"
  printf "$spec" | nn_sysfs_tree "$tmp/g1"
  printf 'gpu 0 bus=01:00.0 numa=0\ngpu 1 bus=02:00.0 numa=1\n' >"$tmp/g.conf"
  "$CLI" check --no-cuda --nccl-version 2.28.9 --sysfs-root "$tmp/g2" --config "$tmp/g.conf" >"$tmp/c2" 2>&1
  "$CLI" check --no-cuda --nccl-version 2.28.9 --sysfs-root "$tmp/g1" --config "$tmp/g.conf" >"$tmp/c1" 2>&1
  check "check: --bind-for mentioned where this OS has nodes 0 and 1" \
    "grep -q 'node themselves: nccl-numa exec --bind-for sglang|vllm (adds the list 0 1)' '$tmp/c2'"
  check "check: not mentioned where this OS lacks node 1" "! grep -q -- '--bind-for' '$tmp/c1'"
fi
nn_finish "passed: --bind-for appends each engine's own NUMA binding, only where this OS has the nodes"
