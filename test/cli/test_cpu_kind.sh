#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The prediction tests (explain, topo, check, the env verdict, the docs' examples) give the
# same result on an Intel and on an AMD host: each runs with the host's /proc/cpuinfo replaced
# by one of each kind (a private mount namespace). And the CPU kind the command assumes for
# NCCL's own view is the one NCCL_NUMA_CPUINFO or --cpuinfo names, and explain says which.
. "$(dirname "$0")/helpers/lib.sh"
nn_build_cli
nn_tmp nn-cpu-kind
intel=$root/test/fixtures/cpuinfo/intel-emerald-rapids
amd=$root/test/fixtures/cpuinfo/amd-turin
F=test/fixtures/explain/two-socket.conf

# NCCL's own (flat) view differs by CPU kind (nccl-oracle, v2.28.9-1, 4 gen5 GPUs: Intel's P2P
# through the root complex costs 6/5, so 2 x 20 GB/s; AMD 2 x 24), so the variable must decide it.
own_view() { "$CLI" explain --config $F --ranks 4 --coll allreduce --nccl-version 2.28.9 "$@" | grep "NCCL's own view:  "; }
got=$(NCCL_NUMA_CPUINFO=$intel own_view)
grep -q "ring 2 x 20.0 GB/s" <<<"$got" && echo "ok Intel kind: own view 2 x 20" || fail "Intel kind: $got"
got=$(NCCL_NUMA_CPUINFO=$amd own_view)
grep -q "ring 2 x 24.0 GB/s" <<<"$got" && echo "ok AMD kind: own view 2 x 24" || fail "AMD kind: $got"
got=$(NCCL_NUMA_CPUINFO=$intel own_view --cpuinfo "$amd")
grep -q "ring 2 x 24.0 GB/s" <<<"$got" && echo "ok --cpuinfo wins over NCCL_NUMA_CPUINFO" || fail "--cpuinfo: $got"
got=$(NCCL_NUMA_CPUINFO=$amd "$CLI" explain --config $F --ranks 4 --coll allreduce --nccl-version 2.28.9)
grep -qF "(NCCL's own view: CPU AuthenticAMD family 26 model 2 from $amd)" <<<"$got" \
  && echo "ok explain names the CPU kind it assumes and its file" || fail "explain: no CPU line ($got)"
NCCL_NUMA_CPUINFO=$tmp/missing "$CLI" explain --config $F --ranks 4 --nccl-version 2.28.9 >"$tmp/out" 2>&1
grep -qF "$tmp/missing unreadable" "$tmp/out" && echo "ok an unreadable cpuinfo is named" \
  || fail "unreadable cpuinfo not named: $(grep own "$tmp/out")"

# The same tests on either kind of host: needs a mount namespace (root or user namespaces).
if ! unshare -m true 2>/dev/null; then
  [ "$fails" -gt 0 ] && nn_finish "" "failure(s)"
  nn_skip "the host swap needs a mount namespace (unshare -m failed); the CPU-kind checks above passed"
fi
for host in "$intel" "$amd"; do
  for t in test_explain test_topo test_include_csv test_check test_env_verdict test_docs test_golden; do
    if unshare -m bash -c 'mount --bind "$1" /proc/cpuinfo && grep -q "^vendor_id" /proc/cpuinfo &&
        [ "$(sed -n "s/^vendor_id[[:space:]]*: //p" /proc/cpuinfo)" = "$(sed -n "s/^vendor_id[[:space:]]*: //p" "$1")" ] &&
        bash "$2"' _ "$host" "$root/test/cli/$t.sh" >"$tmp/$t.log" 2>&1; then
      echo "ok $t on a host whose /proc/cpuinfo is $(basename "$host")"
    else
      fail "$t on a $(basename "$host") host: $(grep -m3 FAIL "$tmp/$t.log")"
    fi
  done
done
nn_finish "all CPU-kind checks passed" "failure(s)"
