#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The NCCL each process loaded: the plugin's first lines (env and tuner INIT) and its JSON
# record name the release and file of the NCCL that called it, found among the loaded
# objects, not from the environment. The host is nn_plugin_lines, the stand-in for NCCL's
# plugin loading, which answers ncclGetVersion as the release it plays; check --compare
# then flags ranks of one communicator that loaded different releases. (The real NCCL
# 2.28.9 under CUDA_HOME: test/nccl/run_smoke.sh.)
. "$(dirname "$0")/helpers/lib.sh"
nn_build_cli
cli=$CLI
host=${NN_BUILD:-build}/tools/nn_plugin_lines
nn_need_built "$host"
host=$(readlink -f "$host")
nn_tmp nn-loaded
mkdir -m 0700 "$tmp/xdg"
printf 'gpu 0 bus=01:00.0 numa=0\ngpu 1 bus=02:00.0 numa=1\nrule coll=allreduce bytes=0-64K algo=ring proto=ll\n' > "$tmp/m.conf"

play() {   # play RELEASE RANK RECORD: one rank under the stand-in; its log into $tmp/log.RELEASE
  env -u NCCL_TOPO_FILE XDG_RUNTIME_DIR="$tmp/xdg" NCCL_NUMA_CONFIG="$tmp/m.conf" NCCL_DEBUG=INFO \
    NCCL_NUMA_LOG_FILE="$3" OMPI_COMM_WORLD_RANK="$2" \
    timeout 20 "$host" "$SO" 2 1 "$1" >"$tmp/log.$1" 2>&1
}
play 2.30.7 0 "$tmp/a.json"
check "2.30.7: env INIT line names the release and the loaded file" \
  "grep -qF 'env plugin v2 on NCCL 2.30.7+cuda13.0 (loaded from $host)' '$tmp/log.2.30.7'"
check "2.30.7: tuner INIT line names it" "grep -qF 'tuner v6 on NCCL 2.30.7 ($host), config ' '$tmp/log.2.30.7'"
check "2.30.7: the record names it" \
  "grep -qF '\"nccl\":\"2.30.7\",\"ncclLib\":\"$host\"' '$tmp/a.json'"
play 2.28.9 1 "$tmp/b.json"
check "2.28.9: env v1 INIT line (stderr) names the release and the file" \
  "grep -qF 'env plugin v1 on NCCL 2.28.9+cuda13.0 (loaded from $host)' '$tmp/log.2.28.9'"
check "2.28.9: the record names it" "grep -qF '\"nccl\":\"2.28.9\",\"ncclLib\":\"$host\"' '$tmp/b.json'"

# A host that is no NCCL (python calling the tuner, no libnccl loaded) gets null, not a guess.
rm -f "$tmp/c.json"
env -u NCCL_TOPO_FILE XDG_RUNTIME_DIR="$tmp/xdg" NCCL_NUMA_CONFIG="$tmp/m.conf" NCCL_NUMA_LOG_FILE="$tmp/c.json" \
  python3 "$root/test/cli/helpers/plugin_record.py" "$(readlink -f "$SO")" 0x1234abcd 2 1
check "no NCCL among the loaded objects: null in the record" "grep -qF '\"nccl\":null,\"ncclLib\":null' '$tmp/c.json'"

nn_run 10 check --compare "$tmp/a.json" "$tmp/a.json"
check "one release: ok names it" "grep -q '^  ok: every rank used config hash [0-9a-f]* and the same decision table, on NCCL 2.30.7$' '$tmp/out'"
nn_run 10 check --compare "$tmp/a.json" "$tmp/b.json"
expect_rc 1 "ranks on two NCCL releases"
expect_out_line "  MISMATCH: 2 different NCCL releases loaded:" "the releases flagged"
check "each release names its rank" "grep -q '^    NCCL 2.30.7: .* rank 0 ' '$tmp/out' && grep -q '^    NCCL 2.28.9: .* rank 1 ' '$tmp/out'"
# the same ranks from their NCCL logs (the tuner INIT lines)
nn_run 10 check --compare "$tmp/log.2.30.7" "$tmp/log.2.28.9"
check "from the logs too" "grep -qx '  MISMATCH: 2 different NCCL releases loaded:' '$tmp/out'"
nn_finish "passed: the loaded NCCL named in lines and records, mixed releases flagged"
