#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Builds a fake sysfs tree for nccl-numa's guest-side tests (discover --guest, check).

usage: sysfs_fixture.py ROOT < SPEC

SPEC lines (blank lines and # comments ignored):
  port DDDD:BB:DD.F [portnum=N] [cfg=full|short|none|nopcie|loop]
      a root port on the root bus, with a binary `config` file: `full` (default)
      walks a capability list to a PCI Express capability whose Link Capabilities
      carry port number N; `short` is the 64 bytes an unprivileged reader gets;
      `nopcie` has a list without a PCIe capability; `loop` a list that points to itself
  dev PATH [vendor=0x10de] [class=0x030200] [numa=-1] [ib=NAME] [net=NAME]
      a device; PATH is its chain from the root bus, e.g. 0000:00:1c.0/0000:05:00.0;
      ib=/net=: its infiniband/NAME and net/NAME directories (a NIC's devices)
  node N cpus=LIST
      a NUMA node of the OS, with its cpulist
  cpuinfo VENDOR family=N model=N
      ROOT/proc/cpuinfo with one processor of that kind (what `check --sysfs-root` reads)
"""
import os
import struct
import sys


def config_space(portnum, kind):
    if kind == "short":
        data = bytearray(64)
    else:
        data = bytearray(256)
    struct.pack_into("<HH", data, 0, 0x1b36, 0x000c)        # a QEMU root port
    struct.pack_into("<H", data, 0x06, 0x0010)              # capability list present
    data[0x0a], data[0x0b] = 0x04, 0x06                     # class 0604
    data[0x34] = 0x40
    if kind == "short":
        return bytes(data)
    data[0x40], data[0x41] = 0x11, 0x50                     # MSI-X -> 0x50
    data[0x50], data[0x51] = 0x01, 0x60                     # power management -> 0x60
    if kind == "loop":
        data[0x51] = 0x40
    elif kind == "nopcie":
        data[0x60], data[0x61] = 0x05, 0x00                 # MSI, end
    else:
        data[0x60], data[0x61] = 0x10, 0x00                 # PCI Express, end
        lnkcap = (portnum << 24) | (16 << 4) | 0x5          # port number, x16, 32 GT/s
        struct.pack_into("<I", data, 0x60 + 0x0c, lnkcap)
    return bytes(data)


def write(path, content, mode="w"):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, mode) as f:
        f.write(content)


def add_device(root, chain, vendor, cls, numa):
    name = chain.split("/")[-1]
    domain, bus = chain.split("/")[0].split(":")[:2]      # the root bus the chain starts on
    rel = "devices/pci%s:%s/%s" % (domain, bus, chain)
    d = os.path.join(root, "sys", rel)
    write(os.path.join(d, "vendor"), "%s\n" % vendor)
    write(os.path.join(d, "class"), "%s\n" % cls)
    write(os.path.join(d, "numa_node"), "%s\n" % numa)
    links = os.path.join(root, "sys/bus/pci/devices")
    os.makedirs(links, exist_ok=True)
    link = os.path.join(links, name)
    if not os.path.lexists(link):
        os.symlink("../../../" + rel, link)
    return d


def main():
    root = sys.argv[1]
    for raw in sys.stdin:
        line = raw.split("#", 1)[0].split()
        if not line:
            continue
        kind, arg, opts = line[0], line[1], dict(kv.split("=", 1) for kv in line[2:])
        if kind == "port":
            d = add_device(root, arg, "0x1b36", "0x060400", "-1")
            cfg = opts.get("cfg", "full")
            if cfg != "none":
                write(os.path.join(d, "config"), config_space(int(opts.get("portnum", "0")), cfg), "wb")
        elif kind == "dev":
            d = add_device(root, arg, opts.get("vendor", "0x10de"), opts.get("class", "0x030200"),
                           opts.get("numa", "-1"))
            for sub in ("ib", "net"):
                if sub in opts:
                    os.makedirs(os.path.join(d, "infiniband" if sub == "ib" else "net", opts[sub]), exist_ok=True)
        elif kind == "node":
            write(os.path.join(root, "sys/devices/system/node/node%s/cpulist" % arg), opts["cpus"] + "\n")
        elif kind == "cpuinfo":
            write(os.path.join(root, "proc/cpuinfo"),
                  "processor\t: 0\nvendor_id\t: %s\ncpu family\t: %s\nmodel\t\t: %s\n\n"
                  % (arg, opts["family"], opts["model"]))
        else:
            sys.exit("sysfs_fixture.py: unknown spec line: " + raw.strip())


if __name__ == "__main__":
    main()
