#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# ab and calibrate across "nodes": --launcher srun with a fake srun that records its
# argv (no Slurm here), and --launcher mpirun with Debian's Open MPI on two local
# "nodes" (a hostfile of two names, reached through an ssh stand-in that gives each
# daemon an empty environment as a login would, so the arm's variables reach the
# ranks only through mpirun's -x). The stand-in nccl-tests reports which rank ran on
# which node; every rank must have seen its arm's variables.
. "$(dirname "$0")/helpers/lib.sh"
nn_build_cli
SO=$(readlink -f "$SO")
cli=$CLI
nn_tmp nn-launch
T=$tmp
unset NCCL_TESTS_DIR NCCL_NUMA_CONFIG NCCL_TUNER_PLUGIN NCCL_ENV_PLUGIN OMPI_COMM_WORLD_RANK SLURM_PROCID
mkdir -p "$T/tests" "$T/bin"
ln -s "$root/test/cli/helpers/fake_nccl_tests.sh" "$T/tests/all_reduce_perf"
printf 'gpu 0 bus=01:00.0 numa=0\ngpu 1 bus=02:00.0 numa=1\ntopology mode=numa\n' > "$T/a.conf"
export FAKE_MODEL=ab
ln -sf "$root/test/cli/helpers/fake_srun.sh" "$T/bin/srun"

# rank_seen LOG TAG TUNER CONFIG: the ranks of ranks.log that ran arm TAG with those values.
rank_seen() { awk -v t="$2" -v p="$3" -v c="$4" '$3 == t && $4 == p && $5 == c {print $1 "@" $2}' "$1" | sort -u | tr '\n' ' '; }

# ---- srun: the built command line, and the ranks it started
export FAKE_LOG_DIR=$T/slog FAKE_SRUN_LOG=$T/srun.argv
PATH="$T/bin:$PATH" "$CLI" ab --launcher srun --nodes 2 --ranks-per-node 2 --nccl-tests "$T/tests" \
  --config "$T/a.conf" --colls all_reduce -b 8 -e 64 -f 8 -n 2 -w 1 --repeats 1 --out "$T/srun" \
  >"$T/sout" 2>"$T/serr"
rc=$?
check "ab --launcher srun exits 0" "[ $rc -eq 0 ]"
[ $rc -eq 0 ] || cat "$T/serr"
# fake srun's log: one argument a line, "--" after each call (probe, stock, numa)
call() { awk -v n="$1" '$0 == "--" {k++; next} k == n - 1' "$T/srun.argv"; }
check "srun ran for the probe and both arms" "[ \$(grep -cx -- -- '$T/srun.argv') -eq 3 ]"
check "srun: --nodes=2 --ntasks-per-node=2 first" "[ \"\$(call 2 | head -n2 | tr '\n' ' ')\" = '--nodes=2 --ntasks-per-node=2 ' ]"
exp_stock=$(call 2 | sed -n 3p)
exp_numa=$(call 3 | sed -n 3p)
check "srun stock: --export=ALL with NCCL_TUNER_PLUGIN=none, no config" \
  "[[ \$exp_stock == --export=ALL,* ]] && [[ \$exp_stock == *,NCCL_TUNER_PLUGIN=none* ]] && [[ \$exp_stock != *NCCL_NUMA_CONFIG* ]]"
check "srun numa: --export=ALL with the plugin and the mapping" \
  "[[ \$exp_numa == *,NCCL_TUNER_PLUGIN=$SO* ]] && [[ \$exp_numa == *,NCCL_ENV_PLUGIN=$SO* ]] && [[ \$exp_numa == *,NCCL_NUMA_CONFIG=$T/a.conf* ]]"
check "srun: then the benchmark with -g 1 per rank" "call 3 | sed -n 4p | grep -qx '$T/tests/all_reduce_perf' && call 3 | grep -A1 -x -- -g | tail -n1 | grep -qx 1"
check "srun numa: every rank saw the arm's variables" "[ \"\$(rank_seen '$T/slog/ranks.log' numa:a.conf '$SO' '$T/a.conf')\" = '0@fake-node0 1@fake-node0 2@fake-node1 3@fake-node1 ' ]"
check "srun stock: every rank ran without nccl-numa" "[ \"\$(rank_seen '$T/slog/ranks.log' stock none -)\" = '0@fake-node0 1@fake-node0 2@fake-node1 3@fake-node1 ' ]"
check "placement.tsv: per arm, which host ran which rank" \
  "[ \"\$(awk -F'\t' 'NR > 1 {print \$1, \$4, \$5}' '$T/srun/placement.tsv' | tr '\n' ',')\" = 'stock 0 fake-node0,stock 1 fake-node0,stock 2 fake-node1,stock 3 fake-node1,numa 0 fake-node0,numa 1 fake-node0,numa 2 fake-node1,numa 3 fake-node1,' ]"
