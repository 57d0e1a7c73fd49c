#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# `nccl-numa check-config`: exit codes, output on stdout/stderr, the fixtures under
# test/fixtures/config, hostile files, and every shipped example.
# NCCL_NUMA_BIN overrides the CLI under test (default build/nccl-numa).
. "$(dirname "$0")/helpers/lib.sh"
nn_cli
fix=$root/test/fixtures/config
nn_tmp

# run ARGS...: runs the CLI with a time limit, sets $rc, $out, $err
run() { nn_run 20 check-config "$@"; }

# --help and usage errors
run --help
expect_rc 0 "--help"
grep -q '^usage: nccl-numa check-config FILE \[--host-side\]' "$tmp/out" || fail "--help: no usage on stdout"
grep -q -- '--host-side' "$tmp/out" || fail "--help: --host-side not explained"
run
expect_rc 2 "no FILE"
grep -q 'missing FILE' "$tmp/err" || fail "no FILE: no message"
run --bogus "$fix/reference.conf"
expect_rc 2 "unknown option"
grep -q "unknown option '--bogus'" "$tmp/err" || fail "unknown option: not named"
run "$fix/reference.conf" "$fix/bad.conf"
expect_rc 2 "two files"

# a good file: one summary line on stdout, nothing on stderr
run "$fix/reference.conf"
expect_rc 0 "reference.conf"
[ "$out" = "$fix/reference.conf: ok (8 GPUs on 2 NUMA nodes, 3 rules, 2 env)" ] ||
  fail "reference.conf: summary is '$out'"
[ -z "$err" ] || fail "reference.conf: stderr not empty: $err"

# the same file with CRLF line ends, and after `--`
sed 's/$/\r/' "$fix/reference.conf" >"$tmp/crlf.conf"
run -- "$tmp/crlf.conf"
expect_rc 0 "CRLF"
case $out in *": ok (8 GPUs on 2 NUMA nodes, 3 rules, 2 env)") ;; *) fail "CRLF: summary '$out'" ;; esac

# a bad file: every problem, as FILE:LINE: problem, on stderr; nothing on stdout
b=$fix/bad.conf
run "$b"
expect_rc 1 "bad.conf"
[ -z "$out" ] || fail "bad.conf: stdout not empty: $out"
expect_err_line "$b:3: gpu: duplicate index 0 (first on line 2)" "bad.conf"
expect_err_line "$b:4: gpu: duplicate bus id 0000:01:00.0 (first on line 2)" "bad.conf"
expect_err_line "$b:5: rule: unknown coll 'alltoall' (expected allreduce, allgather, reducescatter, broadcast, reduce or any)" "bad.conf"
expect_err_line "$b:6: rule: bytes=1M-1K: inverted range (lower bound above upper bound)" "bad.conf"
expect_err_line "$b:7: rule: needs at least one of algo=, proto=, channels=, chunk=" "bad.conf"
grep -qF "$b:8: env: 'PATH' is not an NCCL variable name" "$tmp/err" || fail "bad.conf: env line"
expect_err_line "$b:9: topology: unknown mode 'sideways' (expected auto, numa or off)" "bad.conf"
grep -qF "$b:10: unknown directive 'frobnicate'" "$tmp/err" || fail "bad.conf: unknown directive"
expect_err_line "$b: invalid (8 problems)" "bad.conf"

# nic lines: counted in the summary; each bad one located
run "$fix/ref-nics.conf"
expect_rc 0 "ref-nics.conf"
[ "$out" = "$fix/ref-nics.conf: ok (8 GPUs on 2 NUMA nodes, 2 NICs, 0 rules, 1 env)" ] ||
  fail "ref-nics.conf: summary is '$out'"
b=$fix/bad-nics.conf
run "$b"
expect_rc 1 "bad-nics.conf"
expect_err_line "$b:2: nic: duplicate bus id 0000:01:00.0 (first on line 1)" "bad-nics.conf"
expect_err_line "$b:3: nic: bad numa '-1' (expected a NUMA node 0-1023)" "bad-nics.conf"
expect_err_line "$b:4: nic: bad name 'mlx5/1' (expected 1-63 letters, digits, '_', '.', '-' or ':', e.g. mlx5_0)" "bad-nics.conf"
expect_err_line "$b:5: nic: unknown key 'speed' (valid keys: bus, numa, name, host)" "bad-nics.conf"
expect_err_line "$b:5: nic: missing bus=" "bad-nics.conf"
expect_err_line "$b: invalid (5 problems)" "bad-nics.conf"
run --json "$fix/ref-nics.conf"
expect_rc 0 "ref-nics.conf --json"
grep -q '"nics": *2' "$tmp/out" || fail "ref-nics.conf --json: no \"nics\": 2 in $out"

