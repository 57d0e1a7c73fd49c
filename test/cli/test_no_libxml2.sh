#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The plugin writes its topology XML itself: it links libc alone, names no libxml2 anywhere,
# and serves the topology with or without libxml2 on the machine, loading none into the
# process. "Without" is libxml2.so.2 and libxml2.so.16 found first on LD_LIBRARY_PATH as
# libm, which would break any use of them.
. "$(dirname "$0")/helpers/lib.sh"
nn_build_cli
ABI=${NN_BUILD:-build}/tools/abi_conformance
nn_need_built "$ABI"
nn_tmp nn-no-libxml2
needed=$(readelf -d "$SO" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
check "the plugin needs libc alone ($needed)" '[ "$needed" = "libc.so.6 " ]'
check "the plugin names no libxml2 (no soname to dlopen, no xml function)" \
  '! grep -qa "libxml2" "$SO" && ! nm -D "$SO" | grep -qi " xml"'
libm=$(ldconfig -p 2>/dev/null | awk '$1 == "libm.so.6" && /x86-64|x86_64|64bit/ {print $NF; exit}')
[ -n "$libm" ] || libm=$(ldconfig -p 2>/dev/null | awk '$1 == "libm.so.6" {print $NF; exit}')
[ -n "$libm" ] || nn_skip "libm.so.6 not in ldconfig's cache"
ln -s "$libm" "$tmp/libxml2.so.2"
ln -s "$libm" "$tmp/libxml2.so.16"
LD_LIBRARY_PATH=$tmp "$ABI" "$SO" --no-libxml2 >"$tmp/without" 2>&1
rc=$?
check "without libxml2: the topology and env defaults served, none loaded" \
  '[ $rc -eq 0 ] && grep -qE "^[0-9]+ checks, 0 failed$" "$tmp/without"'
grep "^FAIL" "$tmp/without"
real=$(ldconfig -p 2>/dev/null | awk '$1 ~ /^libxml2\.so\.[0-9]+$/ {print $NF; exit}')
if [ -n "$real" ]; then
  LD_LIBRARY_PATH='' "$ABI" "$SO" --no-libxml2 >"$tmp/with" 2>&1
  rc=$?
  check "with $real installed: served the same way, none loaded" \
    '[ $rc -eq 0 ] && grep -qE "^[0-9]+ checks, 0 failed$" "$tmp/with"'
  grep "^FAIL" "$tmp/with"
  # The control: the program does see a libxml2 in the process when there is one.
  LD_PRELOAD=$real "$ABI" "$SO" --no-libxml2 >"$tmp/preloaded" 2>&1
  rc=$?
  check "control: a preloaded libxml2 is seen" \
    '[ $rc -eq 1 ] && grep -q "no libxml2 mapped before" "$tmp/preloaded"'
else
  echo "note: no libxml2 installed here; the with-libxml2 run and its control are left out"
fi
nn_finish "the plugin serves its topology with libc alone"
