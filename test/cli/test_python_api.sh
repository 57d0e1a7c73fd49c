#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# `import nccl_numa` exports its API alone: the names in __all__, and no module it uses (os,
# subprocess, shlex, typing names) in its namespace. Read from the source tree: nothing here
# needs the wheel's bundled plugin.
. "$(dirname "$0")/helpers/lib.sh"
command -v python3 >/dev/null || nn_skip "python3 is needed"
got=$(cd "$root/python" && python3 -c '
import nccl_numa
public = sorted(n for n in dir(nccl_numa) if not n.startswith("_"))
print(" ".join(public))
print(" ".join(sorted(nccl_numa.__all__)))')
check "public names are __all__ (got: $(echo "$got" | head -1))" \
  '[ "$(echo "$got" | head -1)" = "$(echo "$got" | tail -1)" ]'
check "the API" '[ "$(echo "$got" | head -1)" = "NcclNumaError command_path env examples_dir plugin_path" ]'
nn_finish "PASS test_python_api"