# valid, but warned about (exit 0, the warning on stderr, counted in the summary):
# an empty file, as a failed `discover > FILE` leaves ...
: >"$tmp/empty.conf"
run "$tmp/empty.conf"
expect_rc 0 "empty file"
[ "$out" = "$tmp/empty.conf: ok (0 GPUs on 0 NUMA nodes, 0 rules, 0 env, 1 warning)" ] || fail "empty file: summary '$out'"
expect_err_line "$tmp/empty.conf: warning: no \`gpu\` lines: the plugin maps no GPU, so it serves no topology and no rule knows its scope (an empty file, as a failed \`nccl-numa discover > $tmp/empty.conf\` leaves?)" "empty file"
# ... and a guest mapping without `numa` lines in a guest with one NUMA node: host node 1's GPUs
# would get guest node 0's CPUs, host node 0's none (as the plugin reads sysfs: --sysfs-root)
mkdir -p "$tmp/vm/sys/devices/system/node/node0" && echo 0-15 >"$tmp/vm/sys/devices/system/node/node0/cpulist"
printf 'gpu 0 bus=01:00.0 numa=1\ngpu 1 bus=02:00.0 numa=1\ngpu 2 bus=03:00.0 numa=0\ngpu 3 bus=04:00.0 numa=0\n' >"$tmp/nonuma.conf"
run --sysfs-root "$tmp/vm" "$tmp/nonuma.conf"
expect_rc 0 "guest mapping without numa lines"
[ "$out" = "$tmp/nonuma.conf: ok (4 GPUs on 2 NUMA nodes, 0 rules, 0 env, 1 warning)" ] || fail "no numa lines: summary '$out'"
expect_err_line "$tmp/nonuma.conf: warning: GPUs of NUMA node 0 get CPUs 0-15 ($tmp/vm/sys/devices/system/node/node0/cpulist) and those of node 1 none ($tmp/vm/sys/devices/system/node/node1/cpulist: no \`numa 1 cpus=\` line, nothing readable there); in a VM these are guest nodes, not the host's, so NCCL pins one socket's ranks to every CPU and the other's to none. Add a \`numa N cpus=\` line per node (nccl-numa discover --guest writes them from the host map)" "no numa lines"
# with a line for each node (even the same CPUs, as discover --guest writes for one guest node): no warning
printf 'numa 0 cpus=0-15\nnuma 1 cpus=0-15\n' | cat - "$tmp/nonuma.conf" >"$tmp/numa.conf"
run --sysfs-root "$tmp/vm" "$tmp/numa.conf"
expect_rc 0 "guest mapping with numa lines"
[ -z "$err" ] && [ "$out" = "$tmp/numa.conf: ok (4 GPUs on 2 NUMA nodes, 0 rules, 0 env)" ] || fail "numa lines: '$out' '$err'"
# a host with both nodes in sysfs: no warning either
mkdir -p "$tmp/vm/sys/devices/system/node/node1" && echo 16-31 >"$tmp/vm/sys/devices/system/node/node1/cpulist"
run --sysfs-root "$tmp/vm" "$tmp/nonuma.conf"
[ "$rc" -eq 0 ] && [ -z "$err" ] || fail "two sysfs nodes: warned: $err"

# a host-side mapping needs --host-side
h=$fix/host-side.conf
run "$h"
expect_rc 1 "host-side without flag"
grep -qF "$h:3: gpu: missing bus= (this is a host-side mapping: check it with --host-side" "$tmp/err" ||
  fail "host-side without flag: no hint (got: $err)"
run --host-side "$h"
expect_rc 0 "host-side with flag"
[ "$out" = "$h: ok (4 GPUs on 2 NUMA nodes, 0 rules, 0 env) [host-side mapping]" ] ||
  fail "host-side with flag: summary '$out'"
run --host-side "$fix/reference.conf"
expect_rc 0 "reference.conf with --host-side (bus= and host= both given)"

