#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# test/compat/run.sh - `make compat`: the plugin against real NCCL releases from PyPI.
#
# For each release: fetch its nvidia-nccl-cu12 or -cu13 wheel (cached), take libnccl.so.2 (and the
# headers the wheel carries), list the tuner/env plugin symbols that NCCL looks for (its own
# strings) against what our .so exports, and, where NCCL has an env plugin, run
# test/compat/nccl_loader (ncclGetUniqueId, no GPU needed) with NCCL_ENV_PLUGIN = our .so and
# check NCCL's own log. The tuner is loaded only at communicator creation, which needs a
# GPU: its column is the newest version both sides know, from the symbols.
#
#   BUILD=dir                build directory (default build)
#   NN_COMPAT_CACHE=dir      download cache (default ~/.cache/nccl-numa/compat)
#   NN_COMPAT_RELEASES="..." releases, X.Y.Z for the cu12 wheel, cu13:X.Y.Z for the cu13 one
#                            (default below; each flavour's newest on PyPI is added when online)
#   COMPAT_CACHED_ONLY=1     never download: use what the cache holds (CI), skip if empty
#   COMPAT_DOCS=1            also write the table into docs/results/compat.md
#
# Exit: 0 all good (or skipped), 1 a smoke test failed or a release wants a newer ABI.
set -uo pipefail
cd "$(dirname "$0")/../.."

BUILD=${BUILD:-build}
CC=${CC:-cc}
SO="$BUILD/libnccl-tuner-numa.so"
LOADER="$BUILD/compat/nccl_loader"
CACHE=${NN_COMPAT_CACHE:-$HOME/.cache/nccl-numa/compat}
# One release of each row of plugin/core/nccl_model.c's table (test/unit/test_release_rows.c
# checks it); the development branch's row has no published library.
RELEASES=${NN_COMPAT_RELEASES:-2.21.5 2.23.4 2.24.3 2.25.1 2.26.5 2.27.7 2.28.3 2.28.9 2.29.3 2.29.7 2.30.4 2.30.7 2.31.2 2.32.3 cu13:2.32.6}
FLAVOURS="cu12 cu13"

die() { echo "compat: $*" >&2; exit 1; }

make -s BUILD="$BUILD" "$SO" || die "cannot build $SO"
mkdir -p "$BUILD/compat" "$CACHE/wheels"
"$CC" -std=c11 -O1 -Wall -Wextra -Werror test/compat/nccl_loader.c -o "$LOADER" -ldl || die "cannot build the loader"

# An entry "2.32.3" is the cu12 wheel's release, "cu13:2.32.6" the cu13 wheel's.
flavour_of() { case $1 in *:*) echo "${1%%:*}";; *) echo cu12;; esac; }
release_of() { echo "${1#*:}"; }
pkg_of() { echo "nvidia-nccl-$(flavour_of "$1")"; }
# Where an entry's library is cached: $CACHE/2.32.3 (cu12, as before), $CACHE/cu13-2.32.6.
dir_of() { case $1 in *:*) echo "$CACHE/${1%%:*}-${1#*:}";; *) echo "$CACHE/$1";; esac; }

# The newest release of a wheel flavour on PyPI, when the registry answers (never in cached-only mode).
newest_on_pypi() {
  [ "${COMPAT_CACHED_ONLY:-0}" = 1 ] && return
  timeout 60 pip index versions "nvidia-nccl-$1" 2>/dev/null | sed -n 's/^.*(\([0-9.]*\)).*$/\1/p' | head -1
}

wheel_of() { local pkg; pkg=$(pkg_of "$1"); ls "$CACHE/wheels/${pkg//-/_}-$(release_of "$1")-"*.whl 2>/dev/null | head -1; }

