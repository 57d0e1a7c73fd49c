#!/usr/bin/env bash
# explain: exact tables for an intra and a cross communicator; usage and errors.
set -u
cd "$(dirname "$0")/../.."
CLI=${NN_CLI:-build/nccl-numa}
F=test/fixtures/explain/two-socket.conf
fail=0
expect() {  # expect NAME EXPECTED ACTUAL
  if [ "$2" != "$3" ]; then echo "FAIL $1"; diff <(echo "$2") <(echo "$3"); fail=1; else echo "ok $1"; fi
}

out=$($CLI explain --config $F --ranks 2 --coll allreduce)
expect "intra allreduce" "config:       $F (4 GPUs: NUMA0=2 NUMA1=2; 3 rules)
communicator: 2 ranks on 1 node(s): scope intra; 2 of 3 rules can apply
table:        NCCL's PCIe-only table (ring x ll, simple; tree x ll, simple for allreduce; the rest disabled)
topology:     topology served: mode=auto, modelled GenuineIntel link 22 GB/s >= search floor 3 GB/s
              (CPU GenuineIntel family 6 model 143; modelled link 22 GB/s; search floor 3 GB/s for compute capability 9.0)

allreduce
  size                   decision                             rule
  1 B - 64 KiB           ring/ll, 2 channels                  $F:9
  128 KiB - 512 KiB      NCCL default                         NCCL default
  1 MiB - 4 GiB          tree, cheapest protocol              $F:10" "$out"

out=$($CLI explain --config $F --ranks 4 --coll allgather | tail -n 3)
expect "cross allgather" "allgather
  size                   decision                             rule
  1 B - 4 GiB            cheapest algorithm, simple           $F:11" "$out"

out=$($CLI explain --config $F --ranks 3 --nodes 2 --coll allreduce | sed -n 2p)
expect "unknown scope" "communicator: 3 ranks on 2 node(s): scope unknown; 1 of 3 rules can apply" "$out"

$CLI explain --help | grep -q 'usage: nccl-numa explain' && echo "ok help" || { echo "FAIL help"; fail=1; }
$CLI explain >/dev/null 2>&1; expect "no config: usage" 2 $?
$CLI explain --config $F --coll nonsense >/dev/null 2>&1; expect "bad collective: usage" 2 $?
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
printf 'gpu 0 bus=01:00.0 numa=0\nrule coll=allreduce\n' > "$d/bad.conf"
err=$($CLI explain --config "$d/bad.conf" 2>&1 >/dev/null); rc=$?
expect "bad config: exit 1" 1 $rc
grep -q "$d/bad.conf:2:" <<<"$err" && echo "ok bad config names file:line" || { echo "FAIL bad config message: $err"; fail=1; }
exit $fail
