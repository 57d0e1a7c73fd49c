#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# check --compare: the records ranks of one job wrote on several hosts. JSON records
# are written by the real plugin (plugin_record.py calls its tuner init), then given
# other host names as if written elsewhere; INFO lines are synthetic, in the format of
# the plugin's INIT and TUNING lines and NCCL's "Init COMPLETE" line.
. "$(dirname "$0")/helpers/lib.sh"
nn_build_cli
cli=$CLI
SO=$(readlink -f "$SO")
nn_tmp nn-compare
command -v python3 >/dev/null || nn_skip "no python3 (needed to call the plugin's init)"
printf 'gpu 0 bus=01:00.0 numa=0\ngpu 1 bus=02:00.0 numa=1\nrule coll=allreduce bytes=0-64K algo=ring proto=ll\n' > "$tmp/a.conf"
printf 'gpu 0 bus=01:00.0 numa=0\ngpu 1 bus=02:00.0 numa=1\nrule coll=allreduce bytes=0-256K algo=tree proto=ll\n' > "$tmp/b.conf"
unset NCCL_NUMA_LOG_FILE NCCL_DEBUG
# record HOST RANK CONFIG OUT: rank RANK's record for comm 0xabc (4 ranks, 2 nodes) "on" HOST
record() {
  local f=$tmp/rec.$$.json
  rm -f "$f"
  NCCL_NUMA_CONFIG=$3 NCCL_NUMA_LOG_FILE=$f OMPI_COMM_WORLD_RANK=$2 python3 "$root/test/cli/helpers/plugin_record.py" "$SO" 0xabc 4 2 ||
    fail "plugin init for rank $2"
  sed "s/\"host\":\"[^\"]*\"/\"host\":\"$1\"/" "$f" >> "$4"
}
record node-a 0 "$tmp/a.conf" "$tmp/node-a.json"; record node-a 1 "$tmp/a.conf" "$tmp/node-a.json"
record node-b 2 "$tmp/a.conf" "$tmp/node-b.json"; record node-b 3 "$tmp/a.conf" "$tmp/node-b.json"
check "the plugin wrote one record per rank" "[ \$(cat '$tmp'/node-*.json | wc -l) -eq 4 ]"
check "records carry host, rank and hash" "grep -q '\"host\":\"node-b\".*\"rank\":3' '$tmp/node-b.json' && grep -q '\"configHash\":\"[0-9a-f]\{8\}\"' '$tmp/node-a.json'"

nn_run 10 check --compare "$tmp/node-a.json" "$tmp/node-b.json"
expect_rc 0 "same mapping everywhere"
expect_out_line "comm 0x0000000000000abc: 4 record(s) from 2 host(s), nRanks 4" "summary line"
check "ok line names the hash" "grep -q '^  ok: every rank used config hash [0-9a-f]\{8\} and the same decision table' '$tmp/out'"

# node-b got mapping b: different content and table, both named with hosts and ranks
: > "$tmp/node-b2.json"
record node-b 2 "$tmp/b.conf" "$tmp/node-b2.json"; record node-b 3 "$tmp/b.conf" "$tmp/node-b2.json"
nn_run 10 check --compare "$tmp/node-a.json" "$tmp/node-b2.json"
expect_rc 1 "a host with another mapping"
hash_a=$(grep -o '"configHash":"[0-9a-f]*"' "$tmp/node-a.json" | head -n1 | cut -d'"' -f4)
hash_b=$(grep -o '"configHash":"[0-9a-f]*"' "$tmp/node-b2.json" | head -n1 | cut -d'"' -f4)
check "the two hashes differ" "[ -n '$hash_a' ] && [ '$hash_a' != '$hash_b' ]"
expect_out_line "  MISMATCH: 2 different config contents (hash):" "hash mismatch"
check "hash variants name hosts and ranks" "grep -q \"^    hash $hash_a: node-a rank 0 (.*); node-a rank 1 \" '$tmp/out' && grep -q \"^    hash $hash_b: node-b rank 2 (.*); node-b rank 3 \" '$tmp/out'"
expect_out_line "  MISMATCH: 2 different decision tables:" "table mismatch"
expect_out_line "      allreduce 0-64K -> ring/ll" "table A shown"
expect_out_line "      allreduce 0-256K -> tree/ll" "table B shown"
expect_out_line "1 communicator(s), 1 with problems" "total"

