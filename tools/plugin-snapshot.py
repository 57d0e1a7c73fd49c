#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""tools/plugin-snapshot.py - what NCCL sees of the plugin, in a form two builds can be diffed by.

  plugin-snapshot.py SO OUTDIR              writes OUTDIR/nm-D.txt and OUTDIR/getcollinfo.s
  plugin-snapshot.py --compare BEFORE SO    snapshots SO into a temporary folder, diffs it
                                            against the folder BEFORE; exit 1 on a difference

nm-D.txt: the dynamic symbols (`nm -D --defined-only` and the undefined ones: exports and imports).
getcollinfo.s: the disassembly of every tuner version's getCollInfo (get_coll_info_v*) and of
every function they reach by call or tail jump inside the library, one block per function in
name order, with what moves when unrelated code changes taken out: addresses, jump targets as
offsets from the function's start, RIP-relative displacements (the symbol they name is kept).
So a change elsewhere in the plugin leaves the file equal; a change on the hot path does not.
"""
import os
import re
import subprocess
import sys
import tempfile

ROOTS = re.compile(r"^get_coll_info_v\d+$")
FUNC = re.compile(r"^([0-9a-f]+) <([^>]+)>:$")
INSN = re.compile(r"^\s*([0-9a-f]+):\s*(.*)$")
TARGET = re.compile(r"\b([0-9a-f]+) <([^>+]+)(\+0x[0-9a-f]+)?>")


def run(*cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def functions(so):
    """{name: (start, [(addr, text)])} from objdump -d."""
    out, cur = {}, None
    for line in run("objdump", "-d", "--no-show-raw-insn", "-w", so).splitlines():
        m = FUNC.match(line)
        if m:
            cur = out.setdefault(m.group(2), (int(m.group(1), 16), []))
            continue
        m = INSN.match(line)
        if m and cur is not None:
            cur[1].append((int(m.group(1), 16), m.group(2).strip()))
    return out


def normalized(name, start, insns):
    lines = []
    for addr, text in insns:
        def target(m):
            sym, off = m.group(2), m.group(3) or ""
            if sym == name:
                return "<.+0x%x>" % (int(m.group(1), 16) - start)
            return "<%s%s>" % (sym, off)
        text = TARGET.sub(target, text)
        text = re.sub(r"-?0x[0-9a-f]+\(%rip\)", "(%rip)", text)
        text = re.sub(r"\s+", " ", text)
        lines.append("  +0x%x %s" % (addr - start, text))
    return lines


def reached(funcs):
    todo = sorted(n for n in funcs if ROOTS.match(n))
    seen = set()
    while todo:
        n = todo.pop()
        if n in seen or n not in funcs:
            continue
        seen.add(n)
        for _, text in funcs[n][1]:
            if re.match(r"(call|jmp|j\w+)\b", text):
                for m in TARGET.finditer(text):
                    if m.group(2) != n and "@plt" not in m.group(2):
                        todo.append(m.group(2))
    return sorted(seen)


def snapshot(so, outdir):
    os.makedirs(outdir, exist_ok=True)
    nm = run("nm", "-D", "--defined-only", so) + run("nm", "-D", "--undefined-only", so)
    with open(os.path.join(outdir, "nm-D.txt"), "w") as f:
        f.write("".join(sorted(re.sub(r"^[0-9a-f]+ ", "", l) + "\n" for l in nm.splitlines())))
    funcs = functions(so)
    names = reached(funcs)
    if not any(ROOTS.match(n) for n in names):
        sys.exit("%s: no get_coll_info_v* function (a stripped library?)" % so)
    with open(os.path.join(outdir, "getcollinfo.s"), "w") as f:
        for n in names:
            f.write("%s:\n%s\n\n" % (n, "\n".join(normalized(n, *funcs[n]))))
    return names


def main(argv):
    if len(argv) == 3 and argv[0] != "--compare":
        names = snapshot(argv[1], argv[2])
        print("snapshot of %s in %s: %d functions (%s)" % (argv[1], argv[2], len(names), " ".join(names)))
        return 0
    if len(argv) == 4 and argv[1] == "--compare":
        with tempfile.TemporaryDirectory() as now:
            snapshot(argv[3], now)
            rc = 0
            for f in ("nm-D.txt", "getcollinfo.s"):
                rc |= subprocess.run(["diff", "-u", os.path.join(argv[2], f),
                                      os.path.join(now, f)]).returncode
        print("plugin-snapshot: %s" % ("same exports, imports and getCollInfo code" if rc == 0
                                         else "DIFFERENT from %s (above)" % argv[2]))
        return 1 if rc else 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
