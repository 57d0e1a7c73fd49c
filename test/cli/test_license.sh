#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The licence: LICENSE is BSD-3-Clause, the Debian copyright file says the same, and every
# tracked source, header and script names it in an SPDX line within its first three lines.
. "$(dirname "$0")/helpers/lib.sh"
cd "$root" || exit 1
command -v git >/dev/null && git rev-parse --git-dir >/dev/null 2>&1 || nn_skip "not a git checkout (the file list is git's)"

grep -q "^BSD 3-Clause License" LICENSE && grep -q "Copyright (c) 2026, the nccl-numa authors" LICENSE \
  && echo "ok LICENSE is BSD-3-Clause" || fail "LICENSE missing or not BSD-3-Clause"
grep -q "^License: BSD-3-Clause" debian/copyright && ! grep -qi "no-licence" debian/copyright \
  && echo "ok debian/copyright: BSD-3-Clause" || fail "debian/copyright does not say BSD-3-Clause"

checked=0 missing=()
while IFS= read -r f; do
  case $f in
    test/fuzz/corpus/*) continue ;;
    test/fixtures/*.py) ;;
    test/fixtures/*) continue ;;
    *.c|*.h|*.cc|*.sh|*.py|Makefile|.ci/run|debian/rules|docker/Dockerfile|test/gpu/standin/*) ;;
    *) continue ;;
  esac
  [ -f "$f" ] || continue
  checked=$((checked + 1))
  head -n 3 "$f" | grep -q "SPDX-License-Identifier: BSD-3-Clause" || missing+=("$f")
done < <(git ls-files -co --exclude-standard)
[ "$checked" -gt 100 ] || fail "only $checked files checked: the file list is wrong"
if [ ${#missing[@]} -eq 0 ]; then echo "ok $checked sources, headers and scripts carry the SPDX line"
else fail "no SPDX line in: ${missing[*]}"; fi
nn_finish "licence checks passed" "failure(s)"