# files that are not mapping files
run "$tmp/missing.conf"
expect_rc 1 "missing file"
expect_err_line "$tmp/missing.conf: cannot open: No such file or directory" "missing file"
run "$tmp"
expect_rc 1 "directory"
expect_err_line "$tmp: cannot open: a directory, not a regular file" "directory"
mkfifo "$tmp/fifo"
run "$tmp/fifo"
[ "$rc" -ne 124 ] || fail "FIFO: blocked"
expect_rc 1 "FIFO"
expect_err_line "$tmp/fifo: cannot open: a FIFO, not a regular file" "FIFO"
ln -s "$tmp/loop2" "$tmp/loop1"
ln -s "$tmp/loop1" "$tmp/loop2"
run "$tmp/loop1"
expect_rc 1 "symlink loop"
expect_err_line "$tmp/loop1: cannot open: Too many levels of symbolic links" "symlink loop"
truncate -s 17M "$tmp/big.conf"
run "$tmp/big.conf"
expect_rc 1 "17 MiB file"
expect_err_line "$tmp/big.conf: file is 17825792 bytes, over the 16 MiB limit" "17 MiB file"
head -c 200000 /dev/urandom >"$tmp/junk.conf"
run "$tmp/junk.conf"
expect_rc 1 "binary junk"
grep -q "more problems\? not shown" "$tmp/err" || fail "binary junk: list not capped (got $(wc -l <"$tmp/err") lines)"
[ "$(wc -l <"$tmp/err")" -le 102 ] || fail "binary junk: more than 100 messages printed"
if LC_ALL=C grep -q '[^[:print:]]' "$tmp/err"; then fail "binary junk: raw bytes echoed to the terminal"; fi
for i in $(seq 1 300); do echo "rule algo=ring bytes=$i-"; done >"$tmp/bytes.conf"
echo "rule algo=ring bytes=0-99999999999999999999" >>"$tmp/bytes.conf"
run "$tmp/bytes.conf"
expect_rc 1 "overflow"
expect_err_line "$tmp/bytes.conf:301: rule: bytes=0-99999999999999999999: number too large (overflows 64 bits)" "overflow"

# --nccl-version: a rule's channels= on a release that only lowers NCCL's count. The fixture's
# 4 GPUs on one node: NCCL models 2 channels per graph there, 4 for the communicator.
{ sed 's/channels=2/channels=8/' "$root/test/fixtures/explain/two-socket.conf"
  echo "rule coll=allgather bytes=1M- nodes=2- channels=64"
  echo "rule coll=broadcast channels=3"; } >"$tmp/channels.conf"
c=$tmp/channels.conf
run "$c" --nccl-version 2.31.2
expect_rc 0 "channels on 2.31.2"
expect_out_line "$c:9: note: channels=8 has no effect on NCCL 2.31.2: it takes a tuner's count only below its own (4 for this mapping's 4 GPUs on one node)" "channels above NCCL's count"
expect_out_line "$c:12: note: channels=64 can only lower NCCL 2.31.2's channel count for a call, never raise it" "a rule for another shape"
expect_out_line "$c:13: note: channels=3 can only lower NCCL 2.31.2's channel count for a call, never raise it" "channels below NCCL's count"
[ "$(grep -c 'no effect' <<<"$out")" = 1 ] || fail "channels on 2.31.2: 'no effect' said $(grep -c 'no effect' <<<"$out") times"
run "$c" --nccl-version 2.32.3
expect_out_line "$c:9: note: channels=8 has no effect on NCCL 2.32.3: it takes a tuner's count only below its own (4 for this mapping's 4 GPUs on one node)" "channels on 2.32.3"
run "$c" --nccl-version 2.30.7
expect_rc 0 "channels on 2.30.7"
[ "$out" = "$c: ok (4 GPUs on 2 NUMA nodes, 5 rules, 0 env)" ] || fail "2.30.7 replaces NCCL's count: no notes expected, got '$out'"
run "$c"
[ "$out" = "$c: ok (4 GPUs on 2 NUMA nodes, 5 rules, 0 env)" ] || fail "no --nccl-version: notes printed: '$out'"
{ cat "$c"; echo "rule coll=allreduce chunk=512K"; } >"$tmp/chunk.conf"
run "$tmp/chunk.conf" --nccl-version 2.28.9
expect_out_line "$tmp/chunk.conf:14: note: chunk= has no effect on NCCL 2.28.9: it asks no tuner for chunk sizes (getChunkSize, tuner v6, NCCL 2.30.3+)" "chunk= before getChunkSize"
run "$tmp/chunk.conf" --nccl-version 2.30.3
grep -q 'chunk=' "$tmp/out" && fail "chunk= on 2.30.3: a note where getChunkSize is asked: $out"
run "$c" --nccl-version 2.x
expect_rc 2 "bad --nccl-version"
expect_err_has "bad --nccl-version" "expected X.Y.Z"
run "$c" --nccl-version
expect_rc 2 "--nccl-version without a release"

