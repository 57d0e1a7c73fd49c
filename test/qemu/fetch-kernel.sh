#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Fetches the current Debian kernel image for the QEMU boot test into a cache dir
# (default build/qemu-cache): `apt-get download` of the linux-image-*-amd64 package
# that linux-image-amd64 depends on, then only boot/vmlinuz-* is extracted (dpkg-deb).
# Installs nothing. Prints the kernel's path. Usage: fetch-kernel.sh [CACHE_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cache=${1:-$root/build/qemu-cache}
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
if k=$(ls "$cache"/vmlinuz-*-amd64 2>/dev/null | sort -V | tail -n1) && [ -n "$k" ]; then
  echo "$k"
  exit 0
fi
pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
      sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*-amd64\)$/\1/p' | head -n1)
if [ -z "$pkg" ]; then
  echo "fetch-kernel: apt-cache knows no linux-image-*-amd64 behind linux-image-amd64 (apt-get update?)" >&2
  exit 1
fi
work=$(mktemp -d "$cache/fetch.XXXXXX")
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"     # apt's _apt sandbox user must be able to write here
(cd "$work" && apt-get download -q "$pkg" >&2)
deb=$(ls "$work"/*.deb | head -n1)
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$work" --wildcards './boot/vmlinuz-*'
k=$(ls "$work"/boot/vmlinuz-* | head -n1)
mv "$k" "$cache/"
echo "$cache/$(basename "$k")"