# missing ranks
nn_run 10 check --compare "$tmp/node-a.json"
expect_rc 1 "half the ranks"
check "incomplete named" "grep -q '^  INCOMPLETE: records of 2 of 4 ranks' '$tmp/out'"

# NCCL logs: INIT and TUNING lines of the plugin, ranks from NCCL's Init COMPLETE lines
log() {  # log HOST PID DEV RANK HASH RULE REST: what the plugin logs for one rank
  printf '%s:%d:%d [%d] NCCL INFO nccl-numa 0.1.0: tuner v5, config /etc/nccl-numa.conf hash %s (2 sockets), comm 0x0000000000000abc nRanks 4 nNodes 2 scope cross, 1 of 1 rules apply, constants unchanged\n' "$1" "$2" "$2" "$3" "$5"
  printf '%s:%d:%d [%d] NCCL INFO nccl-numa:   allreduce     %s from /etc/nccl-numa.conf:3\n' "$1" "$2" "$2" "$3" "$6"
  printf '%s:%d:%d [%d] NCCL INFO nccl-numa:   allreduce     %s\n' "$1" "$2" "$2" "$3" "$7"
  printf '%s:%d:%d [%d] NCCL INFO ncclCommInitRank comm 0x5566 rank %d nranks 4 cudaDev %d nvmlDev %d busId 1000 commId 0xabc - Init COMPLETE\n' "$1" "$2" "$2" "$3" "$4" "$3" "$3"
}
{ log node-a 100 0 0 "$hash_a" "0-64K -> ring/ll" "65537-max -> NCCL default"; log node-a 101 1 1 "$hash_a" "0-64K -> ring/ll" "65537-max -> NCCL default"; } > "$tmp/a.log"
{ log node-b 200 0 2 "$hash_a" "0-64K -> ring/ll" "65537-max -> NCCL default"; log node-b 201 1 3 "$hash_a" "0-64K -> ring/ll" "65537-max -> NCCL default"; } > "$tmp/b.log"
nn_run 10 check --compare "$tmp/a.log" "$tmp/b.log"
expect_rc 0 "NCCL logs, same mapping"
{ log node-b 200 0 2 "$hash_b" "0-256K -> tree/ll" "262145-max -> NCCL default"; log node-b 201 1 3 "$hash_b" "0-256K -> tree/ll" "262145-max -> NCCL default"; } > "$tmp/b2.log"
nn_run 10 check --compare "$tmp/a.log" "$tmp/b2.log"
expect_rc 1 "NCCL logs, node-b differs"
check "ranks from NCCL's Init COMPLETE lines" "grep -q \"^    hash $hash_b: node-b rank 2 (.*b2.log:1); node-b rank 3 (.*b2.log:5);\" '$tmp/out'"
# JSON from one host and a log from the other: the same table reads the same
nn_run 10 check --compare "$tmp/node-a.json" "$tmp/b.log"
expect_rc 0 "a JSON record and a TUNING log of the same mapping agree"

# bad input
printf 'nothing here\n' > "$tmp/empty.log"
nn_run 10 check --compare "$tmp/empty.log"
expect_rc 1 "no record"
expect_err_has "no record named" "no nccl-numa record in the 1 file(s)"
nn_run 10 check --compare "$tmp/missing.json"
expect_rc 1 "missing file"
expect_err_has "missing file named" "$tmp/missing.json"
printf '{"commId":"0xabc","table":[{"coll":1}]}\n' > "$tmp/bad.json"
nn_run 10 check --compare "$tmp/bad.json"
expect_rc 1 "bad record"
expect_err_has "bad record: file and line" "$tmp/bad.json:1: bad table entry"

