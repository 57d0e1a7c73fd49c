#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# make_bundle.sh (`make gpu-bundle`): one folder with what the GPU kit needs on a machine
# without network or -dev packages: the plugin, the CLI, nn_gpucheck, nn_coll_driver built
# against the NCCL of the pinned wheel (no rpath: the machine's NCCL is the one that runs),
# the kit's scripts, and in lib/ the run-time libraries a bare image may lack (those the
# CLI and nn_gpucheck link, libxml2's, which the plugin opens at run time, and the CUDA
# runtime; never glibc's own), used there only where the machine lacks them.
#   BUNDLE            the folder (default $BUILD/gpu-bundle; replaced), at most 64 MiB
#   BUNDLE_NCCL_HOME  an NCCL (include/nccl.h, lib/libnccl.so.2) to build the driver
#                     against instead of the wheel
#   NCCL_WHEEL        the wheel, default nvidia-nccl-cu13==2.28.9 (what PyTorch 2.11
#                     pins), fetched once with pip into $BUILD/wheels
set -u
cd "$(dirname "$0")/../.." || exit 1
BUILD=${BUILD:-build}
BUNDLE=${BUNDLE:-$BUILD/gpu-bundle}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
NCCL_WHEEL=${NCCL_WHEEL:-nvidia-nccl-cu13==2.28.9}
MAX_BYTES=$((64 << 20))
die() { echo "make gpu-bundle: $*" >&2; exit 1; }

wheel_nccl() {   # the wheel's NCCL unpacked under $BUILD/wheels; prints its directory
  local name=${NCCL_WHEEL%%==*} ver=${NCCL_WHEEL##*==} dir
  dir=$BUILD/wheels/$name-$ver
  if [ ! -e "$dir/lib/libnccl.so.2" ]; then
    python3 -m pip download --no-deps --only-binary=:all: --platform "manylinux_2_18_$(uname -m)" \
      --python-version 3.11 "$NCCL_WHEEL" -d "$BUILD/wheels" >&2 || die "pip download $NCCL_WHEEL failed"
    python3 - "$BUILD/wheels" "${name//-/_}-$ver-" "$dir" <<'PY' || die "cannot unpack the wheel of $NCCL_WHEEL"
import glob, os, shutil, sys, zipfile
src, prefix, dst = sys.argv[1:]
whl = sorted(glob.glob(os.path.join(src, prefix + "*.whl")))[-1]
with zipfile.ZipFile(whl) as z:
    for member, out in (("nvidia/nccl/include/nccl.h", "include/nccl.h"), ("nvidia/nccl/lib/libnccl.so.2", "lib/libnccl.so.2")):
        os.makedirs(os.path.dirname(os.path.join(dst, out)), exist_ok=True)
        with z.open(member) as f, open(os.path.join(dst, out), "wb") as g:
            shutil.copyfileobj(f, g)
PY
  fi
  echo "$dir"
}

# glibc's own libraries come with every image, and must match its loader
is_glibc() { case $1 in linux-vdso.so.*|ld-linux*|libc.so.*|libm.so.*|libdl.so.*|libpthread.so.*|librt.so.*|libutil.so.*|libresolv.so.*) return 0 ;; esac; return 1; }
copy_deps() {   # copy_deps FILE...: the shared libraries they load, into $BUNDLE/lib
  local so path
  ldd "$@" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' | sort -u |
    while read -r so path; do
      is_glibc "$so" || [ -e "$BUNDLE/lib/$so" ] || cp -L "$path" "$BUNDLE/lib/$so" || exit 1
    done
}