# Makes the entry's libnccl.so.2 (and include/) exist under dir_of; returns 1 when it cannot.
obtain() {
  local entry=$1 dir
  dir=$(dir_of "$1")
  [ -s "$dir/libnccl.so.2" ] && return 0
  if [ -z "$(wheel_of "$entry")" ]; then
    [ "${COMPAT_CACHED_ONLY:-0}" = 1 ] && return 1
    timeout 900 pip download -q --no-deps --only-binary=:all: "$(pkg_of "$entry")==$(release_of "$entry")" \
      -d "$CACHE/wheels" >&2 || return 1
  fi
  python3 - "$(wheel_of "$entry")" "$dir" <<'PY' || return 1
import os, sys, zipfile
wheel, out = sys.argv[1], sys.argv[2]
os.makedirs(os.path.join(out, "include"), exist_ok=True)
with zipfile.ZipFile(wheel) as z:
    for name in z.namelist():
        base = os.path.basename(name)
        if name.endswith("/lib/libnccl.so.2"):
            dest = os.path.join(out, "libnccl.so.2")
        elif "/include/" in name and base.endswith(".h"):
            dest = os.path.join(out, "include", base)
        else:
            continue
        with z.open(name) as src, open(dest + ".tmp", "wb") as dst:
            dst.write(src.read())
        os.replace(dest + ".tmp", dest)
PY
  [ -s "$dir/libnccl.so.2" ]
}

# "5 4 3 2": versions of symbol family $2 (Tuner|Env|Profiler) in a file's strings ($1) or our exports.
# The plugin symbol names of a libnccl.so.2, cached next to it (strings on 300 MB is slow).
symbols_of() {
  [ -s "$1.symbols" ] && grep -q Profiler "$1.symbols" ||
    strings -a "$1" | grep -oE "nccl(Tuner|Env)Plugin_v[0-9]+|ncclProfiler_v[0-9]+" | sort -u > "$1.symbols"
  cat "$1.symbols"
}
versions_in() { symbols_of "$1" | grep -oE "nccl$2(Plugin)?_v[0-9]+" | sed 's/.*_v//' | sort -rnu | tr '\n' ' '; }
exported() { nm -D --defined-only "$SO" | grep -oE "nccl$1Plugin_v[0-9]+" | sed 's/.*_v//' | sort -rnu | tr '\n' ' '; }
newest_common() { local v; for v in $1; do case " $2 " in *" $v "*) echo "$v"; return;; esac; done; echo "-"; }
max_of() { echo "${1%% *}"; }
fmt() { if [ -n "$1" ]; then echo "v${1// /, v}" | sed 's/, v$//'; else echo "none"; fi; }

smoke() {
  local lib=$1 want=$2 dir out rc
  dir=$(mktemp -d)
  printf 'env NCCL_SOCKET_IFNAME=lo\n' > "$dir/c.conf"
  out=$(env -u NCCL_SOCKET_IFNAME -u NCCL_TOPO_FILE NCCL_NUMA_CONFIG="$dir/c.conf" \
        NCCL_ENV_PLUGIN="$PWD/$SO" NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,ENV \
        XDG_RUNTIME_DIR="$dir" timeout 120 "$LOADER" "$lib" 2>&1)
  rc=$?
  printf '%s\n' "$out" > "$BUILD/compat/smoke-$(basename "$(dirname "$lib")").log"
  rm -rf "$dir"
  if [ "$want" = "-" ]; then
    [ $rc -eq 0 ] && echo "n/a (no env plugin; getUniqueId ok)" || echo "n/a (no env plugin; getUniqueId rc $rc)"
    return 0
  fi
  if [ $rc -ne 0 ]; then echo "FAIL (loader exit $rc)"; return 1; fi
  grep -q "ENV/Plugin: Using nccl-numa (v$want)" <<<"$out" || { echo "FAIL (no 'Using nccl-numa (v$want)')"; return 1; }
  grep -q "NCCL_SOCKET_IFNAME set by environment to lo" <<<"$out" || { echo "FAIL (env default not served)"; return 1; }
  echo "pass"
}

for f in $FLAVOURS; do
  newest=$(newest_on_pypi "$f")
  [ -n "$newest" ] || continue
  entry=$newest; [ "$f" = cu12 ] || entry="$f:$newest"
  case " $RELEASES " in *" $entry "*) ;; *) RELEASES="$RELEASES $entry";; esac
done

