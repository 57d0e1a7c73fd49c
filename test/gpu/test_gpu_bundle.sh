#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# make gpu-bundle and run.sh --bundle on the CPU: the bundle (driver built against this
# machine's NCCL instead of the wheel, so no network is needed) is one folder of at most
# 64 MiB with the programs, the kit's scripts and the run-time libraries, no glibc and no
# rpath in the driver; the kit runs from it outside the checkout on the stand-ins, with the
# machine's libraries or, where it "lacks" them (NN_GPU_SYSLIBS), the bundle's; the
# bundle's real driver loads the machine's NCCL and FAILs for want of a GPU; no NCCL is a
# skip; a glibc too old is a FAIL. And HWLOC=0 builds the CLI and nn_gpucheck without hwloc.
. "$(dirname "$0")/../cli/helpers/lib.sh"
cd "$root" || exit 1
vars=$(bash test/gpu/find_cuda.sh) || nn_skip "${vars#skipped: }"
nccl_inc=$(sed -n 's/^NCCL_INC=//p' <<<"$vars")
nn_tmp nn-bundle
T=$tmp
S=$root/test/gpu/standin
B=$T/bundle
make -s gpu-bundle BUNDLE="$B" BUNDLE_NCCL_HOME="${nccl_inc%/include}" > "$T/make.out" 2>&1
check "make gpu-bundle exits 0" "[ $? -eq 0 ] || { tail -n 20 '$T/make.out'; false; }"
for f in libnccl-tuner-numa.so nccl-numa nn_gpucheck nn_coll_driver run.sh find_cuda.sh bundle_env.sh BUNDLE.txt \
  lib/libxml2.so.2 lib/libhwloc.so.15 lib/libcudart.so.13; do
  check "bundle has $f" "[ -s '$B/$f' ]"
done
bytes=$(du -sb "$B" | awk '{print $1}')
check "bundle is one folder of at most 64 MiB ($((bytes >> 20)) MiB)" "[ $bytes -le $((64 << 20)) ]"
check "bundle has no glibc library" "! ls '$B/lib' | grep -qE '^(libc\.so|libm\.so|libdl\.so|libpthread\.so|ld-linux)'"
check "the bundle's driver has no rpath (the machine's NCCL runs)" "! readelf -d '$B/nn_coll_driver' | grep -qE 'RPATH|RUNPATH'"
ver=$(awk '/^#define NCCL_(MAJOR|MINOR|PATCH) /{v = v (v ? "." : "") $3} END {print v}' "$nccl_inc/nccl.h")
check "BUNDLE.txt names the NCCL the driver was built against ($ver)" "grep -q 'driver against NCCL $ver' '$B/BUNDLE.txt'"

# the stand-in CUDA driver and NVML for step p (nccl-numa p2p): test/p2p/fakecuda.c
FAKECUDA=(NCCL_NUMA_CUDA_LIB="$build_dir/tools/libnn-fakecuda.so" NCCL_NUMA_NVML_LIB="$build_dir/tools/libnn-fakecuda.so")
kit() {   # kit OUT [VAR=VALUE...]: the bundle's kit, run from outside the checkout; $rc
  local out=$1
  shift
  (cd "$T" && env PATH="$S:$PATH" NN_GPU_OUT="$T/$out" NN_GPU_TIMEOUT=240 "${FAKECUDA[@]}" "$@" \
    bash "$B/run.sh" --bundle "$B" > "$T/$out.stdout" 2>&1)
  rc=$?
}
kit good NN_GPU_DRIVER="$S/nn_coll_driver" STANDIN_NCCL=2.28.9
check "the bundle's kit passes on the stand-ins (2.28.9)" "[ $rc -eq 0 ] || { tail -n 20 '$T/good.stdout'; false; }"
check "machine.txt: the machine's libraries, none of the bundle's" "grep -q 'libraries of its own used (missing here): none' '$T/good/machine.txt'"
check "machine.txt: the bundle and the NCCL it runs" "grep -q '^build: bundle $B .*NCCL from ' '$T/good/machine.txt'"

(cd "$T" && env PATH="$S:$PATH" NN_GPU_OUT="$T/plain" NN_GPU_DRIVER="$S/nn_coll_driver" "${FAKECUDA[@]}" bash "$B/run.sh" > "$T/plain.stdout" 2>&1)
check "the bundle's run.sh without --bundle uses its own folder" "[ $? -eq 0 ] && grep -q '^build: bundle $B ' '$T/plain/machine.txt'"

mkdir -p "$T/empty"
kit lacks NN_GPU_DRIVER="$S/nn_coll_driver" NN_GPU_SYSLIBS="$T/empty"
check "a machine lacking the libraries: the kit passes with the bundle's" "[ $rc -eq 0 ] || { tail -n 20 '$T/lacks.stdout'; false; }"
check "a machine lacking the libraries: libxml2 and hwloc named as the bundle's" \
  "grep -q 'libraries of its own used (missing here):.*libhwloc.so.15.*libxml2.so.2' '$T/lacks/machine.txt'"
check "a machine lacking the libraries: the CLI loads libxml2 and hwloc from the bundle there" \
  "LD_LIBRARY_PATH='$T/lacks/fallback-lib' ldd '$B/nccl-numa' | grep -q 'libxml2.so.2 => $T/lacks/fallback-lib/' &&
   LD_LIBRARY_PATH='$T/lacks/fallback-lib' ldd '$B/nccl-numa' | grep -q 'libhwloc.so.15 => $T/lacks/fallback-lib/'"

kit real
check "the bundle's own driver, no GPU here: FAIL, not skipped" \
  "[ $rc -eq 1 ] && grep -q '^setup FAIL nvidia-smi lists a GPU but the CUDA runtime sees none' '$T/real/summary.txt'"

kit nonccl NN_GPU_SYSLIBS="$T/empty" CUDA_HOME="$T/empty" NCCL_HOME=
check "no NCCL on the machine: skipped (77), named" \
  "[ $rc -eq 77 ] && grep -q '^skipped: no NCCL: no libnccl.so.2' '$T/nonccl.stdout'"

sed -i 's/^glibc: .*/glibc: 9.99/' "$B/BUNDLE.txt"
kit oldglibc NN_GPU_DRIVER="$S/nn_coll_driver"
check "a glibc older than the bundle's: FAIL naming both" \
  "[ $rc -eq 1 ] && grep -q \"^setup FAIL the bundle's programs needs glibc 9.99 or newer, this machine has\" '$T/oldglibc/summary.txt'"

make -s BUILD="$T/nohwloc" HWLOC=0 "$T/nohwloc/nccl-numa" "$T/nohwloc/tools/nn_gpucheck" > "$T/nohwloc.out" 2>&1
check "HWLOC=0: the CLI and nn_gpucheck build" "[ $? -eq 0 ] || { tail -n 20 '$T/nohwloc.out'; false; }"
check "HWLOC=0: neither links hwloc" "! readelf -d '$T/nohwloc/nccl-numa' '$T/nohwloc/tools/nn_gpucheck' | grep -q 'libhwloc'"
"$T/nohwloc/nccl-numa" discover > "$T/disc.out" 2>&1
check "HWLOC=0: discover says it was built without hwloc" "[ $? -ne 0 ] && grep -q 'built without hwloc' '$T/disc.out'"
nn_finish "GPU bundle: one folder, runs outside the checkout with the machine's or its own libraries"
