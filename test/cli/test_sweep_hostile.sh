#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# `ab` and `calibrate` write a run directory as root while another user (uid 65534) looks
# on. Each attack was reproduced on the code before: a run directory made in that user's
# directory could be swapped after mkdir so that runs/*.env and *.out went through their
# links into root's files, and every run wrote root's whole environment (HF_TOKEN,
# AWS_SECRET_ACCESS_KEY) world-readable. Also: Ctrl-C (or SIGTERM, SIGHUP) on ab ends the
# benchmark's whole process group and then ab by the same signal.
. "$(dirname "$0")/helpers/lib.sh"
nn_build_cli
CLI=$(readlink -f "$CLI")
cli=$CLI
nn_need_nobody
nn_tmp nn-sweep-hostile
chmod 0755 "$tmp"
T=$tmp

mkdir -p "$T/tests"
for c in all_reduce all_gather; do ln -s "$root/test/cli/helpers/fake_nccl_tests.sh" "$T/tests/${c}_perf"; done
printf 'gpu 0 bus=01:00.0 numa=0\ngpu 1 bus=02:00.0 numa=1\ntopology mode=numa\n' >"$T/a.conf"
export FAKE_LOG_DIR=$T/log FAKE_MODEL=ab
ab() {   # ab OUT: one short sweep into OUT; stdout and stderr in $T/ab.out, $T/ab.err
  timeout 60 "$CLI" ab --nccl-tests "$T/tests" --config "$T/a.conf" --colls all_reduce -b 8 -e 64 -f 8 -g 2 \
    --repeats 1 --nccl-version 2.28.9 --no-plot --out "$1" >"$T/ab.out" 2>"$T/ab.err"
}

# --- 1. --out in a directory uid 65534 owns: refused before any run, nothing left there
mkdir "$T/evil" && chown 65534:65534 "$T/evil"
ab "$T/evil/run"
rc=$?
check "--out under uid 65534's directory: refused (exit 1), naming the directory's owner" \
  "[ $rc -eq 1 ] && grep -q 'not trusted: directory $T/evil is owned by uid 65534' '$T/ab.err'"
check "... and no run started, nothing of root's left there" "[ ! -e '$T/log/order.log' ] && [ -z \"\$(ls -A '$T/evil')\" ]"

# --- 2. the same in a directory everyone can write without the sticky bit (root's own)
mkdir "$T/open" && chmod 0777 "$T/open"
ab "$T/open/run"
check "--out in a 0777 directory: refused" "[ $? -eq 1 ] && grep -q 'not trusted: directory $T/open is writable by group and others' '$T/ab.err' && [ -z \"\$(ls -A '$T/open')\" ]"

# --- 3. a link planted at the --out name is never followed
mkdir "$T/sticky" && chmod 1777 "$T/sticky"
mkdir "$T/target"
nobody ln -s "$T/target" "$T/sticky/run"
ab "$T/sticky/run"
check "--out a planted link: refused (exists), nothing written through it" \
  "[ $? -eq 1 ] && grep -q 'runs are never overwritten' '$T/ab.err' && [ -z \"\$(ls -A '$T/target')\" ]"

# --- 4. the sticky, world-writable directory everyone has (/tmp): accepted, private
export HF_TOKEN=hf_secret_4242 AWS_SECRET_ACCESS_KEY=aws_secret_4242 NCCL_MY_KNOB=kept-1 SLURM_JOB_ID=77 \
  MY_MARKER=not-recorded
ab "$T/sticky/ok"
rc=$?
check "--out in a sticky directory: the sweep runs (exit 0)" "[ $rc -eq 0 ]" || cat "$T/ab.err"
R=$T/sticky/ok
check "run directory and runs/ are 0700, every file 0600" \
  "[ \"\$(stat -c %a '$R' '$R/runs' | sort -u)\" = 700 ] && [ \"\$(find '$R' -type f -printf '%m\n' | sort -u)\" = 600 ]"
check "the benchmark still got the whole environment" "grep -qx HF_TOKEN=hf_secret_4242 '$T/log/run-1.env'"
check "runs/*.env: no secret, no unrelated variable" \
  "! grep -rqE 'secret_4242|MY_MARKER' '$R' && [ \$(ls '$R'/runs/*.env | wc -l) -eq 2 ]"
