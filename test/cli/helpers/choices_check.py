#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Checks `explain`'s "NCCL picks" column against NCCL's own choices (nccl-oracle facts).

usage: choices_check.py FACTS CASE RELEASE < EXPLAIN-OUTPUT

FACTS is in compare-release-facts.txt's format; CASE and RELEASE name one block. For every row
of every collective's table (a size or a band of sizes, NCCL's algorithm/protocol, the modelled
time or its range) it checks that NCCL picks that algorithm and protocol at every size of the band
and that the modelled times at the band's ends are NCCL's (to the 0.1 us printed, or one part in a
million, the precision of NCCL's single-precision sums at large times). Sizes the
facts have no line for are not checked. Prints one line per problem and "checked N rows, M sizes",
exits 1 on a problem or when nothing was checked."""
import re
import sys

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from compare_release_check import COLLS, facts, log2  # noqa: E402


def rows(out):
    size = r"(\d+ (?:B|KiB|MiB|GiB))"
    row = re.compile(r"^  %s(?: - %s)?\s+(\S+/\S+)\s+([\d.]+)(?:-([\d.]+))?\s" % (size, size))
    coll = None
    for line in out.splitlines():
        if line in COLLS:
            coll = line
        elif line.startswith("summary:") or line.startswith("compare:"):
            coll = None
        elif coll:
            m = row.match(line)
            if m:
                lo = log2(m.group(1))
                hi = log2(m.group(2)) if m.group(2) else lo
                t_lo = float(m.group(4))
                t_hi = float(m.group(5)) if m.group(5) else t_lo
                yield coll, lo, hi, m.group(3), t_lo, t_hi


def main():
    path, case, release = sys.argv[1:4]
    cases, _ = facts(path, None)
    nccl = cases.get((case, release))
    if not nccl:
        print("no facts for case %s %s" % (case, release))
        return 1
    problems = n_rows = n_sizes = 0
    for coll, lo, hi, pair, t_lo, t_hi in rows(sys.stdin.read()):
        n_rows += 1
        for e in range(lo, hi + 1):
            fact = nccl.get((coll, e))
            if fact is None:
                continue
            n_sizes += 1
            if fact[0] != pair:
                problems += 1
                print("%s 2^%d: explain says NCCL picks %s, NCCL picks %s" % (coll, e, pair, fact[0]))
        for e, t in ((lo, t_lo), (hi, t_hi)):
            fact = nccl.get((coll, e))
            if fact is not None and abs(fact[1] - t) > max(0.051, 1e-6 * fact[1]):   # single-precision sums
                problems += 1
                print("%s 2^%d: explain models %.1f us, NCCL %.2f us" % (coll, e, t, fact[1]))
    print("checked %d rows, %d sizes" % (n_rows, n_sizes))
    return 1 if problems or not n_sizes else 0


if __name__ == "__main__":
    sys.exit(main())
