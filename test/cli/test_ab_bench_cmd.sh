#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# ab and calibrate with --bench-cmd instead of an nccl-tests directory: the command's
# words, {coll} expanded, then nccl-tests' options; the report reads its rows.
. "$(dirname "$0")/helpers/lib.sh"
nn_build_cli
nn_tmp nn-abcmd
T=$tmp
unset NCCL_TESTS_DIR
mkdir -p "$T/bin"
ln -s "$root/test/cli/helpers/fake_nccl_tests.sh" "$T/bin/all_reduce_perf"
ln -s "$root/test/cli/helpers/fake_nccl_tests.sh" "$T/bin/all_gather_perf"
# The benchmark: records its arguments, then runs the stand-in named after the collective.
cat > "$T/bench" <<'SH'
#!/usr/bin/env bash
echo "$*" >> "$FAKE_LOG_DIR/argv.log"
op=$1; shift; [ "$1" = --marker ] || exit 9; shift
exec "$(dirname "$0")/bin/${op}_perf" "$@"
SH
chmod +x "$T/bench"
printf 'gpu 0 bus=01:00.0 numa=0\ntopology mode=numa\n' > "$T/a.conf"
export FAKE_LOG_DIR=$T/log; mkdir -p "$T/log"

"$CLI" ab --bench-cmd "$T/bench {coll} --marker" --config "$T/a.conf" --colls all_reduce,all_gather \
  -b 8 -e 64 -f 8 -g 1 -n 3 -w 1 --repeats 2 --out "$T/run" >"$T/stdout" 2>"$T/stderr"
rc=$?
check "ab --bench-cmd exits 0 without --nccl-tests" "[ $rc -eq 0 ]"
[ $rc -eq 0 ] || { cat "$T/stderr"; exit 1; }
check "probe, then 2 repeats x 2 collectives x 2 arms ran the command" "[ \$(wc -l < '$T/log/argv.log') -eq 9 ]"
check "the probe ran the command too (8 bytes, 1 iteration)" "head -n1 '$T/log/argv.log' | grep -qx 'all_reduce --marker -b 8 -e 8 -f 8 -g 1 -n 1 -w 0'"
check "{coll} expanded and the words kept in order, then nccl-tests' options" \
  "sed -n 2p '$T/log/argv.log' | grep -qx 'all_reduce --marker -b 8 -e 64 -f 8 -g 1 -n 3 -w 1'"
check "the second collective got its name" "grep -q '^all_gather --marker -b 8' '$T/log/argv.log'"
check "report read the rows of both collectives" "grep -q '^## all_reduce' '$T/run/report.md' && grep -q '^## all_gather' '$T/run/report.md'"

"$CLI" ab --bench-cmd "$T/bench --marker" --config "$T/a.conf" --out "$T/run2" >/dev/null 2>"$T/err2"
check "a command without {coll} is a usage error (2)" "[ $? -eq 2 ] && grep -q 'no {coll}' '$T/err2'"
"$CLI" ab --bench-cmd "$T/missing {coll}" --config "$T/a.conf" --out "$T/run3" >/dev/null 2>"$T/err3"
check "a command that is not executable fails (1) and says so" "[ $? -eq 1 ] && grep -q 'not an executable path' '$T/err3'"

cp "$T/log/argv.log" "$T/ab-argv.log"; rm -f "$T/log/argv.log"
"$CLI" calibrate --bench-cmd "$T/bench {coll} --marker" --colls all_reduce --algos ring --protos ll,simple \
  -b 8 -e 64 -f 8 -n 2 -w 0 --repeats 2 --nccl-version 2.28.9 --out "$T/cal" >"$T/cal.out" 2>"$T/cal.err"
rc=$?
check "calibrate --bench-cmd exits 0" "[ $rc -eq 0 ]"
[ $rc -eq 0 ] || cat "$T/cal.err"
check "calibrate ran the command per forced arm (2 x 2)" "[ \$(grep -c '^all_reduce --marker' '$T/log/argv.log') -eq 4 ]"
check "calibrate forced NCCL_ALGO on the command" "grep -q 'forced:ring.ll' '$T/log/order.log'"
nn_finish "ab/calibrate --bench-cmd: all checks passed"
