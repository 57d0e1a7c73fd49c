#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Installs the Debian 12 packages nccl-numa needs to build and test; skips what is there.
set -eu
PKGS="make gcc clang pkg-config libxml2-dev libxml2 libhwloc-dev hwloc-nox libcmocka-dev gnuplot-nox
      valgrind cppcheck clang-tidy libclang-rt-14-dev python3 qemu-system-x86 busybox-static cpio
      openmpi-bin libopenmpi-dev dpkg-dev debhelper fakeroot lintian help2man"
missing=()
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
