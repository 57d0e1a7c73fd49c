#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# build.sh NCCL_SRC_DIR [OUT_BIN] - build the NCCL topology/search/tuning oracle for the CPU.
# A development tool of its own: never part of make, make check or CI (they have no NCCL source).
#
# Compiles, UNMODIFIED, from the NCCL tree given as argument:
#   src/graph/{topo,paths,search,xml,connect,rings,trees,tuning}.cc   topology, paths, search,
#                                                                      channels, cost model
#   (2.31/dev: no graph/tuning.cc; the cost model is src/tuning/*.cc, -DORACLE_TUNING_SUBSYSTEM)
#   src/enqueue.cc (via enqueue_shim.cc, which #includes it)          algorithm selection
#   src/transport/p2p.cc, src/transport/shm.cc                        canConnect() used by paths
#   src/misc/param.cc, src/misc/utils.cc  (2.30+: src/param/*.cc, src/os/linux.cc as needed)
# plus this directory's driver (oracle.cc) and stubs (stubs.cc).  NCCL's own small helpers that
# are reached but live in files not compiled are copied verbatim from the tree at build time
# (extract_funcs.py, into the build dir).  Whatever else those files reference is given an
# aborting stub by gen_stubs.py (never reached).
# Nothing is written into the NCCL tree.  Everything built goes under the project's build
# directory: $BUILD (default build, relative to the repository root, as for make) holds
# nccl-oracle/oracle-<version> (OUT_BIN when not given) and nccl-oracle/obj-<version>
# (objects; $ORACLE_BUILD_DIR overrides).  CUDA headers: $CUDA_HOME (default /usr/local/cuda).
set -euo pipefail
[ $# -eq 1 ] || [ $# -eq 2 ] || { echo "usage: $0 NCCL_SRC_DIR [OUT_BIN]" >&2; exit 2; }
NSRC=$(cd "$1" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$(cd "$HERE/../.." && pwd)/$BUILD ;; esac
S=$NSRC/src
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
JOBS=${JOBS:-2}
[ -f "$NSRC/makefiles/version.mk" ] || { echo "not an NCCL tree: $NSRC" >&2; exit 2; }
MAJ=$(sed -n 's/^NCCL_MAJOR *:= *//p' "$NSRC/makefiles/version.mk")
MIN=$(sed -n 's/^NCCL_MINOR *:= *//p' "$NSRC/makefiles/version.mk")
PAT=$(sed -n 's/^NCCL_PATCH *:= *//p' "$NSRC/makefiles/version.mk")
SUF=$(sed -n 's/^NCCL_SUFFIX *:= *//p' "$NSRC/makefiles/version.mk")
VER=$(printf "%d%02d%02d" "$MAJ" "$MIN" "$PAT")
B=${ORACLE_BUILD_DIR:-$BUILD/nccl-oracle/obj-$MAJ.$MIN.$PAT}
OUT=${2:-$BUILD/nccl-oracle/oracle-$MAJ.$MIN.$PAT}
mkdir -p "$B/inc" "$B/obj" "$(dirname "$OUT")"
echo "oracle: NCCL $MAJ.$MIN.$PAT from $NSRC, build dir $B" >&2

# nccl.h exactly as src/Makefile generates it
sed -e "s/\${nccl:Major}/$MAJ/g" -e "s/\${nccl:Minor}/$MIN/g" -e "s/\${nccl:Patch}/$PAT/g" \
    -e "s/\${nccl:Suffix}/$SUF/g" -e "s/\${nccl:Version}/$VER/g" "$S/nccl.h.in" > "$B/inc/nccl.h.new"
cmp -s "$B/inc/nccl.h.new" "$B/inc/nccl.h" 2>/dev/null && rm "$B/inc/nccl.h.new" || mv "$B/inc/nccl.h.new" "$B/inc/nccl.h"

# The string tables and the one parameter of init.cc that the compiled code uses, taken
# verbatim from this tree's init.cc (init.cc itself is not compiled).
python3 - "$S/init.cc" "$B/obj/init_tables.cc" <<'PY'
import re, sys
src = open(sys.argv[1]).read()
out = ['#include "comm.h"', '#include "param.h"', '// extracted verbatim from init.cc']
for name in ("ncclFuncStr", "ncclAlgoStr", "ncclProtoStr"):
    m = re.search(r'^const char\* %s\[[^\]]*\]\s*=\s*\{.*?\};' % name, src, re.S | re.M)
    if not m: sys.exit("init.cc: %s not found" % name)
    out.append(m.group(0))
m = re.search(r'^NCCL_PARAM\(WorkArgsBytes,[^\n]*\);', src, re.M)
if not m: sys.exit("init.cc: WorkArgsBytes not found")
out.append(m.group(0))
open(sys.argv[2], "w").write("\n".join(out) + "\n")
PY

INC="-I $B/inc -I $HERE -I $S -I $S/include -I $S/include/plugin -I $S/graph -I $CUDA_HOME/include -I $CUDA_HOME/include/cccl"
[ -d "$S/os" ] && INC="$INC -I $S/os"
[ -d "$S/param" ] && INC="$INC -I $S/param"
CXXFLAGS="-std=c++17 -O2 -g0 -fPIC -ffunction-sections -fdata-sections -DCUDA_MAJOR=13 -DCUDA_MINOR=0 -DNCCL_OS_LINUX \
 -DNVTX_DISABLE -Wno-deprecated-declarations -Wno-unused-result -Wno-format-truncation $INC"

# the selection entry point: file-static getAlgoInfo (2.28) or ncclGetAlgoInfo (2.29+)
if grep -q "^ncclResult_t ncclGetAlgoInfo(" "$S/enqueue.cc"; then CXXFLAGS="$CXXFLAGS -DORACLE_GETALGOINFO=ncclGetAlgoInfo"; fi

NCCL_UNITS="graph/topo graph/paths graph/search graph/xml graph/connect graph/rings graph/trees
 transport/p2p transport/shm misc/utils"
# the cost model: graph/tuning.cc up to 2.30; 2.31+ (dev, commit 1fc949c5 "Refactor NCCL tuning and algorithm
# selection"): the src/tuning/ subsystem (ncclTuningInit / ncclTuningCompute, constants in comm->tuningContext)
if [ -f "$S/graph/tuning.cc" ]; then NCCL_UNITS="$NCCL_UNITS graph/tuning"; fi
if [ -d "$S/tuning" ]; then
  NCCL_UNITS="$NCCL_UNITS $(cd $S && ls tuning/*.cc | sed 's/\.cc$//' | tr '\n' ' ')"
  CXXFLAGS="$CXXFLAGS -I $S/tuning -DORACLE_TUNING_SUBSYSTEM=1"
fi
if [ -d "$S/param" ]; then NCCL_UNITS="$NCCL_UNITS $(cd $S && ls param/*.cc | grep -v ncclparam.cc | sed 's/\.cc$//' | tr '\n' ' ')"; fi
[ -f "$S/misc/param.cc" ] && NCCL_UNITS="$NCCL_UNITS misc/param"
[ -f "$S/os/linux.cc" ] && NCCL_UNITS="$NCCL_UNITS os/linux"

compile() {  # src obj
  local src=$1 obj=$2
  if [ ! -f "$obj" ] || [ "$src" -nt "$obj" ] || [ "$B/inc/nccl.h" -nt "$obj" ] || \
     { [ -n "${3:-}" ] && [ "$3" -nt "$obj" ]; }; then
    echo "  CXX $src" >&2
    g++ $CXXFLAGS -c "$src" -o "$obj"
  fi
}
export -f compile; export CXXFLAGS B

jobs_list=()
for u in $NCCL_UNITS; do jobs_list+=("$S/$u.cc $B/obj/$(echo $u | tr / _).o"); done
jobs_list+=("$HERE/enqueue_shim.cc $B/obj/enqueue_shim.o $S/enqueue.cc")
jobs_list+=("$HERE/stubs.cc $B/obj/stubs.o $HERE/oracle_stubs.h")
jobs_list+=("$HERE/oracle.cc $B/obj/oracle.o $HERE/oracle_stubs.h")
jobs_list+=("$B/obj/init_tables.cc $B/obj/init_tables.o")
printf '%s\n' "${jobs_list[@]}" | xargs -P "$JOBS" -L 1 bash -c 'compile "$@"' _

OBJS=$(for j in "${jobs_list[@]}"; do set -- $j; echo "$2"; done)
LDFLAGS="-Wl,--gc-sections -Wl,--no-demangle -lpthread -ldl -lrt"

# Link once to learn what is still undefined; take NCCL's own small helpers that are reached
# (extract_funcs.py, verbatim from this tree), link again, stub the rest (gen_stubs.py), link again.
undefined_of() { grep -o "undefined reference to \`[^']*'" "$1" | sed "s/undefined reference to \`//; s/'$//" | sort -u; }
link_check() {
  if grep -qE "multiple definition|cannot find|file format not recognized" "$1"; then cat "$1" >&2; exit 1; fi
}
rm -f "$B/obj/extracted.o" "$B/obj/autostubs.o"
if ! g++ -o "$OUT" $OBJS $LDFLAGS 2> "$B/link1.log"; then
  link_check "$B/link1.log"
  undefined_of "$B/link1.log" > "$B/undefined1.txt"
  [ -s "$B/undefined1.txt" ] || { cat "$B/link1.log" >&2; exit 1; }
  GOT=$(python3 "$HERE/extract_funcs.py" "$NSRC" "$B/undefined1.txt" "$B/obj/extracted.cc")
  EXTRA=""
  if [ -n "$GOT" ]; then
    g++ $CXXFLAGS -c "$B/obj/extracted.cc" -o "$B/obj/extracted.o"
    EXTRA="$B/obj/extracted.o"
    echo "oracle: taken verbatim from the NCCL tree (reached helpers): $GOT" >&2
  fi
  if ! g++ -o "$OUT" $OBJS $EXTRA $LDFLAGS 2> "$B/link2.log"; then
    link_check "$B/link2.log"
    undefined_of "$B/link2.log" > "$B/undefined.txt"
    [ -s "$B/undefined.txt" ] || { cat "$B/link2.log" >&2; exit 1; }
    python3 "$HERE/gen_stubs.py" "$B/undefined.txt" "$B/obj/autostubs.c" $OBJS $EXTRA 2> "$B/datastubs.log"
    gcc -O1 -c "$B/obj/autostubs.c" -o "$B/obj/autostubs.o"
    g++ -o "$OUT" $OBJS $EXTRA "$B/obj/autostubs.o" $LDFLAGS
    echo "oracle: $(wc -l < "$B/undefined.txt") never-reached symbols stubbed ($(wc -l < "$B/datastubs.log") as data; see $B/datastubs.log)" >&2
  fi
fi
echo "oracle: built $OUT" >&2
