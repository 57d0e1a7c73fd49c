#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The format check of `make lint` (test/lint/format.sh with .clang-format): a file laid out as
# .clang-format says passes; a planted badly formatted file, a line past 100 columns and a
# file past 650 lines fail, each named; `make format`'s --fix rewrites the bad file so that it passes.
. "$(dirname "$0")/helpers/lib.sh"
command -v clang-format >/dev/null || nn_skip "clang-format not installed (apt-get install clang-format)"
nn_tmp nn-format
fmt=$root/test/lint/format.sh

printf '/* SPDX-License-Identifier: BSD-3-Clause */\n#include <stdio.h>\n\n%s\n' \
  'static int twice(int x) { return 2 * x; }' >"$tmp/good.c"
printf '/* SPDX-License-Identifier: BSD-3-Clause */\n#include <stdio.h>\n\n%s\n' \
  'static int  twice( int x ){return 2*x;}' >"$tmp/bad.c"
printf '/* SPDX-License-Identifier: BSD-3-Clause */\n#include "%s.h"\n' "$(printf 'x%.0s' $(seq 110))" >"$tmp/long.c"

bash "$fmt" "$tmp/good.c" >"$tmp/out" 2>&1
check "a formatted file passes" "[ $? -eq 0 ] && grep -q '1 files, 0 not formatted, 0 lines over 100 columns' '$tmp/out'"
bash "$fmt" "$tmp/good.c" "$tmp/bad.c" >"$tmp/out" 2>&1
check "a badly formatted file fails, named with its line" \
  "[ $? -eq 1 ] && grep -qx '$tmp/bad.c:4: not formatted as .clang-format says (make format)' '$tmp/out' &&
   ! grep -q 'good.c' '$tmp/out'"
bash "$fmt" "$tmp/long.c" >"$tmp/out" 2>&1
check "a line past 100 columns fails, named with its line and width" \
  "[ $? -eq 1 ] && grep -qx '$tmp/long.c:2: 123 columns, over 100' '$tmp/out'"
{ printf '/* SPDX-License-Identifier: BSD-3-Clause */\n'; for i in $(seq 651); do echo "int v$i;"; done; } >"$tmp/big.c"
bash "$fmt" "$tmp/big.c" >"$tmp/out" 2>&1
check "a file past 650 lines fails, named with its length" \
  "[ $? -eq 1 ] && grep -qx '$tmp/big.c: 652 lines, over 650' '$tmp/out'"
bash "$fmt" --fix "$tmp/bad.c" >"$tmp/out" 2>&1
check "--fix (make format) rewrites it, and then it passes" \
  "[ $? -eq 0 ] && cmp -s '$tmp/bad.c' '$tmp/good.c'"
nn_finish "format checks passed"