check "runs/*.env: NCCL_*, the launcher's SLURM_*, nccl-numa's own, and the command line" \
  "grep -qx NCCL_MY_KNOB=kept-1 '$R/runs/0001-stock-all_reduce.env' && grep -qx SLURM_JOB_ID=77 '$R/runs/0001-stock-all_reduce.env' && grep -qx 'NCCL_NUMA_CONFIG=$T/a.conf' '$R/runs/0002-numa-all_reduce.env' && grep -q '^# command: $T/tests/all_reduce_perf -b 8 -e 64 -f 8 -g 2 ' '$R/runs/0002-numa-all_reduce.env'"
check "uid 65534 cannot read a run's environment or output" \
  "! nobody cat '$R/runs/0001-stock-all_reduce.env' >/dev/null 2>&1 && ! nobody ls '$R/runs' >/dev/null 2>&1"
nn_run 30 report --no-plot "$R"
expect_rc 0 "report reads the private run directory"
check "report of the run: both arms measured" "grep -q '## all_reduce' '$R/report.md'"
unset HF_TOKEN AWS_SECRET_ACCESS_KEY NCCL_MY_KNOB SLURM_JOB_ID MY_MARKER

# --- 4b. the swap itself: with the refusal waived (NCCL_NUMA_ALLOW_UNTRUSTED=1), ab runs in uid
# 65534's directory, and they rename the run directory away and put a link to root's directory in
# its place while it runs. Every later file still goes into the directory ab made and opened.
cat >"$T/sleepy_bench" <<'EOF2'
#!/bin/sh
sleep 1
echo "# a stand-in that measures nothing"
EOF2
chmod +x "$T/sleepy_bench"
mkdir "$T/rootdir" "$T/evil2" && chown 65534:65534 "$T/evil2"
NCCL_NUMA_ALLOW_UNTRUSTED=1 timeout 60 "$CLI" ab --bench-cmd "$T/sleepy_bench {coll}" --config "$T/a.conf" \
  --colls all_reduce -g 2 --repeats 2 --nccl-version 2.28.9 --no-plot --out "$T/evil2/swapped" >/dev/null 2>"$T/swap.err" &
ab_pid=$!
for i in $(seq 100); do [ -e "$T/evil2/swapped/runs/0001-stock-all_reduce.out" ] && break; sleep 0.1; done
nobody mv "$T/evil2/swapped" "$T/evil2/moved" && nobody ln -s "$T/rootdir" "$T/evil2/swapped"
{ wait "$ab_pid"; } 2>/dev/null
check "the run directory was swapped for a link while ab ran" "[ -L '$T/evil2/swapped' ] && grep -q 'read anyway because NCCL_NUMA_ALLOW_UNTRUSTED=1' '$T/swap.err'"
check "... nothing went through the link; every run is in the directory ab made" \
  "[ -z \"\$(ls -A '$T/rootdir')\" ] && [ \$(ls '$T/evil2/moved/runs' | wc -l) -eq 8 ] && [ \$(wc -l <'$T/evil2/moved/runs.tsv') -eq 4 ]"

# --- 5. calibrate: the same rules for its run directory and the mappings it writes there
timeout 60 "$CLI" calibrate --nccl-tests "$T/tests" --config "$T/a.conf" --colls all_reduce -b 8 -e 64 -f 8 \
  -g 2 --repeats 1 --nccl-version 2.28.9 --algos ring --protos simple --out "$T/evil/cal" \
  >"$T/cal.out" 2>"$T/cal.err"
check "calibrate --out under uid 65534's directory: refused" "[ $? -eq 1 ] && grep -q 'owned by uid 65534' '$T/cal.err' && [ -z \"\$(ls -A '$T/evil')\" ]"
FAKE_MODEL=calibrate timeout 60 "$CLI" calibrate --nccl-tests "$T/tests" --config "$T/a.conf" --colls all_reduce \
  -b 8 -e 64 -f 8 -g 2 --repeats 1 --nccl-version 2.31.0 --chunks 512K --out "$T/sticky/cal" >"$T/cal.out" 2>"$T/cal.err"
rc=$?
C=$T/sticky/cal
check "calibrate in a sticky directory: runs; 0700 directories, 0600 files (its mappings too)" \
  "[ $rc -eq 0 ] && [ \"\$(stat -c %a '$C' '$C/runs' | sort -u)\" = 700 ] && [ \"\$(find '$C' -type f -printf '%m\n' | sort -u)\" = 600 ] && ls '$C'/chunk.*.conf >/dev/null" ||
  tail -n 5 "$T/cal.err"

