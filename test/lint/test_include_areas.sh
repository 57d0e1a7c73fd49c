#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# test_include_areas.sh - each part is compiled with the headers it may use and no other:
# plants sources in a scratch tree and builds them through the Makefile's own object rule
# (VPATH finds them), so the flags tested are the flags the build uses. plugin/util sees
# util; plugin/core and cli/ see core and util; plugin/abi sees the NCCL ABI headers too; the
# benchmark (cli/sweep) and the Proxmox rewriter (cli/proxmox) are included by cli/cmd alone.
# An include by name outside an area is not found; one by path is refused after the compile.
set -u
cd "$(dirname "$0")/../.."
REPO=$PWD
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0

abi_header=$(cd include/abi/nccl && ls -- *.h | head -n1)
[ -n "$abi_header" ] || { echo "FAIL: no header in include/abi/nccl"; exit 1; }

plant() {   # plant AREA NAME INCLUDE...: a source under $T/AREA including each INCLUDE
  local area=$1 name=$2; shift 2
  mkdir -p "$T/$area"
  { printf '#include "%s"\n' "$@"
    printf 'int nn_planted_%s(void);\nint nn_planted_%s(void) { return 0; }\n' "$name" "$name"
  } >"$T/$area/planted_$name.c"
}

build() {   # build AREA NAME: the Makefile's object rule on the planted source; its output in $T/NAME.log
  make -s -C "$REPO" BUILD="$T/build" VPATH="$T" "$T/build/obj/$1/planted_$2.o" >"$T/$2.log" 2>&1
}

expect_built() {   # expect_built AREA NAME
  if build "$1" "$2" && [ -s "$T/build/obj/$1/planted_$2.o" ]; then echo "ok: $1 builds with $(head -n1 "$T/$1/planted_$2.c")"
  else echo "FAIL: $1/planted_$2.c did not build:"; sed 's/^/  /' "$T/$2.log"; fails=$((fails+1)); fi
}

expect_refused() {   # expect_refused AREA NAME WHY-REGEX
  if build "$1" "$2"; then echo "FAIL: $1/planted_$2.c built: $(head -n1 "$T/$1/planted_$2.c")"; fails=$((fails+1))
  elif [ -e "$T/build/obj/$1/planted_$2.o" ]; then echo "FAIL: $1/planted_$2.c was refused but its object is left"; fails=$((fails+1))
  elif ! grep -Eq "$3" "$T/$2.log"; then echo "FAIL: $1/planted_$2.c failed, not for /$3/:"; sed 's/^/  /' "$T/$2.log"; fails=$((fails+1))
  else echo "ok: $1 refuses $(head -n1 "$T/$1/planted_$2.c"): $(grep -Em1 "$3" "$T/$2.log")"; fi
}

# What each area may use builds: without these, a refusal below could have any cause.
plant plugin/util util_ok errbuf.h ascii.h
plant plugin/core core_ok nn_config.h errbuf.h
plant plugin/abi abi_ok "$abi_header" nn_config.h errbuf.h
plant cli cli_ok nn_config.h errbuf.h
plant cli/cmd cmd_leaves cli/sweep/rundir.h cli/proxmox/proxmox_numa.h
expect_built plugin/util util_ok
expect_built plugin/core core_ok
expect_built plugin/abi abi_ok
expect_built cli cli_ok
expect_built cli/cmd cmd_leaves

not_found="[a-z_0-9]+\.h: No such file|'[a-z_0-9]+\.h' file not found"
by_path="includes a header of an area it may not use"
plant plugin/core core_abi "$abi_header"
plant plugin/core core_abi_path "$REPO/include/abi/nccl/$abi_header"
plant plugin/core core_adapter_path "$REPO/plugin/abi/tuner.h"
plant plugin/util util_abi "$abi_header"
plant plugin/util util_core nn_config.h
plant plugin/util util_core_path "$REPO/include/core/nn_config.h"
plant cli cli_abi "$abi_header"
plant cli/common common_sweep cli/sweep/rundir.h
plant cli/predict predict_proxmox cli/proxmox/proxmox_numa.h
plant cli/sweep sweep_proxmox cli/proxmox/proxmox_numa.h
expect_refused plugin/core core_abi "$not_found"
expect_refused plugin/core core_abi_path "$by_path"
expect_refused plugin/core core_adapter_path "$by_path|$not_found"
expect_refused plugin/util util_abi "$not_found"
expect_refused plugin/util util_core "$not_found"
expect_refused plugin/util util_core_path "$by_path"
expect_refused cli cli_abi "$not_found"
expect_refused cli/common common_sweep "$by_path"
expect_refused cli/predict predict_proxmox "$by_path"
expect_refused cli/sweep sweep_proxmox "$by_path"

[ $fails -eq 0 ] && echo "include areas: all held" || echo "include areas: $fails failed"
[ $fails -eq 0 ]
