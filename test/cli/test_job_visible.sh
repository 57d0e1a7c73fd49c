#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# `nccl-numa topo --visible-devices LIST` writes byte for byte the file the env plugin serves a
# job with CUDA_VISIBLE_DEVICES=LIST: the plugin is called as NCCL calls it (env_verdict.py
# ... show prints the file NCCL_TOPO_FILE names), for the reference machine's two TP=4 servers
# (one NUMA node each: the file of those four GPUs) and for the whole mapping; and topo without
# the option reads CUDA_VISIBLE_DEVICES itself. explain's rank count defaults to the visible GPUs'
# count, wherever they sit.
. "$(dirname "$0")/helpers/lib.sh"
nn_build_cli
command -v python3 >/dev/null || nn_skip "python3 is needed to call the plugin"
nn_tmp nn-topo-visible
unset NCCL_TOPO_FILE NCCL_DEBUG NCCL_NUMA_CONFIG
export XDG_RUNTIME_DIR=$tmp/run
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
# the reference mapping, served whatever the verdict (mode=numa), so that every case has a file
sed 's/^topology mode=auto/topology mode=numa/' test/fixtures/config/reference.conf >"$tmp/ref.conf"
grep -q '^topology mode=numa' "$tmp/ref.conf" || fail "the fixture's topology line changed"

# served LIST: the file the plugin serves a job seeing LIST ("" = unset), in $tmp/served
served() {
  local out
  out=$( ( [ -n "$1" ] && export CUDA_VISIBLE_DEVICES=$1
           NCCL_NUMA_CONFIG=$tmp/ref.conf python3 "$root/test/cli/helpers/env_verdict.py" "$SO" v2 2.28.9 show ) \
         2>"$tmp/err") || { fail "the plugin for '$1': $(cat "$tmp/err")"; return; }
  sed 1d <<<"$out" >"$tmp/served"
  head -n1 <<<"$out"
}
for list in 0,1,2,3 4,5,6,7 ""; do
  first=$(served "$list")
  "$CLI" topo --config "$tmp/ref.conf" ${list:+--visible-devices "$list"} -o "$tmp/topo.xml" 2>"$tmp/topo.err"
  want=$([ -n "$list" ] && echo "served 1" || echo "served 2")
  check "plugin, CUDA_VISIBLE_DEVICES=${list:-unset}: $want CPU node(s)" "[ '$first' = '$want' ]"
  check "topo --visible-devices ${list:-(none)}: byte-identical to the served file" "cmp -s '$tmp/served' '$tmp/topo.xml'"
done
served 4,5,6,7 >/dev/null
cp "$tmp/served" "$tmp/socket0.xml"
CUDA_VISIBLE_DEVICES=4,5,6,7 "$CLI" topo --config "$tmp/ref.conf" >"$tmp/env.xml" 2>"$tmp/topo.err"
check "topo reads CUDA_VISIBLE_DEVICES itself" "cmp -s '$tmp/socket0.xml' '$tmp/env.xml'"
check "topo says which GPUs it judged" "grep -q 'devices: CUDA_VISIBLE_DEVICES=4,5,6,7: 4 GPUs, all on NUMA node 0' '$tmp/topo.err'"
served 0,1,2,3 >/dev/null
check "control: the two servers' files differ" "! cmp -s '$tmp/socket0.xml' '$tmp/served'"
"$CLI" topo --validate "$tmp/socket0.xml" --visible-devices 0 >/dev/null 2>"$tmp/err"
check "--visible-devices does not apply to --validate" "[ $? -eq 2 ]"
ranks() { "$CLI" explain --config "$tmp/ref.conf" --nccl-version 2.28.9 --coll allreduce "$@" | sed -n 's/^communicator: \([0-9]*\) ranks.*/\1/p'; }
check "explain --visible-devices 0,1,4,5 (two sockets): 4 ranks" "[ \"\$(ranks --visible-devices 0,1,4,5)\" = 4 ]"
check "explain with CUDA_VISIBLE_DEVICES=0,1,4,5: 4 ranks" "[ \"\$(CUDA_VISIBLE_DEVICES=0,1,4,5 ranks)\" = 4 ]"
check "explain --visible-devices 4,5,6,7 --ranks 2: --ranks wins" "[ \"\$(ranks --visible-devices 4,5,6,7 --ranks 2)\" = 2 ]"
check "explain without a visible set: the mapping's 8" "[ \"\$(ranks)\" = 8 ]"
nn_finish "topo writes what the plugin serves for the job's visible GPUs"
