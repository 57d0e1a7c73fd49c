# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash disable=SC2034,SC2154
# bundle_env.sh - sourced by run.sh --bundle DIR: the programs of the folder `make
# gpu-bundle` wrote, and the libraries they run with. NCCL and the CUDA runtime are the
# machine's (find_cuda.sh --runtime: NCCL_HOME, python3's nvidia wheels, CUDA_HOME, the
# loader's cache); of the libraries in DIR/lib (hwloc, libxml2 and what they pull in, the
# CUDA runtime) only those the machine lacks are used, through symbolic links in
# OUT/fallback-lib on LD_LIBRARY_PATH. NN_GPU_SYSLIBS="DIR..." (the rehearsal): the
# machine's library directories are these alone, and its loader cache is not read.
# Uses run.sh's $OUT, fatal, skip, and sets CHK CLI SO DRV vars.

nn_bundle_has_lib() {   # nn_bundle_has_lib SONAME EXTRA_DIR...: whether the machine has it
  local so=$1 d
  shift
  local dirs=("$@")
  if [ -n "${NN_GPU_SYSLIBS+set}" ]; then
    read -r -a sys <<<"$NN_GPU_SYSLIBS"
    dirs+=("${sys[@]}")
  else
    # not on a user's PATH on Debian: /sbin/ldconfig
    { command -v ldconfig >/dev/null && ldconfig -p || /sbin/ldconfig -p; } 2>/dev/null | awk -v so="$so" '$1 == so {f = 1} END {exit !f}' && return 0
    local m
    m=$(uname -m)-linux-gnu
    dirs+=("/lib/$m" "/usr/lib/$m" /lib64 /usr/lib64 /lib /usr/lib /usr/local/lib)
  fi
  for d in "${dirs[@]}"; do [ -n "$d" ] && [ -e "$d/$so" ] && return 0; done
  return 1
}

nn_bundle_glibc_ok() {   # nn_bundle_glibc_ok NEED WHAT: the machine's glibc is NEED or newer
  local have
  have=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}')
  [ -z "$1" ] || [ -z "$have" ] || [ "$(printf '%s\n%s\n' "$1" "$have" | sort -V | head -n 1)" = "$1" ] ||
    fatal "$2 needs glibc $1 or newer, this machine has $have: make gpu-bundle on an older system"
}

nn_bundle_env() {   # nn_bundle_env DIR
  local b=$1 f rt nccl_lib cudart_lib so used=()
  for f in BUNDLE.txt libnccl-tuner-numa.so nccl-numa nn_gpucheck nn_coll_driver; do
    [ -e "$b/$f" ] || fatal "--bundle $b: no $f there (is it a folder make gpu-bundle wrote?)"
  done
  CHK=$b/nn_gpucheck CLI=$b/nccl-numa SO=$b/libnccl-tuner-numa.so DRV=${NN_GPU_DRIVER:-$b/nn_coll_driver}
  nn_bundle_glibc_ok "$(sed -n 's/^glibc: //p' "$b/BUNDLE.txt")" "the bundle's programs"
  rt=$(CUDART_SONAME=$(sed -n 's/^cudart: //p' "$b/BUNDLE.txt") bash "$here/find_cuda.sh" --runtime) ||
    skip "${rt#skipped: }"
  nccl_lib=$(sed -n 's/^NCCL_LIB=//p' <<<"$rt") cudart_lib=$(sed -n 's/^CUDART_LIB=//p' <<<"$rt")
  mkdir -p "$OUT/fallback-lib"
  for f in "$b"/lib/*; do
    [ -e "$f" ] || continue
    so=${f##*/}
    nn_bundle_has_lib "$so" "$nccl_lib" "$cudart_lib" && continue
    nn_bundle_glibc_ok "$(awk -v so="$so" '$1 == "lib-glibc:" && $2 == so {print $3}' "$b/BUNDLE.txt")" \
      "this machine lacks $so, and the bundle's copy"
    ln -sf "$f" "$OUT/fallback-lib/$so"
    used+=("$so")
  done
  export LD_LIBRARY_PATH=$nccl_lib${cudart_lib:+:$cudart_lib}:$OUT/fallback-lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  vars="bundle $b ($(sed -n 's/^built: //p' "$b/BUNDLE.txt")); NCCL from $nccl_lib, CUDA runtime from ${cudart_lib:-the bundle}"
  echo "bundle: libraries of its own used (missing here): ${used[*]:-none}" >> "$OUT/machine.txt"
}