our_tuner=$(exported Tuner); our_env=$(exported Env)
[ -n "$our_tuner" ] || die "$SO exports no tuner symbol"
status=0 rows=() notes=() newest_sought=0
for entry in $RELEASES; do
  rel="$(release_of "$entry") ($(flavour_of "$entry"))"
  if ! obtain "$entry"; then
    if [ "${COMPAT_CACHED_ONLY:-0}" = 1 ]; then notes+=("$rel: not cached, skipped"); continue; fi
    rows+=("| $rel | - | - | - | - | - | FAIL (cannot obtain $(pkg_of "$entry")==$(release_of "$entry")) |"); status=1; continue
  fi
  lib="$(dir_of "$entry")/libnccl.so.2"
  t=$(versions_in "$lib" Tuner); e=$(versions_in "$lib" Env); p=$(versions_in "$lib" Profiler)
  tu=$(newest_common "$t" "$our_tuner"); eu=$(newest_common "$e" "$our_env")
  [ -n "$t" ] && [ "$(max_of "$t")" -gt "$newest_sought" ] && newest_sought=$(max_of "$t")
  if [ -n "$t" ] && [ "$(max_of "$t")" -gt "$(max_of "$our_tuner")" ]; then
    notes+=("$rel looks for ncclTunerPlugin_v$(max_of "$t"), newer than ours (v$(max_of "$our_tuner"))"); status=1
  fi
  if [ -n "$e" ] && [ "$(max_of "$e")" -gt "$(max_of "$our_env")" ]; then
    notes+=("$rel looks for ncclEnvPlugin_v$(max_of "$e"), newer than ours (v$(max_of "$our_env"))"); status=1
  fi
  s=$(smoke "$lib" "$eu") || status=1
  rows+=("| $rel | $(fmt "$t") | $(fmt "$e") | $(fmt "$p") | ${tu/#[0-9]/v&} | ${eu/#[0-9]/v&} | $s |")
done

ours=$(max_of "$our_tuner")
if [ "$newest_sought" -gt 0 ] && [ "$ours" -gt "$newest_sought" ]; then
  notes+=("ncclTunerPlugin_v$ours is exported too, though none of these releases looks for it (newest sought: v$newest_sought): it is declared from NCCL's source, src/include/plugin/tuner/tuner_v$ours.h, for the releases that look for it first")
fi

if [ ${#rows[@]} -eq 0 ]; then
  echo "compat: skipped: no NCCL release cached under $CACHE (run: make compat)"
  exit 0
fi
table=$(
  echo "| NCCL | tuner symbols it looks for | env symbols it looks for | profiler symbols (not ours) | tuner used | env plugin used | smoke (ncclGetUniqueId, no GPU) |"
  echo "|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
)
echo "Our $SO exports tuner v${our_tuner// /, v} env v${our_env// /, v}" | sed 's/, v$//; s/, v env/ env/'
echo "$table"
for n in "${notes[@]}"; do echo "note: $n"; done

if [ "${COMPAT_DOCS:-0}" = 1 ]; then
  mkdir -p docs
  {
    echo "# Compatibility with NCCL releases"
    echo
    echo "Produced by \`COMPAT_DOCS=1 make compat\` (test/compat/run.sh) on $(date -u +%Y-%m-%d), commit"
    echo "$(git describe --always --dirty 2>/dev/null || echo '?'), from PyPI's nvidia-nccl-cu12 and -cu13 wheels (libnccl.so.2 of each release)."
    echo
    echo "- *looks for*: the plugin symbols in that libnccl.so.2's own strings (NCCL takes the newest it knows)."
    echo "  nccl-numa is no profiler plugin; that column shows what else the release can load."
    echo "- *tuner used*: the newest tuner version both NCCL and nccl-numa know. NCCL loads the tuner only"
    echo "  when it creates a communicator, which needs a GPU, so this column comes from the symbols."
    echo "- *smoke*: test/compat/nccl_loader dlopens that libnccl.so.2 and calls ncclGetUniqueId with"
    echo "  NCCL_ENV_PLUGIN=<our .so>, NCCL_DEBUG=INFO and a mapping holding \`env NCCL_SOCKET_IFNAME=lo\`;"
    echo "  it passes when NCCL's own log says \`ENV/Plugin: Using nccl-numa (vN)\` and"
    echo "  \`NCCL_SOCKET_IFNAME set by environment to lo\`. Releases before 2.28.7 have no env plugin:"
    echo "  there the topology must be given with \`NCCL_TOPO_FILE=\$(nccl-numa topo ...)\`."
    echo
    echo "$table"
    for n in "${notes[@]}"; do echo; echo "Note: $n"; done
  } > docs/results/compat.md
  echo "compat: wrote docs/results/compat.md"
fi
exit $status