# every shipped example validates
for ex in "$root"/examples/*.conf; do
  [ -e "$ex" ] || continue
  run "$ex"
  expect_rc 0 "example $(basename "$ex")"
done

# --nccl-version: a proto=ll128 rule the release cannot honour between PCIe-only GPUs is a note.
printf 'gpu 0 bus=01:00.0 numa=0\ngpu 1 bus=02:00.0 numa=0\nrule coll=allreduce algo=ring proto=ll128\n' > "$tmp/ll.conf"
"$cli" check-config --nccl-version 2.28.9 "$tmp/ll.conf" > "$tmp/out" 2>&1
check "check-config --nccl-version 2.28.9: the ll128 rule gets its note, the file stays ok" \
  "[ \$? -eq 0 ] && grep -qF '$tmp/ll.conf:3: note: proto=ll128 cannot take effect on NCCL 2.27-2.28' '$tmp/out'"
"$cli" check-config --nccl-version 2.31.0 "$tmp/ll.conf" > "$tmp/out" 2>&1
check "check-config --nccl-version 2.31.0: no ll128 note (the release enables it)" "! grep -q 'proto=ll128 cannot' '$tmp/out'"

# A file name with raw bytes is printed escaped, in the problems and in the closing line alike.
esc=$(printf '%s/a\033[2Jb.conf' "$tmp")
printf 'gpu 0 bus=zz numa=0\n' > "$esc"
"$cli" check-config "$esc" > "$tmp/out" 2>&1
check "check-config on a name with ESC: escaped in every line, no raw byte" \
  "grep -qF 'a\\x1b[2Jb.conf: invalid (1 problem)' '$tmp/out' && ! grep -q \"\$(printf '\\033')\" '$tmp/out'"
printf 'gpu 0 bus=01:00.0 numa=0\n' > "$esc"
"$cli" check-config "$esc" > "$tmp/out" 2>&1
check "check-config ok line: the name escaped" "grep -qF 'a\\x1b[2Jb.conf: ok (1 GPU' '$tmp/out' && ! grep -q \"\$(printf '\\033')\" '$tmp/out'"

# p2p lines: the variable each state sets is named; a bad level is a located error.
two='gpu 0 bus=01:00.0 numa=0\ngpu 1 bus=02:00.0 numa=1\n'
printf "$two"'p2p ok level=SYS gpus=0-1 driver=580.95.05 xproc=ok tested=2026-12-03\n' > "$tmp/p2p.conf"
"$cli" check-config "$tmp/p2p.conf" > "$tmp/out" 2>&1
check "check-config p2p ok: names the level served, to whom, under which driver" \
  "[ \$? -eq 0 ] && grep -qF 'p2p ok: NCCL_P2P_LEVEL=SYS to a process on GPUs 0-1 under driver 580.95.05' '$tmp/out'"
printf "$two"'p2p ok level=SYS gpus=1 driver=580.95.05 xproc=ok\n' > "$tmp/p2p.conf"
"$cli" check-config "$tmp/p2p.conf" > "$tmp/out" 2>&1
check "check-config p2p ok on a subset: P2P off to any other process" \
  "[ \$? -eq 0 ] && grep -qF 'to a process on GPUs 1 under driver 580.95.05, P2P off to any other' '$tmp/out'"
printf "$two"'p2p ok level=SYS tested=2026-12-03\n' > "$tmp/p2p.conf"
"$cli" check-config "$tmp/p2p.conf" > "$tmp/out" 2>&1
check "check-config p2p ok without gpus=: untested, P2P off" \
  "[ \$? -eq 0 ] && grep -qF 'p2p ok untested (no gpus=): P2P off, NCCL_P2P_DISABLE=1' '$tmp/out'"
printf 'gpu 0 bus=01:00.0 numa=0\np2p broken\n' > "$tmp/p2p.conf"
"$cli" check-config "$tmp/p2p.conf" > "$tmp/out" 2>&1
check "check-config p2p broken: names NCCL_P2P_DISABLE=1 NCCL_WIN_ENABLE=0" \
  "[ \$? -eq 0 ] && grep -qF 'p2p broken: NCCL_P2P_DISABLE=1 NCCL_WIN_ENABLE=0)' '$tmp/out'"
printf 'gpu 0 bus=01:00.0 numa=0\np2p ok level=NVL\n' > "$tmp/p2p.conf"
"$cli" check-config "$tmp/p2p.conf" > "$tmp/out" 2>&1
check "check-config p2p ok level=NVL: file, line and the levels accepted" \
  "[ \$? -eq 1 ] && grep -qF '$tmp/p2p.conf:2: p2p: unknown level '\\''NVL'\\'' (expected LOC, PIX, PXB, PHB or SYS)' '$tmp/out'"

nn_finish "check-config: all checks passed"