check "progress names the hosts and ranks" "grep -q '4 ranks: fake-node0: 0,1; fake-node1: 2,3' '$T/serr'"
check "launch file records the launcher" "grep -qx 'style srun' '$T/srun/launch' && grep -qx 'nodes 2' '$T/srun/launch' && grep -qx 'ranks_per_node 2' '$T/srun/launch'"
check "the report reads the 4 ranks" "grep -q 'report' '$T/sout' || [ -s '$T/srun/report.md' ]"

# A value with a comma cannot cross srun --export: refused, named.
mkdir -p "$T/c,d"; cp "$T/a.conf" "$T/c,d/a.conf"
PATH="$T/bin:$PATH" "$CLI" ab --launcher srun --nodes 2 --nccl-tests "$T/tests" --config "$T/c,d/a.conf" \
  --colls all_reduce -b 8 -e 8 --repeats 1 --out "$T/comma" >/dev/null 2>"$T/cerr"
check "srun: a comma in a value is refused with the variable named" "grep -q 'srun --export cannot pass .NCCL_NUMA_CONFIG=$T/c,d/a.conf' '$T/cerr'"

# Usage errors
nn_run 5 ab --nodes 2 --nccl-tests "$T/tests" --config "$T/a.conf"
check "--nodes without --launcher: usage error" "[ $rc -eq 2 ] && grep -q 'need --launcher' '$tmp/err'"
nn_run 5 ab --launcher "/bin/true -v" --nodes 2 --nccl-tests "$T/tests" --config "$T/a.conf"
check "--nodes with a custom launcher: refused" "[ $rc -eq 2 ] && grep -q 'must start its ranks itself' '$tmp/err'"
nn_run 5 ab --launcher "no-such-launcher-xyz" --nccl-tests "$T/tests" --config "$T/a.conf"
check "unknown launcher: named" "[ $rc -eq 2 ] && grep -q \"'no-such-launcher-xyz' is not an executable on PATH\" '$tmp/err'"

# ---- mpirun (Open MPI): two "nodes" on this machine
if ! command -v mpirun >/dev/null || ! mpirun --version 2>/dev/null | grep -q 'Open MPI'; then
  [ "$fails" -eq 0 ] || nn_finish ""
  nn_skip "no Open MPI mpirun (apt-get install openmpi-bin); the srun checks passed"
fi
# ssh stand-in for Open MPI's rsh launcher: the daemon runs here, in a login-like empty
# environment, and tells its ranks which node they are on. Each "node" has its own
# TMPDIR: two daemons on one real host would race creating one session directory.
# PMIx's shared-memory store refuses some root setups; its hash store always works.
export PMIX_MCA_gds=hash TMPDIR=$T/ompi/mpirun
mkdir -p "$TMPDIR"
cat > "$T/fake-ssh" <<SH
#!/bin/sh
host=\$1; shift
mkdir -p "$T/ompi/\$host"
exec env -i PATH=/usr/bin:/bin HOME="\$HOME" TMPDIR="$T/ompi/\$host" PMIX_MCA_gds=hash NN_FAKE_NODE="\$host" sh -c "\$*"
SH
chmod +x "$T/fake-ssh"
printf 'node-a slots=2\nnode-b slots=2\n' > "$T/hostfile"
# mpirun as the launcher sees it: a wrapper named mpirun records its arguments, then runs Open MPI's
mkdir -p "$T/wrap"
printf '#!/bin/sh\nprintf "%%s\\n" "$@" -- >> "%s/mpirun.argv"\nexec %s "$@"\n' "$T" "$(command -v mpirun)" > "$T/wrap/mpirun"
chmod +x "$T/wrap/mpirun"
MPI="$T/wrap/mpirun --oversubscribe --allow-run-as-root --hostfile $T/hostfile --mca plm_rsh_agent $T/fake-ssh -x FAKE_LOG_DIR -x FAKE_MODEL"
# control: without -x, a variable of mpirun's environment does not reach the ranks
NCCL_NUMA_CONFIG=/control.conf timeout 60 mpirun --oversubscribe --allow-run-as-root --hostfile "$T/hostfile" \
  --mca plm_rsh_agent "$T/fake-ssh" -np 2 sh -c 'echo "${NCCL_NUMA_CONFIG:-unset}"' >"$T/control" 2>&1
