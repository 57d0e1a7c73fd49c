#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The NCCL releases the fact scripts of test/cost run NCCL's own code for: the one list.

Each is built from an NCCL source tree with tools/nccl-oracle/build.sh (its README), which names
the binary after the tree's release: $BUILD/nccl-oracle/oracle-VERSION (BUILD as for make:
default build, relative to the repository root). An environment variable per release names
another binary. Adding a release with a source tag is one line of RELEASES; the fact scripts
(oracle_facts.py, job_facts.py, visible_facts.py, p2p_facts.py, compare_release_facts.py,
nic_facts.py) import this list, and those of oracle-facts.txt's format run the oracle through oracle_run.py.

  python3 test/cost/oracle_releases.py     the build command and binary of each, and which exist
"""
import os
import sys
from collections import namedtuple

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# version: the tree's makefiles/version.mk (the binary's name and the facts' release column);
# tag: what `git archive` takes from NVIDIA/nccl; env: the variable that overrides the binary.
Release = namedtuple("Release", "version tag env")
RELEASES = [
    Release("2.28.9", "v2.28.9-1", "ORACLE_2_28_9"),
    Release("2.30.7", "v2.30.7-1", "ORACLE_2_30_7"),
    Release("2.31.0", "dev", "ORACLE_DEV"),   # the development branch (no release tag yet)
]
# The pair `explain --compare-release` is checked on (compare_release_facts.py): the newest
# release tag against the development branch.
COMPARED = ("2.30.7", "2.31.0")


def build_dir():
    b = os.environ.get("BUILD", "build")
    return b if os.path.isabs(b) else os.path.join(ROOT, b)


def oracle_of(release):
    """The binary of a release: its environment variable, else the build directory's."""
    return os.environ.get(release.env) or os.path.join(build_dir(), "nccl-oracle",
                                                       "oracle-" + release.version)


def chosen(versions=None):
    """The releases named (all by default), in the list's order; exits on an unknown name."""
    if versions is None:
        return list(RELEASES)
    known = {r.version for r in RELEASES}
    unknown = [v for v in versions if v not in known]
    if unknown:
        sys.exit("oracle_releases: not in RELEASES: %s" % " ".join(unknown))
    return [r for r in RELEASES if r.version in versions]


def oracles(versions=None):
    """(release, binary) of each release chosen; exits naming the build command when one is missing."""
    out = []
    for r in chosen(versions):
        path = oracle_of(r)
        if not os.access(path, os.X_OK):
            sys.exit("oracle for NCCL %s not found: %s (build it: tools/nccl-oracle/build.sh "
                     "NCCL_SRC_DIR, a tree of tag %s; or set %s)" % (r.version, path, r.tag, r.env))
        out.append((r, path))
    return out


def each_file(files, tmp, versions=None):
    """(release, binary, name, xml path) for every release chosen and every file {name: text},
    each written into tmp."""
    for r, oracle in oracles(versions):
        for name, text in files.items():
            xml = os.path.join(tmp, name + ".xml")
            with open(xml, "w") as f:
                f.write(text)
            yield r, oracle, name, xml


def main():
    for r in RELEASES:
        path = oracle_of(r)
        print("%-7s %-10s %s %s" % (r.version, r.tag, path, "(built)" if os.access(path, os.X_OK) else
                                    "(missing: tools/nccl-oracle/build.sh /tmp/nccl-src/%s)" % r.tag))


if __name__ == "__main__":
    main()
