#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""test/lint/version_literals.py - a NCCL release named outside plugin/core/nccl_model.c.

Every fact that depends on NCCL's release is a field of the release table in
plugin/core/nccl_model.c, read through nn_nccl_release_find; code elsewhere asks the row and
never compares a version itself. This check reads the C sources of plugin/, cli/ and include/
(comments left out, string literals kept apart) and reports, as FILE:LINE: problem,

  - a NCCL version code as a number (2xxxx, e.g. `code >= 22800`, `#define X 22807`);
  - NN_NCCL_VERSION with a number for an argument (NN_NCCL_VERSION(2, 31, 0));
  - a string that is only a version ("2.31.0", "2.28"), as one compared or parsed would be.

A version inside a sentence ("no env plugin (2.28.7+)") is left to the messages' authors.
Lines naming another library's version macro (LIBXML_VERSION, HWLOC_API_VERSION) are not NCCL's.

Usage: version_literals.py [ROOT]   (default: the repository holding this file)
Exit 0 when clean, 1 with the findings.
"""
import os
import re
import sys

ALLOWED = {"plugin/core/nccl_model.c"}
DIRS = ("plugin", "cli", "include")
OTHER_LIBRARIES = re.compile(r"\b(LIBXML_VERSION|HWLOC_API_VERSION|CUDA_VERSION|CUDART_VERSION)\b")
CODE = re.compile(r"(?<![\w.])2\d{4}(?![\w.])")
MACRO = re.compile(r"\bNN_NCCL_VERSION\s*\(\s*\d")
VERSION_STRING = re.compile(r"^2\.\d{1,2}(\.\d+)?([-+].*)?$")


def split_code(text):
    """Yields (line, code, strings) per line: the code with comments and string literals blanked,
    and the string literals that start on that line."""
    out, strings, line = [], [], 1
    code = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            code.append("\n" * text.count("\n", i, j))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            if c == '"':
                strings.append((line + "".join(code).count("\n"), text[i + 1:j]))
            code.append(c + " " * max(0, j - i - 1) + c)
            i = j + 1
        else:
            code.append(c)
            i += 1
    lines = "".join(code).split("\n")
    by_line = {}
    for ln, s in strings:
        by_line.setdefault(ln, []).append(s)
    for k, l in enumerate(lines, 1):
        out.append((k, l, by_line.get(k, [])))
    return out


def check_file(root, rel):
    with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
        text = f.read()
    found = []
    for ln, code, strings in split_code(text):
        if OTHER_LIBRARIES.search(code):
            continue
        m = CODE.search(code)
        if m:
            found.append(f"{rel}:{ln}: NCCL version code {m.group(0)}: ask the release's row "
                         "(nn_nccl_release_find) in plugin/core/nccl_model.c")
        if MACRO.search(code):
            found.append(f"{rel}:{ln}: NN_NCCL_VERSION with a literal release: only nccl_model.c's "
                         "table names releases")
        for s in strings:
            if VERSION_STRING.match(s):
                found.append(f"{rel}:{ln}: the string \"{s}\" is a release: compare rows, not versions")
    return found


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    found = []
    for d in DIRS:
        for dirpath, _, files in os.walk(os.path.join(root, d)):
            for name in sorted(files):
                if not name.endswith((".c", ".h")):
                    continue
                rel = os.path.relpath(os.path.join(dirpath, name), root)
                if rel not in ALLOWED:
                    found += check_file(root, rel)
    for f in sorted(found):
        print(f)
    print(f"lint: NCCL version literals outside plugin/core/nccl_model.c: {len(found)} findings")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
