#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Regenerates test/fixtures/nccl-cost/job-facts.txt from NCCL's own code.

Development tool, not run by `make test` (CI has no NCCL source). For the reference machine's
guest with NUMA nodes (test/fixtures/config/ref-guest-numa.conf on the sysfs tree of
test/fixtures/sysfs/ref-guest-numa.spec: 8 GPUs, GPUs 0-3 on guest node 1 and 4-7 on node 0, an
AMD family 25 CPU) and each job, TP=8 (all GPUs), the two TP=4 servers (0-3, 4-7) and a subset
spanning both sockets (0,1,4,5), it asks `nccl-numa topo --visible-devices JOB` which file the
plugin serves that job (the NUMA file, the flat file, or none), writes three files NCCL may
read, each completed with what NCCL fills at run time (PCIe gen5 x16 as the verdict assumes, a
<gpu> in PCI bus order, compute capability 10.0 as assumed): the NUMA file and the flat file as
`nccl-numa topo` writes them, and NCCL's own view of the guest (one <cpu> per sysfs node with
its cpumap, as NCCL's own detection reads sysfs), runs ../shared/tools/nccl-oracle builds of v2.28.9-1, v2.30.7-1 and dev (2.31.0a7:
NVIDIA/nccl's dev branch, the mirror having no v2.31.2 tag) on each and prints, per file, the
graphs NCCL's cost model read and NCCL's choice, in oracle-facts.txt's format.
(The dev build's search fails the two-socket view when its <cpu> elements carry no affinity, and
passes with them: the own view therefore carries the cpumaps NCCL's detection would read.)
NAME = JOB-FILE-served|other, FILE one of numa, flat, own; the served one is what the plugin
serves (own: nothing). test_jobtopo.c checks the plugin's verdict and search against them and
test_nccl_cost.c replays every choice.

  ORACLE_2_28_9=... ORACLE_2_30_7=... ORACLE_DEV=... \
    python3 test/cost/job_facts.py > test/fixtures/nccl-cost/job-facts.txt
"""
import json, os, re, subprocess, sys, tempfile

CLI = os.environ.get("NCCL_NUMA_BIN", "build/nccl-numa")
CONF = "test/fixtures/config/ref-guest-numa.conf"
SPEC = "test/fixtures/sysfs/ref-guest-numa.spec"
SIZES = "256,8K,64K,1M,64M,1G"
SM = 100
CPU = 'arch="x86_64" vendor="AuthenticAMD" familyid="25" modelid="17"'
LINK = 'class="0x030000" link_speed="32.0 GT/s PCIe" link_width="16"'
RELEASES = [("ORACLE_2_28_9", "/tmp/oracle-2.28.9"), ("ORACLE_2_30_7", "/tmp/oracle-2.30.7"),
            ("ORACLE_DEV", "/tmp/oracle-dev")]
JOBS = [("tp8", "0,1,2,3,4,5,6,7"), ("g0123", "0,1,2,3"), ("g4567", "4,5,6,7"), ("g0145", "0,1,4,5")]
NODE = {i: 1 if i < 4 else 0 for i in range(8)}      # sysfs numa_node of GPU i (bus 0000:0(i+1):00.0)
AFFINITY = {0: "000000ff", 1: "0000ff00"}            # sysfs cpumap of nodes 0 (CPUs 0-7) and 1 (8-15)
VERSIONS = {"ORACLE_2_28_9": "2.28.9", "ORACLE_2_30_7": "2.30.7", "ORACLE_DEV": "2.31.0"}
PATHS = {n: i for i, n in enumerate("LOC NVL NVB C2C PIX PXB P2C PXN PHB SYS NET DIS".split())}


def complete(xml, gpus):
    """NCCL's run-time attributes: link, and a <gpu> whose dev and rank follow PCI bus order."""
    rank = {"0000:%02x:00.0" % (g + 1): r for r, g in enumerate(sorted(gpus))}
    return re.sub(r'<pci busid="([^"]+)" class="0x030000"/>',
                  lambda m: '<pci busid="%s" %s>\n   <gpu dev="%d" sm="%d" rank="%d" gdr="0"/>\n  </pci>'
                  % (m.group(1), LINK, rank[m.group(1)], SM, rank[m.group(1)]), xml)


def own_view(gpus):
    out = ['<system version="1">']
    for node in sorted({NODE[g] for g in gpus}):
        out.append(' <cpu numaid="%d" affinity="%s" %s>' % (node, AFFINITY[node], CPU))
        out += ['  <pci busid="0000:%02x:00.0" class="0x030000"/>' % (g + 1) for g in sorted(gpus) if NODE[g] == node]
        out.append(' </cpu>')
    return complete("\n".join(out + ["</system>"]) + "\n", gpus)


def topo(sysfs, job, version, kind="served"):
    """Which file the plugin serves the job (numa, flat or none), and the XML `nccl-numa topo
    --file KIND` writes for it."""
    r = subprocess.run([CLI, "topo", "--config", CONF, "--sysfs-root", sysfs, "--cpuinfo", sysfs + "/proc/cpuinfo",
                        "--visible-devices", job, "--nccl-version", version, "--file", kind, "--json"],
                       capture_output=True, text=True, check=True)
    doc = json.loads(r.stdout)
    return doc["file"], doc["xml"]


def run(oracle, xml):
    out = subprocess.run([oracle, "--kv", "-v", "--sizes", SIZES, xml], capture_output=True, text=True, check=True)
    head, choices, pats = {}, [], []
    for line in (out.stdout + "\n" + out.stderr).splitlines():
        if line.startswith("nccl="):
            head = {k: v.strip('"') for k, v in re.findall(r'(\S+?)=("[^"]*"|\S+)', line)}
        elif line.startswith("choice "):
            choices.append(dict(re.findall(r'(\S+?)=(\S+)', line[7:])))
        m = re.search(r'Pattern (\d), crossNic \d+, nChannels \d+, bw [\d.]+/([\d.]+), type \w+/(\w+), '
                      r'sameChannels (\d)', line)
        if m:
            pats.append(m.groups())
    return head, choices, pats


def graph(head, pats, name):
    sel = [p for p in pats if (p[0] == "4") == (name == "ring")]
    return "%s,%s,%.1f,%d,%d,%d,%s" % (head[name + ".model.nChannels"], head[name + ".model.bwIntra"],
                                      min(float(p[1]) for p in sel), PATHS[head[name + ".typeIntra"]],
                                      max(PATHS[p[2]] for p in sel), min(int(p[3]) for p in sel),
                                      max(int(p[0]) for p in sel))


def block(oracle, xml_path, name):
    head, choices, pats = run(oracle, xml_path)
    lines = ["case %s %s %s %d 1 0" % (name, head["nccl"], head["ranks"], SM),
             "ring " + graph(head, pats, "ring"), "tree " + graph(head, pats, "tree")]
    for c in choices:
        lines.append(" ".join(c[k] for k in ("coll", "bytes", "algo", "proto", "time", "t.tree.ll", "t.tree.simple",
                                             "t.ring.ll", "t.ring.ll128", "t.ring.simple")))
    return lines


def main():
    print("# The reference guest with NUMA nodes (ref-guest-numa.conf): per job and release, NCCL's graphs and")
    print("# choice on the NUMA file, the flat file and NCCL's own view, and which one nccl-numa serves.")
    print("# Generated by test/cost/job_facts.py (nccl-oracle --kv -v --sizes %s; PCIe gen5 x16, sm 10.0;" % SIZES)
    print("# releases v2.28.9-1, v2.30.7-1 and dev = 2.31.0a7). Format of oracle-facts.txt;")
    print("# NAME = JOB-FILE-served|other. Checked by test_jobtopo.c, replayed by test_nccl_cost.c.")
    with tempfile.TemporaryDirectory() as tmp:
        sysfs = os.path.join(tmp, "sysfs")
        with open(SPEC) as spec:
            subprocess.run([sys.executable, "test/cli/helpers/sysfs_fixture.py", sysfs], stdin=spec, check=True)
        for env, default in RELEASES:
            oracle = os.environ.get(env, default)
            if not os.access(oracle, os.X_OK):
                sys.exit("oracle not found (%s=%s)" % (env, oracle))
            for job, devices in JOBS:
                gpus = [int(g) for g in devices.split(",")]
                served, _ = topo(sysfs, devices, VERSIONS[env])
                files = {k: topo(sysfs, devices, VERSIONS[env], k)[1] for k in ("numa", "flat")}
                for kind in ("numa", "flat", "own"):
                    text = own_view(gpus) if kind == "own" else complete(files[kind], gpus)
                    path = os.path.join(tmp, "t.xml")
                    with open(path, "w") as f:
                        f.write(text)
                    tag = "served" if kind == served or (kind == "own" and served == "none") else "other"
                    print("\n".join(block(oracle, path, "%s-%s-%s" % (job, kind, tag))))


main()