# Numbers are range-checked before they are converted: out of range,
# negative and fractional values are each a FILE:LINE error naming the member.
rec() { printf '{"commId":"0xabc","pid":%s,"rank":%s,"nRanks":%s,"host":"h","table":[{"coll":"allreduce","lo":%s,"hi":%s,"choice":"ring/ll"}]}\n' "$@"; }
bad_number() {  # bad_number WHAT EXPECTED-MESSAGE PID RANK NRANKS LO HI
  local what=$1 want=$2
  shift 2
  rec "$@" > "$tmp/num.json"
  nn_run 10 check --compare "$tmp/num.json"
  expect_rc 1 "$what"
  expect_err_has "$what: named" "$tmp/num.json:1: $want"
  [ ! -s "$tmp/out" ] || fail "$what: the refused record was reported: $out"
}
rec 7 0 1 0 65536 > "$tmp/num.json"
nn_run 10 check --compare "$tmp/num.json"
expect_rc 0 "whole numbers in range"
rec 7 0 1 0 18446744073709551615 > "$tmp/num.json"
nn_run 10 check --compare "$tmp/num.json"
expect_rc 0 "hi = 2^64-1, as the plugin writes an open range"
bad_number "lo 1e30" 'bad table entry: "lo": 1e+30 is out of range (expected a whole number 0..18446744073709551615)' 7 0 1 1e30 1e30
bad_number "hi above 2^64" 'bad table entry: "hi": 3.689348815e+19 is out of range' 7 0 1 0 36893488147419103232
bad_number "negative lo" 'bad table entry: "lo": -5 is out of range' 7 0 1 -5 10
bad_number "fractional hi" 'bad table entry: "hi": 1.5 is out of range' 7 0 1 0 1.5
bad_number "negative pid" '"pid": -1 is out of range (expected a whole number 0..2147483647)' -1 0 1 0 10
bad_number "huge rank" '"rank": 1e+300 is out of range' 7 1e300 1 0 10
bad_number "fractional nRanks" '"nRanks": 2.5 is out of range (expected a whole number 1..2147483647)' 7 0 2.5 0 10
bad_number "pid as a string" '"pid" is not a number' '"7"' 0 1 0 10
bad_number "lo above hi" 'bad table entry: lo 20 is above hi 10' 7 0 1 20 10

# Decoded control characters never reach the terminal: a JSON record's
# \u001b and \r, and raw ESC/BEL/CR in an NCCL log's host name and table line, come out escaped.
printf '{"commId":"0xabc","nRanks":2,"host":"evil\\u001b[2J\\r","configHash":"\\u0007ok","table":[{"coll":"allreduce","lo":0,"hi":10,"choice":"ring\\u001b]0;x\\u0007"}]}\n' > "$tmp/ctl.json"
printf 'ho\033[1mst\r:100:100 [0] NCCL INFO nccl-numa 0.1.0: tuner v5, config /c hash \a1234 (2 sockets), comm 0x0000000000000abc nRanks 2 nNodes 1\n' > "$tmp/ctl.log"
printf 'ho\033[1mst\r:100:100 [0] NCCL INFO nccl-numa:   allreduce     0-10 -> tree\033[2K/ll from /c:3\n' >> "$tmp/ctl.log"
nn_run 10 check --compare "$tmp/ctl.json" "$tmp/ctl.log"
check "decoded and raw control bytes printed escaped" "! LC_ALL=C grep -q \$'[\\x01-\\x1f\\x7f]' '$tmp/out' '$tmp/err'"
check "the JSON host and choice shown escaped" "grep -qF 'evil\\x1b[2J\\x0d' '$tmp/out' && grep -qF 'ring\\x1b]0;x\\x07' '$tmp/out'"
check "the log's host and table line shown escaped" "grep -qF 'ho\\x1b[1mst\\x0d' '$tmp/out' && grep -qF 'tree\\x1b[2K/ll' '$tmp/out'"
nn_run 10 check --compare
expect_rc 2 "--compare without files"
nn_finish "check --compare checks passed"
