#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# include-csv: NCCL example-tuner CSV files behind a mapping, through the CLI (check-config,
# explain): good files load with their rules firing at the right sizes and shapes, bad
# lines are reported as MAPPING:LINE: include-csv: CSV:LINE: problem.
. "$(dirname "$0")/helpers/lib.sh"
nn_build_cli
nn_tmp nn-csv
T=$tmp
cp "$root"/test/fixtures/csv-rules/*.csv "$T/"
gpus='gpu 0 bus=01:00.0 numa=0\ngpu 1 bus=02:00.0 numa=0\n'

printf "${gpus}include-csv good.csv\n" > "$T/good.conf"
"$CLI" check-config "$T/good.conf" > "$T/out" 2>&1
check "NVIDIA's format with header, comments, CRLF, quotes: 7 rules" "[ $? -eq 0 ] && grep -q '7 rules' '$T/out'"

printf "${gpus}include-csv bad.csv\n" > "$T/bad.conf"
"$CLI" check-config "$T/bad.conf" > "$T/out" 2>&1
check "bad file rejected" "[ $? -eq 1 ]"
check "every bad line named (11 problems)" "[ \$(grep -c 'bad.conf:3: include-csv: .*bad.csv:[0-9]*: ' '$T/out') -eq 11 ]"
check "unknown names are errors" "grep -q \"bad.csv:4: unknown collective 'alltoall'\" '$T/out' && grep -q \"bad.csv:5: unknown algorithm 'treee'\" '$T/out'"

printf 'allreduce,0,65536,ring,ll,-1,1,-1\nallgather,1024,-1,ring,simple,4,-1,2\nallgather,0,-1,ring,ll,-1,-1,-1\nreducescatter,0,-1,ring,ll,-1,-1,8\n' > "$T/fire.csv"
printf "${gpus}include-csv fire.csv\nrule coll=broadcast algo=ring proto=simple\n" > "$T/fire.conf"
"$CLI" explain --config "$T/fire.conf" --ranks 2 --nodes 1 > "$T/ex" 2>&1
sect() { awk -v c="$1" '$0 == c {on = 1; next} /^[a-z]+$/ {on = 0} on' "$T/ex"; }
check "allreduce 1 B - 64 KiB: ring/ll from fire.csv:1" "sect allreduce | grep -q '1 B - 64 KiB .*ring/ll .*fire.csv:1'"
check "allreduce above 64 KiB: NCCL's choice" "! sect allreduce | grep -v '^ *1 B - 64 KiB' | grep -q fire.csv && sect allreduce | grep -q '512 KiB - 4 GiB .*NCCL.s choice\$'"
check "allgather from 1 KiB: ring/simple, 4 channels (fire.csv:2, first match wins)" "sect allgather | grep -q '1 KiB - 256 KiB .*ring/simple ch=4 .*fire.csv:2\$' && sect allgather | grep -q '512 KiB - 4 GiB .*ring/simple ch=4 .*fire.csv:2 '"
check "allgather below 1 KiB: the next matching CSV line (fire.csv:3)" "sect allgather | grep -q '1 B - 512 B .*fire.csv:3'"
check "reducescatter: nRanks 8 does not match 2 ranks" "sect reducescatter | grep -q 'NCCL.s choice' && ! sect reducescatter | grep -q fire.csv"
check "rules after include-csv keep file order" "sect broadcast | grep -q 'ring/simple .*fire.conf:4'"
printf "${gpus}include-csv /nonexistent/rules.csv\n" > "$T/missing.conf"
"$CLI" check-config "$T/missing.conf" > "$T/out" 2>&1
check "missing CSV file: error naming it" "[ $? -eq 1 ] && grep -q '/nonexistent/rules.csv: cannot open' '$T/out'"

# Fields carrying ESC, BEL and CR (a forged "ok" once overprinted the error)
# reach check-config's output escaped, and a long field is cut.
printf 'allreduce,0,64,\033[1A\033[2K%s: ok\a,ll,-1,1,-1\nallreduce,0,64,ri\rng,ll,-1,1,-1\nallreduce,0,64,ring,ll,%s,1,-1\n' "$T/ctl.conf" "$(printf 'x%.0s' {1..200})" > "$T/ctl.csv"
printf "${gpus}include-csv ctl.csv\n" > "$T/ctl.conf"
"$CLI" check-config "$T/ctl.conf" > "$T/out" 2>&1
check "control bytes in CSV fields: rejected" "[ $? -eq 1 ]"
check "no control byte reaches the output" "! LC_ALL=C grep -q \$'[\\x01-\\x09\\x0b-\\x1f\\x7f]' '$T/out'"
check "ESC and BEL shown escaped" "grep -qF \"ctl.csv:1: unknown algorithm '\\x1b[1A\\x1b[2K$T/ctl.conf: ok\\x07'\" '$T/out'"
check "CR shown escaped" "grep -qF \"ctl.csv:2: unknown algorithm 'ri\\x0dng'\" '$T/out'"
check "a long field is cut" "grep -qE \"ctl.csv:3: channels 'x{48}\\.\\.\\.' must be\" '$T/out'"

nn_finish "all include-csv checks passed"
