#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# `make deb`: builds the Debian binary package with Debian's own tooling
# (dpkg-buildpackage and debhelper: dh_shlibdeps for Depends, dh_installman,
# dh_installdocs, dh_installchangelogs ...) in a copy of the source tree under
# OUT (default build/pkg), then runs lintian when it is installed (errors fail).
# The package's version is debian/changelog's, which must equal VERSION.
# Prints the .deb's path as its last line.
# usage: debian/make-deb.sh [OUT]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(mkdir -p "${1:-$root/build/pkg}" && cd "${1:-$root/build/pkg}" && pwd)
cd "$root"
version=$(cat VERSION)
deb_version=$(dpkg-parsechangelog -l debian/changelog -S Version)
if [ "${deb_version%-*}" != "$version" ]; then
  echo "make deb: debian/changelog is at $deb_version, VERSION says $version (dch -v $version)" >&2
  exit 1
fi
src=$out/nccl-numa-$version
rm -rf "$out"/nccl-numa[-_]* "$out"/*.buildinfo "$out"/*.changes
mkdir -p "$src"
# The tree as checked out (git's view when there is one), without build outputs.
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  git ls-files -z --cached --others --exclude-standard |
    while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
    tar --null -T - -cf - | tar -xf - -C "$src"
else
  tar --exclude=./build --exclude='./build-*' --exclude=./.git -cf - . | tar -xf - -C "$src"
fi
if ! (cd "$src" && dpkg-buildpackage -b -us -uc -j"${JOBS:-$(nproc)}") >"$out/build.log" 2>&1; then
  tail -n 40 "$out/build.log" >&2
  echo "make deb: dpkg-buildpackage failed (log: $out/build.log)" >&2
  exit 1
fi
deb=$(ls "$out"/nccl-numa_"$deb_version"_*.deb)
if command -v lintian >/dev/null; then
  lintian --fail-on error --info "$deb" >"$out/lintian.txt" 2>&1 || {
    cat "$out/lintian.txt" >&2
    echo "make deb: lintian reports errors" >&2
    exit 1
  }
  sed 's/^/lintian: /' "$out/lintian.txt" >&2
fi
echo "$deb"
