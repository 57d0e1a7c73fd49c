#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The plugin library: exports exactly NCCL's plugin symbols, needs nothing beyond libc,
# links no CUDA library, and `make install` lays out lib/, the env symlink, bin/ and examples.
set -u
cd "$(dirname "$0")/../.."
SO=${NN_SO:-${NN_BUILD:-build}/libnccl-tuner-numa.so}
fail=0
check() { if eval "$2"; then echo "ok $1"; else echo "FAIL $1"; fail=1; fi; }

exports=$(nm -D --defined-only "$SO" | awk '{print $3}' | sort | tr '\n' ' ')
want="ncclEnvPlugin_v1 ncclEnvPlugin_v2 ncclTunerPlugin_v2 ncclTunerPlugin_v3 ncclTunerPlugin_v4 ncclTunerPlugin_v5 ncclTunerPlugin_v6 ncclTunerPlugin_v7 "
check "exports only NCCL's symbols ($exports)" '[ "$exports" = "$want" ]'
for s in $want; do
  type=$(nm -D --defined-only "$SO" | awk -v s="$s" '$3 == s {print $2}')
  check "$s is a data object" '[ "$type" = "D" ] || [ "$type" = "R" ]'
done
needed=$(readelf -d "$SO" | awk '/NEEDED/ {print $5}' | tr -d '[]' | sort | tr '\n' ' ')
check "needs only libc (NEEDED: $needed)" '! grep -qvE "^(libc|libdl|libpthread|ld-linux)" <<<"$(tr " " "\n" <<<"$needed" | sed "/^$/d")"'
check "links no CUDA or libxml2" '! grep -qiE "cuda|nvidia|xml" <<<"$needed"'

prefix=$(mktemp -d); trap 'rm -rf "$prefix"' EXIT
make -s install PREFIX="$prefix" >/dev/null || { echo "FAIL make install"; exit 1; }
check "lib/libnccl-tuner-numa.so installed" '[ -f "$prefix/lib/libnccl-tuner-numa.so" ]'
check "lib/libnccl-env-numa.so links to it" '[ "$(readlink "$prefix/lib/libnccl-env-numa.so")" = libnccl-tuner-numa.so ]'
check "bin/nccl-numa runs" '"$prefix/bin/nccl-numa" --help >/dev/null'
check "examples installed" '[ -f "$prefix/share/nccl-numa/examples/proxmox-epyc-8gpu.conf" ]'
exit $fail