# --- 6. Ctrl-C, SIGTERM, SIGHUP: the benchmark's group ends, then ab by the same signal.
# The stand-in ignores SIGINT, SIGTERM and SIGHUP and leaves a grandchild, as mpirun's ranks may,
# and one in a session of its own (setsid), which the group's signals do not reach.
cat >"$T/slow_bench" <<'EOF'
#!/usr/bin/env bash
trap '' INT TERM HUP
sleep 300 &
child=$!
setsid sleep 301 &
echo "$$ $child $!" >"$SLOW_PIDS.tmp" && mv "$SLOW_PIDS.tmp" "$SLOW_PIDS"
wait
EOF
chmod +x "$T/slow_bench"
# start_slow NAME [WRAPPER...] -- ARGS...: starts WRAPPER... $CLI ARGS... on the stand-in in the
# background; ab_pid is that process, pids the stand-in's and its two children's once they run.
start_slow() {
  local name=$1 i wrap=()
  shift
  while [ "$1" != -- ]; do wrap+=("$1"); shift; done
  shift
  export SLOW_PIDS=$T/pids.$name
  "${wrap[@]}" "$CLI" "$@" --bench-cmd "$T/slow_bench {coll}" --config "$T/a.conf" --colls all_reduce -g 2 \
    --repeats 1 --nccl-version 2.28.9 --timeout 600 --out "$T/sticky/int-$name" >/dev/null 2>&1 &
  ab_pid=$!
  for i in $(seq 100); do [ -s "$SLOW_PIDS" ] && break; sleep 0.1; done
  pids=$(cat "$SLOW_PIDS" 2>/dev/null)
}
# stop SIGNAL: sends SIGNAL to ab_pid, waits for it; rc its status, took the seconds it took
stop() {
  kill -s "$1" "$ab_pid"
  local t0=$SECONDS
  { wait "$ab_pid"; } 2>/dev/null
  rc=$?
  took=$((SECONDS - t0))
}
# alive: some stand-in process still runs (a zombie the init process has yet to reap is dead)
alive() {
  local p
  for p in $pids; do [ -r "/proc/$p/stat" ] && [ "$(cut -d')' -f2 "/proc/$p/stat" 2>/dev/null | cut -c2)" != Z ] && return 0; done
  return 1
}
reap() { local p; for p in $pids; do kill -9 "$p" 2>/dev/null; done; }
for sig in INT TERM HUP; do
  start_slow $sig env --default-signal=INT,TERM,HUP -- ab
  stop $sig
  num=$(kill -l $sig)
  check "SIG$sig: the stand-in ran (pids $pids)" "[ \$(wc -w <<<'$pids') -eq 3 ]"
  check "SIG$sig: ab ended by SIG$sig (status $rc = 128+$num) within the grace" "[ $rc -eq $((128 + num)) ] && [ $took -le 10 ]"
  check "SIG$sig: no stand-in process left (benchmark, its child, its setsid child)" "! alive"
  reap
done

# calibrate runs its benchmarks the same way
start_slow cal env --default-signal=INT -- calibrate --algos ring --protos simple
stop INT
check "calibrate, SIGINT: ended by it (status $rc), no stand-in process left ($pids)" "[ $rc -eq 130 ] && [ -n '$pids' ] && ! alive"
reap

# nohup (SIGHUP ignored on entry): a hangup is ignored, by ab and the benchmark alike
start_slow nohup nohup -- ab
kill -HUP "$ab_pid"
sleep 1
check "nohup ab, SIGHUP: ab and the stand-in go on" "[ -n '$pids' ] && kill -0 $ab_pid 2>/dev/null && alive"
stop TERM
check "... then SIGTERM ends both (status $rc)" "[ $rc -eq 143 ] && ! alive"
reap

# --- 7. ab killed outright (SIGKILL): the supervisor's keeper learns it from the kernel
# (PR_SET_PDEATHSIG) and kills the benchmark, its child and its setsid child (cli/common/supervise.h)
start_slow kill -- ab
stop KILL
for i in $(seq 50); do alive || break; sleep 0.1; done
check "SIGKILL of ab: the benchmark and both its children are gone ($pids)" \
  "[ \$(wc -w <<<'$pids') -eq 3 ] && ! alive && ! pgrep -f '$T/slow_bench' >/dev/null"
reap

nn_finish "sweep run directories: private, never redirected, and no benchmark left behind"
