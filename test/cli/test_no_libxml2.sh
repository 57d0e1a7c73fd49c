#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The plugin loads libxml2 with dlopen only when it writes a topology: on a machine without
# it the env plugin must serve no topology, say which libraries it tried, and serve the
# rest. Here libxml2.so.2 and libxml2.so.16 are found first on LD_LIBRARY_PATH and are
# libm, which lacks libxml2's functions: both names are tried and refused.
. "$(dirname "$0")/helpers/lib.sh"
nn_build_cli
ABI=${NN_BUILD:-build}/tools/abi_conformance
nn_need_built "$ABI"
nn_tmp nn-no-libxml2
libm=$(ldconfig -p 2>/dev/null | awk '$1 == "libm.so.6" && /x86-64|x86_64|64bit/ {print $NF; exit}')
[ -n "$libm" ] || libm=$(ldconfig -p 2>/dev/null | awk '$1 == "libm.so.6" {print $NF; exit}')
[ -n "$libm" ] || nn_skip "libm.so.6 not in ldconfig's cache"
ln -s "$libm" "$tmp/libxml2.so.2"
ln -s "$libm" "$tmp/libxml2.so.16"
LD_LIBRARY_PATH=$tmp "$ABI" "$SO" --no-libxml2 >"$tmp/without" 2>&1
rc=$?
check "without libxml2: every check passed" '[ $rc -eq 0 ] && grep -qE "^[0-9]+ checks, 0 failed$" "$tmp/without"'
grep "^FAIL" "$tmp/without"
# The control: where libxml2 loads, the same checks fail on the topology served, so the run
# above saw the missing library, not a topology that was never going to be written.
LD_LIBRARY_PATH='' "$ABI" "$SO" --no-libxml2 >"$tmp/with" 2>&1
rc=$?
check "with libxml2: the topology is served" '[ $rc -eq 1 ] && grep -q "no topology without libxml2" "$tmp/with"'
nn_finish "without libxml2: no topology, the libraries tried named, env defaults served"
