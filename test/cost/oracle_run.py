#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Running an nccl-oracle build on a topology file and reading what it says: the one reader of
the fact scripts that write oracle-facts.txt's format (oracle_facts.py, job_facts.py,
visible_facts.py), beside the one release list (oracle_releases.py).

A block of that format: `case NAME release ranks sm cpu(0 intel,1 amd) pci_latency_us`, then
`ring|tree nChannels,bwIntra,bwInter,typeIntra,typeInter,sameChannels,pattern` and one line
per choice, `coll bytes algo proto time t.tree.ll t.tree.simple t.ring.ll t.ring.ll128
t.ring.simple`.
"""
import re
import subprocess

PATHS = {n: i for i, n in enumerate("LOC NVL NVB C2C PIX PXB P2C PXN PHB SYS NET DIS".split())}
SIZES = "256,8K,64K,1M,64M,1G"
CHOICE = ("coll", "bytes", "algo", "proto", "time", "t.tree.ll", "t.tree.simple", "t.ring.ll",
          "t.ring.ll128", "t.ring.simple")
PATTERN = re.compile(r'Pattern (\d), crossNic \d+, nChannels \d+, bw [\d.]+/([\d.]+), '
                     r'type \w+/(\w+), sameChannels (\d)')


def run(oracle, xml, extra=()):
    """`oracle --kv -v --sizes SIZES [extra] xml`: its head line as a dict, each choice as a dict,
    and each search pattern line's (pattern, bwInter, typeInter, sameChannels)."""
    args = [oracle, "--kv", "-v", "--sizes", SIZES] + list(extra) + [xml]
    out = subprocess.run(args, capture_output=True, text=True, check=True)
    head, choices, pats = {}, [], []
    for line in (out.stdout + "\n" + out.stderr).splitlines():
        if line.startswith("nccl="):
            head = {k: v.strip('"') for k, v in re.findall(r'(\S+?)=("[^"]*"|\S+)', line)}
        elif line.startswith("choice "):
            choices.append(dict(re.findall(r'(\S+?)=(\S+)', line[7:])))
        m = PATTERN.search(line)
        if m:
            pats.append(m.groups())
    return head, choices, pats


def graph(head, pats, name):
    """The graph after NCCL's all-gather: minimum over the ranks' bwInter and sameChannels,
    maximum typeInter and pattern (each rank prints its ring, then its tree)."""
    sel = [p for p in pats if (p[0] == "4") == (name == "ring")]
    return "%s,%s,%.1f,%d,%d,%d,%s" % (head[name + ".model.nChannels"], head[name + ".model.bwIntra"],
                                      min(float(p[1]) for p in sel), PATHS[head[name + ".typeIntra"]],
                                      max(PATHS[p[2]] for p in sel), min(int(p[3]) for p in sel),
                                      max(int(p[0]) for p in sel))


def choice_line(c):
    return " ".join(c[k] for k in CHOICE)


def block(oracle, xml, name, sm, cpu):
    """The lines of one case: the oracle run on xml without a PCI latency; cpu 0 intel, 1 amd."""
    head, choices, pats = run(oracle, xml)
    lines = ["case %s %s %s %d %d 0" % (name, head["nccl"], head["ranks"], sm, cpu),
             "ring " + graph(head, pats, "ring"), "tree " + graph(head, pats, "tree")]
    return lines + [choice_line(c) for c in choices]
