#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The `make lint` check that only plugin/core/nccl_model.c names a NCCL release
# (test/lint/version_literals.py): the tree as committed is clean, and a copy of it with a
# release planted in code elsewhere fails, naming the file and line; the same literal in a
# comment, in a sentence or in nccl_model.c itself passes.
. "$(dirname "$0")/helpers/lib.sh"
command -v python3 >/dev/null || nn_skip "python3 is needed for the lint"
nn_tmp nn-lint
lint=$root/test/lint/version_literals.py

python3 "$lint" "$root" >"$tmp/out" 2>&1
check "the committed tree names no release outside nccl_model.c" \
  "[ $? -eq 0 ] && grep -qF 'findings' '$tmp/out' && grep -q ': 0 findings' '$tmp/out'"

plant() {   # plant FILE LINE: a copy of plugin/, cli/ and include/ with LINE appended to FILE
  rm -rf "$tmp/tree" && mkdir -p "$tmp/tree"
  cp -r "$root/plugin" "$root/cli" "$root/include" "$tmp/tree/"
  printf '%s\n' "$2" >>"$tmp/tree/$1"
  python3 "$lint" "$tmp/tree" >"$tmp/out" 2>&1
}
lines_of() { wc -l <"$tmp/tree/$1"; }

plant cli/sweep/abenv.c 'static int planted(int code) { return code >= 22800; }'
check "a version code compared in cli/ fails, naming file and line" \
  "[ $? -eq 1 ] && grep -qF 'cli/sweep/abenv.c:$(lines_of cli/sweep/abenv.c): NCCL version code 22800' '$tmp/out'"
plant plugin/core/nccl_cost.c 'static int planted(int v) { return v < NN_NCCL_VERSION(2, 31, 0); }'
check "NN_NCCL_VERSION with a literal release in the core fails" \
  "[ $? -eq 1 ] && grep -qF 'plugin/core/nccl_cost.c:$(lines_of plugin/core/nccl_cost.c): NN_NCCL_VERSION with a literal' '$tmp/out'"
plant cli/predict/summary.c 'static int planted(const char *v) { return nn_nccl_version_parse(v) < nn_nccl_version_parse("2.31.0"); }'
check "a string that is a release, parsed to compare, fails" \
  "[ $? -eq 1 ] && grep -qF 'cli/predict/summary.c:$(lines_of cli/predict/summary.c): the string \"2.31.0\"' '$tmp/out'"
plant include/core/nccl_cost.h '#define NN_PLANTED 23100'
check "a release in a header's #define fails" "[ $? -eq 1 ] && grep -qF 'include/core/nccl_cost.h:' '$tmp/out'"
plant cli/sweep/abenv.c '/* NCCL 2.28 (22800) added "none" */ static const char *planted = "no env plugin (2.28.7+)";'
check "a release in a comment or inside a sentence passes" "[ $? -eq 0 ]"
plant plugin/core/nccl_model.c 'static const int planted = 22800;'
check "nccl_model.c itself may name releases" "[ $? -eq 0 ]"
plant cli/topo/topo_validate.c '#if LIBXML_VERSION >= 21400'
check "another library's version macro is not NCCL's" "[ $? -eq 0 ]"
nn_finish "lint: version literals"
