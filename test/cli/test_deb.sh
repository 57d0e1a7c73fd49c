#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The Debian package as a user meets it: `make deb` (dpkg-buildpackage, debhelper,
# lintian), its contents and Depends, installed with dpkg into a fresh root (the
# system is left alone), the installed command (--version, check-config on the
# installed example, exec -- env naming the installed library, its manual pages),
# the real-NCCL env-plugin smoke test on the installed .so, then purge: nothing of
# it may remain. Skipped only where Debian's packaging tools are missing.
. "$(dirname "$0")/helpers/lib.sh"
cd "$root" || exit 1
for t in dpkg-buildpackage dpkg-deb dh dpkg-shlibdeps help2man; do
  command -v "$t" >/dev/null || nn_skip "no $t (apt-get install dpkg-dev debhelper help2man)"
done
nn_tmp nn-deb
version=$(cat VERSION)
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
out=$(DEB_BUILD_OPTIONS=noautodbgsym make -s deb BUILD=build/debtest 2>"$tmp/deb.err")
rc=$?
deb=$(tail -n1 <<<"$out")
check "make deb exits 0 and names the package" "[ $rc -eq 0 ] && [ -f '$deb' ]"
[ $rc -eq 0 ] || { cat "$tmp/deb.err"; nn_finish ""; }
if command -v lintian >/dev/null; then
  check "lintian ran and reports no error" "[ -s build/debtest/pkg/lintian.txt ] && ! grep -q '^E:' build/debtest/pkg/lintian.txt"
fi

# ---- contents
dpkg-deb -c "$deb" | awk '{print $6 ($7 ? " " $7 " " $8 : "")}' | sed 's|^\./|/|' > "$tmp/files"
has() { grep -qxF -- "$1" "$tmp/files"; }
check "package version = VERSION" "[ \"\$(dpkg-deb -f '$deb' Version)\" = '$version' ]"
check "plugin in the multiarch library directory" "has /usr/lib/$ma/libnccl-tuner-numa.so"
check "libnccl-env-numa.so links to it" "has '/usr/lib/$ma/libnccl-env-numa.so -> libnccl-tuner-numa.so'"
check "the command in /usr/bin" "has /usr/bin/nccl-numa"
check "the example mapping" "grep -q '^/usr/share/nccl-numa/examples/.*\.conf$' '$tmp/files'"
check "docs, changelog and copyright" "has /usr/share/doc/nccl-numa/copyright && has /usr/share/doc/nccl-numa/changelog.gz && grep -q '^/usr/share/doc/nccl-numa/README.md' '$tmp/files'"
subs=$("${NN_BUILD:-build}"/nccl-numa --help | sed -n 's/^  \([a-z][a-z0-9-]*\)  *.*/\1/p')
check "the command has subcommands" "[ \$(wc -w <<<\"\$subs\") -ge 10 ]"
missing=
for s in "" $subs; do has "/usr/share/man/man1/nccl-numa${s:+-$s}.1.gz" || missing+=" ${s:-nccl-numa}"; done
check "a manual page for the command and each subcommand (missing:$missing)" "[ -z '$missing' ]"
depends=$(dpkg-deb -f "$deb" Depends)
check "Depends from dpkg-shlibdeps: libc6, libxml2, libhwloc" "[[ '$depends' == *libc6* && '$depends' == *libxml2* && '$depends' == *libhwloc* ]]"
for p in $(tr ',|' '\n\n' <<<"$depends" | sed 's/(.*//; s/ //g'); do
  check "Depends $p is installed here (dpkg -i would take the package)" "dpkg-query -W -f='\${Status}' $p 2>/dev/null | grep -q 'install ok installed'"
done