nccl_home=${BUNDLE_NCCL_HOME:-$(wheel_nccl)} || exit 1
[ -e "$nccl_home/include/nccl.h" ] || die "no $nccl_home/include/nccl.h"
vars=$(NCCL_HOME=$nccl_home CUDA_HOME=$CUDA_HOME bash test/gpu/find_cuda.sh) || die "${vars#skipped: }"
grep -qx "NCCL_INC=$nccl_home/include" <<<"$vars" || die "find_cuda.sh did not take $nccl_home: $vars"
make -s -j"$(nproc)" BUILD="$BUILD" all "$BUILD/tools/nn_gpucheck" || die "building the plugin, CLI and nn_gpucheck failed"
# shellcheck disable=SC2086
make -s BUILD="$BUILD/gpu-bundle-driver" $vars DRIVER_RPATH= "$BUILD/gpu-bundle-driver/tools/nn_coll_driver" ||
  die "building the driver against $nccl_home failed"

rm -rf "$BUNDLE" && mkdir -p "$BUNDLE/lib" || die "cannot create $BUNDLE"
cp "$BUILD/libnccl-tuner-numa.so" "$BUILD/nccl-numa" "$BUILD/tools/nn_gpucheck" \
  "$BUILD/gpu-bundle-driver/tools/nn_coll_driver" "$BUNDLE/" || die "copy failed"
cp test/gpu/run.sh test/gpu/find_cuda.sh test/gpu/bundle_env.sh "$BUNDLE/" || die "copy failed"
strip --strip-debug "$BUNDLE/libnccl-tuner-numa.so" "$BUNDLE/nccl-numa" "$BUNDLE/nn_gpucheck" "$BUNDLE/nn_coll_driver"
xml=$(ldd "$BUNDLE/nccl-numa" | awk '$1 == "libxml2.so.2" {print $3; exit}')   # the plugin opens it too
[ -e "$xml" ] || die "nccl-numa does not load libxml2.so.2 from a file here"
copy_deps "$BUNDLE/nccl-numa" "$BUNDLE/nn_gpucheck" "$xml" || die "copying the libraries failed"
cudart=$(readelf -d "$BUNDLE/nn_coll_driver" | sed -n 's/.*NEEDED.*\[\(libcudart[^]]*\)\].*/\1/p')
cudart_lib=$(sed -n 's/^CUDART_LIB=//p' <<<"$vars")
[ -n "$cudart" ] && [ -e "$cudart_lib/$cudart" ] || die "the driver needs ${cudart:-no libcudart?}, not in $cudart_lib"
cp -L "$cudart_lib/$cudart" "$BUNDLE/lib/$cudart"
for f in "$BUNDLE"/lib/*; do is_glibc "${f##*/}" && die "$f is glibc's"; done

nccl_ver=$(awk '/^#define NCCL_(MAJOR|MINOR|PATCH) /{v = v (v ? "." : "") $3} END {print v}' "$nccl_home/include/nccl.h")
glibc_of() { objdump -T "$1" 2>/dev/null | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -n 1; }
glibc=$(for f in nccl-numa nn_gpucheck nn_coll_driver libnccl-tuner-numa.so; do glibc_of "$BUNDLE/$f"; done | sort -V | tail -n 1)
{
  echo "nccl-numa GPU kit bundle (make gpu-bundle); run: bash run.sh --bundle THIS_FOLDER"
  echo "built: nccl-numa $(cat VERSION) $(git rev-parse --short HEAD 2>/dev/null || echo '?') on $(uname -n) $(date -u '+%Y-%m-%d %H:%M UTC'), driver against NCCL $nccl_ver ($nccl_home)"
  echo "glibc: $glibc"
  echo "cudart: $cudart"
  echo "lib/ (used only where the machine lacks them): $(cd "$BUNDLE/lib" && echo *)"
  for f in "$BUNDLE"/lib/*; do echo "lib-glibc: ${f##*/} $(glibc_of "$f")"; done
} > "$BUNDLE/BUNDLE.txt"
bytes=$(du -sb "$BUNDLE" | awk '{print $1}')
[ "$bytes" -le $MAX_BYTES ] || die "$BUNDLE is $bytes bytes, more than 64 MiB"
echo "gpu-bundle: $BUNDLE, $((bytes >> 20)) MiB ($bytes bytes): driver against NCCL $nccl_ver, glibc $glibc or newer"