check "control: without -x the ranks do not get mpirun's variables" "[ \"\$(sort -u '$T/control')\" = unset ]"

export FAKE_LOG_DIR=$T/mlog
timeout 120 "$CLI" ab --launcher "$MPI" --nodes 2 --ranks-per-node 2 --nccl-tests "$T/tests" \
  --config "$T/a.conf" --colls all_reduce -b 8 -e 64 -f 8 -n 2 -w 1 --repeats 2 --out "$T/mpi" \
  >"$T/mout" 2>"$T/merr"
rc=$?
check "ab --launcher mpirun exits 0" "[ $rc -eq 0 ]"
[ $rc -eq 0 ] || cat "$T/merr"
check "mpirun numa: every rank on both nodes saw the plugin and mapping (via -x)" \
  "[ \"\$(rank_seen '$T/mlog/ranks.log' numa:a.conf '$SO' '$T/a.conf')\" = '0@node-a 1@node-a 2@node-b 3@node-b ' ]"
check "mpirun stock: every rank got NCCL_TUNER_PLUGIN=none and no mapping" \
  "[ \"\$(rank_seen '$T/mlog/ranks.log' stock none -)\" = '0@node-a 1@node-a 2@node-b 3@node-b ' ]"
check "mpirun: 4 ranks per run, 2 per node, in every run" \
  "[ \$(grep -c ' numa:a.conf ' '$T/mlog/ranks.log') -eq 8 ] && [ \$(grep -c ' stock ' '$T/mlog/ranks.log') -eq 8 ]"
check "placement.tsv (mpirun): numa ranks 0,1 on node-a, 2,3 on node-b in both repeats" \
  "[ \"\$(awk -F'\t' '\$1 == \"numa\" {print \$4 \"@\" \$5}' '$T/mpi/placement.tsv' | tr '\n' ' ')\" = '0@node-a 1@node-a 2@node-b 3@node-b 0@node-a 1@node-a 2@node-b 3@node-b ' ]"
check "mpirun: the report was written" "[ -s '$T/mpi/report.md' ]"
mcall() { awk -v n="$1" '$0 == "--" {k++; next} k == n - 1' "$T/mpirun.argv" | tr '\n' ' '; }
check "mpirun argv: your options, then -np 4 --map-by ppr:2:node" "[[ \"\$(mcall 3)\" == '--oversubscribe --allow-run-as-root '*' -x FAKE_MODEL -np 4 --map-by ppr:2:node '* ]]"
check "mpirun argv (numa arm): -x for the plugin, env plugin and mapping, then the benchmark" \
  "[[ \"\$(mcall 3)\" == *' -x NCCL_TUNER_PLUGIN '* && \"\$(mcall 3)\" == *' -x NCCL_ENV_PLUGIN '* && \"\$(mcall 3)\" == *' -x NCCL_NUMA_CONFIG $T/tests/all_reduce_perf -b 8 '* ]]"
check "mpirun argv (stock arm): -x NCCL_TUNER_PLUGIN, no mapping" "[[ \"\$(mcall 2)\" == *' -x NCCL_TUNER_PLUGIN '* && \"\$(mcall 2)\" != *NCCL_NUMA_CONFIG* ]]"

# calibrate through the same launcher: the rules' header says 2 nodes
export FAKE_LOG_DIR=$T/clog FAKE_MODEL=calibrate
timeout 120 "$CLI" calibrate --launcher "$MPI" --nodes 2 --ranks-per-node 2 --nccl-tests "$T/tests" \
  --config "$T/a.conf" --algos ring --protos ll,simple --colls all_reduce -b 8 -e 64 -f 8 -n 2 -w 1 \
  --repeats 1 --out "$T/cal" >"$T/calout" 2>"$T/calerr"
rc=$?
check "calibrate --launcher mpirun exits 0" "[ $rc -eq 0 ]"
[ $rc -eq 0 ] || cat "$T/calerr"
check "calibrate: 4 ranks on 2 nodes" "grep -q '^# nccl-numa calibrate: .*4 ranks, nodes=2)' '$T/calout'"
check "calibrate: forced arms reached every rank" "[ \$(grep -c ' forced:ring.ll ' '$T/clog/ranks.log') -eq 4 ]"
nn_finish "launcher checks passed"
