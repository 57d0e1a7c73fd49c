#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Checks `explain --compare-release` output against NCCL's own choices (nccl-oracle facts).

usage: compare_release_check.py FACTS FILE A X < EXPLAIN-OUTPUT

FACTS is test/fixtures/nccl-cost/compare-release-facts.txt, FILE one of its cases (flat,
served), A the release explain ran for, X the one compared with. From the facts it derives
which sizes NCCL's algorithm or protocol differs at, and whether the graphs differ; then it
checks that the output's bands cover exactly the differing sizes (every size when the graphs
differ), that `*` marks exactly the sizes whose choice differs, that each band's choices are
NCCL's at both its ends and that both modelled times at both ends are NCCL's (to the 0.1 us
printed). Sizes the facts have no line for (an allgather or reducescatter below 1 B per
rank, which NCCL never runs) are not checked. Prints one line per problem and "checked N bands, M sizes differ", exits 1 on a
problem."""
import re
import sys

UNIT = {"B": 0, "KiB": 10, "MiB": 20, "GiB": 30}
COLLS = ["allreduce", "allgather", "reducescatter", "broadcast", "reduce"]


def facts(path, name):
    cases, graphs, cur = {}, {}, None
    for line in open(path):
        w = line.split()
        if not w or w[0].startswith("#"):
            continue
        if w[0] == "case":
            cur = (w[1], w[2])
            cases[cur] = {}
        elif w[0] == "graphs":
            graphs[cur] = w[1:]
        else:
            cases[cur][(w[0], int(w[1]).bit_length() - 1)] = ("%s/%s" % (w[2].lower(), w[3].lower()), float(w[4]))
    return cases, graphs


def log2(text):
    n, unit = text.split()
    return UNIT[unit] + int(n).bit_length() - 1


def bands(out):
    """(coll, lo, hi, star, pair_a, times_a, pair_x, times_x) per printed band of the comparison."""
    rows, coll, inside = [], None, False
    size = r"(\d+ (?:B|KiB|MiB|GiB))"
    times = r"([\d.]+(?:-[\d.]+)?)"
    row = re.compile(r"^  %s(?: - %s)?\s+(\S+)\s+%s ([* ])\s*(\S+)\s+%s$" % (size, size, times, times))
    for line in out.splitlines():
        if line.startswith("compare:"):
            inside = True
        elif line.startswith("summary:"):
            inside = False
        elif inside and line in COLLS:
            coll = line
        elif inside and line.split(":")[0] in COLLS:
            coll = None
        elif inside and coll:
            m = row.match(line)
            if m:
                lo = log2(m.group(1))
                hi = log2(m.group(2)) if m.group(2) else lo
                rows.append((coll, lo, hi, m.group(5) == "*", m.group(3), m.group(4), m.group(6), m.group(7)))
    return rows


def ends(times):
    parts = [float(t) for t in times.split("-")]
    return parts[0], parts[-1]


def main():
    path, name, a, x = sys.argv[1:5]
    cases, graphs = facts(path, name)
    fa, fx = cases[(name, a)], cases[(name, x)]
    graphs_differ = graphs[(name, a)] != graphs[(name, x)]
    out = sys.stdin.read()
    problems = []
    want = "the graphs differ" if graphs_differ else "the same graphs"
    if want not in out:
        problems.append("the output does not say `%s`" % want)
    differ = {k for k in fa if fa[k][0] != fx[k][0]}
    listed, starred = set(), set()
    rows = bands(out)
    for coll, lo, hi, star, pa, ta, px, tx in rows:
        for e in range(lo, hi + 1):
            if (coll, e) not in fa:
                continue
            listed.add((coll, e))
            if star:
                starred.add((coll, e))
            if (fa[(coll, e)][0], fx[(coll, e)][0]) != (pa, px):
                problems.append("%s 2^%d: printed %s vs %s, NCCL picks %s vs %s" % (coll, e, pa, px, fa[(coll, e)][0],
                                                                                      fx[(coll, e)][0]))
        for side, times, f in (("A", ta, fa), ("X", tx, fx)):
            for e, t in zip((lo, hi), ends(times)):
                if (coll, e) in f and abs(t - f[(coll, e)][1]) > max(0.051, 1e-6 * t):   # printed .1, float
                    problems.append("%s 2^%d: %s's time %.1f, NCCL's %.2f" % (coll, e, side, t, f[(coll, e)][1]))
    want_listed = set(fa) if graphs_differ else differ
    for k in sorted(want_listed ^ listed):
        problems.append("%s 2^%d: %s" % (k[0], k[1], "listed, but nothing differs" if k in listed else "not listed"))
    for k in sorted(differ ^ starred):
        problems.append("%s 2^%d: %s" % (k[0], k[1], "marked *, same choice" if k in starred else "choice differs, no *"))
    for p in problems:
        print(p)
    print("checked %d bands, %d sizes differ" % (len(rows), len(differ)))
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