# ---- install into a fresh root
R=$tmp/root
mkdir -p "$R/var/lib/dpkg/updates" "$R/var/lib/dpkg/info"
: > "$R/var/lib/dpkg/status"
asroot=; [ "$(id -u)" -eq 0 ] || asroot=fakeroot
dpk() { $asroot dpkg --root="$R" --log="$tmp/dpkg.log" --force-not-root --force-depends "$@"; }
dpk -i "$deb" >"$tmp/install.out" 2>&1
check "dpkg -i into the fresh root" "[ $? -eq 0 ]" || cat "$tmp/install.out"
check "dpkg lists it installed at $version" "[ \"\$(dpkg-query --admindir='$R/var/lib/dpkg' -W -f='\${Status} \${Version}' nccl-numa)\" = 'install ok installed $version' ]"
check "dpkg --verify: every installed file matches the package" "dpk --verify nccl-numa >'$tmp/verify' 2>&1 && [ ! -s '$tmp/verify' ]"
CLI=$R/usr/bin/nccl-numa SO=$R/usr/lib/$ma/libnccl-tuner-numa.so
EX=$(ls "$R"/usr/share/nccl-numa/examples/*.conf | head -n1)
check "installed: --version" "[ \"\$('$CLI' --version | head -n1)\" = 'nccl-numa $version' ]"
check "installed: check-config on the installed example" "'$CLI' check-config '$EX' >/dev/null"
envout=$(cd / && "$CLI" exec --config "$EX" -- env)
check "installed: exec -- env names the installed tuner" "grep -qx 'NCCL_TUNER_PLUGIN=$SO' <<<\"\$envout\""
check "installed: exec -- env names the installed env plugin and example" "grep -qx 'NCCL_ENV_PLUGIN=$SO' <<<\"\$envout\" && grep -qx 'NCCL_NUMA_CONFIG=$EX' <<<\"\$envout\""
check "installed manual page of ab shows its --help (--launcher)" "zcat '$R/usr/share/man/man1/nccl-numa-ab.1.gz' | grep -q 'launcher'"
check "installed manual pages carry the version" "zcat '$R/usr/share/man/man1/nccl-numa-check.1.gz' | grep -q '^\.TH NCCL-NUMA-CHECK .*nccl-numa check $version'"
# every library the installed command and plugin link (NEEDED) comes from a package
# the Depends line names (libraries those pull in are their packages' business)
needed=$(for f in "$CLI" "$SO"; do readelf -d "$f" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p'; done | sort -u)
check "the command links libxml2 and hwloc" "grep -q libxml2 <<<\"\$needed\" && grep -q libhwloc <<<\"\$needed\""
check "the installed plugin links glibc only" "! readelf -d '$SO' | sed -n 's/.*Shared library: \\[\\(.*\\)\\]/\\1/p' | grep -qvE '^(libc|libpthread|libdl)\\.so'"
for n in $needed; do
  lib=$(ldd "$CLI" "$SO" | awk -v n="$n" '{ for (i = 1; i <= NF; i++) if ($i ~ /^\//) { b = $i; sub(/.*\//, "", b); if (b == n) { print $i; exit } } }')
  pkg=$(dpkg -S "$(readlink -f "$lib")" 2>/dev/null | head -n1 | cut -d: -f1)
  [ -n "$pkg" ] || pkg=$(dpkg -S "$lib" 2>/dev/null | head -n1 | cut -d: -f1)
  check "library $(basename "$lib") (package ${pkg:-?}) is in Depends" "[ -n '$pkg' ] && [[ '$depends' == *'$pkg'* ]]"
done
smoke=$(bash test/nccl/run_smoke.sh "$SO" 2>&1); src=$?
if [ $src -eq 77 ]; then
  echo "note: real-NCCL smoke test on the installed .so $(grep -m1 skipped <<<"$smoke")"
else
  check "real NCCL uses the installed plugin (test/nccl/run_smoke.sh $SO)" "[ $src -eq 0 ] && grep -q 'passed: .*$SO' <<<\"\$smoke\"" || echo "$smoke" | tail -n 20
fi

# NCCL_ENV_PLUGIN=numa: NCCL opens libnccl-env-numa.so from the library path, which is
# the package's link (here the fresh root's library directory is the only place with it).
if [ $src -ne 77 ] && ! ldconfig -p 2>/dev/null | grep -q libnccl-env-numa; then
  printf 'env NCCL_SOCKET_IFNAME=lo\n' > "$tmp/byname.conf"
  byname=$(env -u NCCL_SOCKET_IFNAME -u NCCL_TOPO_FILE -u NCCL_DEBUG_SUBSYS XDG_RUNTIME_DIR="$tmp" \
    LD_LIBRARY_PATH="$R/usr/lib/$ma${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" NCCL_ENV_PLUGIN=numa \
    NCCL_NUMA_CONFIG="$tmp/byname.conf" NCCL_DEBUG=INFO "${NN_BUILD:-build}"/tools/nccl_smoke 2>&1)
  check "NCCL_ENV_PLUGIN=numa loads the installed plugin by its libnccl-env-numa.so name" \
    "grep -q 'ENV/Plugin: Using nccl-numa' <<<\"\$byname\" && grep -q 'nccl-numa $version: env plugin' <<<\"\$byname\" && grep -q 'NCCL_SOCKET_IFNAME set by environment to lo' <<<\"\$byname\"" ||
    echo "$byname" | tail -n 15
fi

# ---- purge: nothing of it left
dpk --purge nccl-numa >"$tmp/purge.out" 2>&1
check "dpkg --purge" "[ $? -eq 0 ]" || cat "$tmp/purge.out"
left=$(cd "$R" && find . -mindepth 1 ! -path './var' ! -path './var/lib' ! -path './var/lib/dpkg' ! -path './var/lib/dpkg/*')
check "nothing of the package is left (left: ${left:-nothing})" "[ -z '$left' ]"
check "dpkg no longer knows it" "! dpkg-query --admindir='$R/var/lib/dpkg' -W -f='\${Status}' nccl-numa 2>/dev/null | grep -q installed"
nn_finish "deb checks passed"
