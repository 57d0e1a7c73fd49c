#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The QEMU boot test's two halves, for a config written by `nccl-numa proxmox-numa`.

  pve2qemu.py args CONFIG
      Prints, one per line, the QEMU arguments the test boots: the VM's -m/-smp,
      each numaK line as -object memory-backend-ram + -numa node (the host-node
      binding left out: the test machine has one node), a stand-in for Proxmox's
      own q35 layout (the pcidmi/pci.N bridges and ich9-pcie-port-N root ports of
      qemu-server's pve-q35-4.0.cfg, plus a pci-testdev for every hostpci entry
      left in the config), and the args: line as written, except that every
      `vfio-pci,host=...` becomes an emulated e1000e on the same root port.

  pve2qemu.py check CONFIG HOST_XML GUEST_LOG
      Checks the guest's report (test/qemu/init.sh) against the config and the
      host's hwloc XML: every stand-in present, on the guest node whose hostnodes=
      is its GPU's host NUMA node, behind the root port with its port number and
      behind its expander; the guest's NUMA nodes and CPUs as the numaK lines say.
      Exit 0 when all holds, 1 with one line per problem.
"""
import shlex
import sys
import xml.etree.ElementTree as ET

# Proxmox's extra root ports for hostpci4..15 (qemu-server PCI.pm print_pcie_root_port).
EXTRA_PORT_ADDR = {4: "10.0", 5: "10.1", 6: "10.2", 7: "10.3", 8: "10.4", 9: "10.5", 10: "10.6",
                   11: "10.7", 12: "11.0", 13: "11.1", 14: "11.2", 15: "11.3"}
E1000E = ("0x8086", "0x10d3")
TESTDEV = ("0x1b36", "0x0005")


def read_config(path):
    conf = {}
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("["):
                break
            if not line or line.startswith("#") or ":" not in line:
                continue
            key, value = line.split(":", 1)
            conf[key.strip()] = value.strip()
    return conf


def options(text):
    """'drv,a=1,b=2' -> ('drv', [('a','1'), ('b','2')])"""
    parts = text.split(",")
    return parts[0], [tuple(p.split("=", 1)) if "=" in p else (p, "") for p in parts[1:]]


def cpu_set(spec):
    out = set()
    for part in spec.replace(";", ",").split(","):
        if not part:
            continue
        lo, _, hi = part.partition("-")
        out.update(range(int(lo), int(hi or lo) + 1))
    return out


def numa_nodes(conf):
    nodes = {}
    for key, value in conf.items():
        if key.startswith("numa") and key[4:].isdigit():
            nodes[int(key[4:])] = dict(p.split("=", 1) for p in value.split(","))
    return dict(sorted(nodes.items()))


def remaining_hostpci(conf):
    return sorted(int(k[7:]) for k in conf if k.startswith("hostpci") and k[7:].isdigit())


def qemu_args(conf):
    sockets, cores = int(conf.get("sockets", 1)), int(conf.get("cores", 1))
    vcpus = sockets * cores
    out = ["-m", conf["memory"], "-smp", "%d,sockets=%d,cores=%d,maxcpus=%d" % (vcpus, sockets, cores, vcpus)]
    for k, n in numa_nodes(conf).items():
        out += ["-object", "memory-backend-ram,id=ram-node%d,size=%sM" % (k, n["memory"]),
                "-numa", "node,nodeid=%d,%s,memdev=ram-node%d"
                % (k, ",".join("cpus=" + c for c in n["cpus"].split(";")), k)]
    out += ["-device", "i82801b11-bridge,id=pcidmi,bus=pcie.0,addr=1e.0"]
    for i in range(4):
        out += ["-device", "pci-bridge,id=pci.%d,bus=pcidmi,addr=%d.0,chassis_nr=%d" % (i, i + 1, i + 1)]
    for i in range(1, 5):
        out += ["-device", "pcie-root-port,id=ich9-pcie-port-%d,bus=pcie.0,addr=1c.%d,multifunction=on,"
                "port=%d,chassis=%d" % (i, i - 1, i, i)]
    for n in remaining_hostpci(conf):
        if n >= 4:
            out += ["-device", "pcie-root-port,id=ich9-pcie-port-%d,addr=%s,multifunction=on,bus=pcie.0,"
                    "port=%d,chassis=%d" % (n + 1, EXTRA_PORT_ADDR[n], n + 1, n + 1)]
        out += ["-device", "pci-testdev,bus=ich9-pcie-port-%d" % (n + 1)]
    words = shlex.split(conf.get("args", ""))
    for i, w in enumerate(words):
        if i > 0 and words[i - 1] == "-device" and w.startswith("vfio-pci,"):
            _, opts = options(w)
            keep = [o for o in opts if o[0] not in ("host", "romfile") and not o[0].startswith("x-pci-")]
            w = ",".join(["e1000e", "romfile="] + ["%s=%s" % o for o in keep])
        out.append(w)
    return out


def host_gpu_nodes(path):
    """{'0000:01:00': host NUMA node} for the NVIDIA GPUs of an hwloc XML."""
    result = {}

    def walk(obj, node):
        for numa in obj.findall("object[@type='NUMANode']"):
            node = int(numa.get("os_index"))
        if obj.get("type") == "PCIDev":
            pci_type = obj.get("pci_type", "")
            if pci_type.startswith("03") and "[10de:" in pci_type:
                result[obj.get("pci_busid")[:-2]] = node
        for child in obj.findall("object"):
            walk(child, node)

    walk(ET.parse(path).getroot().find("object"), -1)
    return result


def parse_guest(path):
    devs, nodes, begun, ended = [], {}, False, False
    with open(path, errors="replace") as f:
        for line in f:
            line = line.strip()
            begun |= line.endswith("NNBOOT-BEGIN")
            ended |= line.endswith("NNBOOT-END")
            if line.startswith("NNPCI "):
                fields = line.split()
                d = dict(f.split("=", 1) for f in fields[2:])
                d["path"] = fields[1]
                devs.append(d)
            elif line.startswith("NNNODE "):
                _, k, cpus = line.split()
                nodes[int(k)] = cpu_set(cpus.split("=", 1)[1])
    return devs, nodes, begun and ended


def check(conf_path, xml_path, log_path):
    conf = read_config(conf_path)
    devs, guest_nodes, complete = parse_guest(log_path)
    problems = []
    if not complete:
        return ["the guest's report is incomplete (no NNBOOT-BEGIN/END): the boot failed"]
    numa = numa_nodes(conf)
    for k, n in numa.items():
        if k not in guest_nodes:
            problems.append("guest NUMA node %d is missing" % k)
        elif guest_nodes[k] != cpu_set(n["cpus"]):
            problems.append("guest node %d has CPUs %s, the config says %s" % (k, sorted(guest_nodes[k]), n["cpus"]))
    for k in guest_nodes:
        if k not in numa:
            problems.append("the guest has a NUMA node %d the config does not define" % k)

    host_nodes = host_gpu_nodes(xml_path)
    words = shlex.split(conf.get("args", ""))
    devices = [options(words[i + 1]) for i, w in enumerate(words[:-1]) if w == "-device"]
    pxbs = {dict(o)["id"]: dict(o) for drv, o in devices if drv == "pxb-pcie"}
    ports = {dict(o)["id"]: dict(o) for drv, o in devices if drv == "pcie-root-port"}
    gpus = [dict(o) for drv, o in devices if drv == "vfio-pci"]
    bridges = {d["path"]: d for d in devs if d["class"].startswith("0x0604")}
    standins = [d for d in devs if (d["vendor"], d["device"]) == E1000E]
    seen = set()
    for g in gpus:
        host, rp = g["host"], ports[g["bus"]]
        pxb = pxbs[rp["bus"]]
        k, bus_nr, port = int(pxb["numa_node"]), int(pxb["bus_nr"]), rp["port"]
        want_host_node = host_nodes.get(host[:-2])
        if want_host_node is None:
            problems.append("%s is not an NVIDIA GPU of the host topology" % host)
        elif numa.get(k, {}).get("hostnodes") != str(want_host_node):
            problems.append("%s sits on guest node %d (hostnodes=%s) but the GPU is on host node %d"
                            % (host, k, numa.get(k, {}).get("hostnodes"), want_host_node))
        rps = [p for p, b in bridges.items() if b["port"] == port]
        if len(rps) != 1:
            problems.append("%s: %d guest bridges with port number %s, wanted 1" % (host, len(rps), port))
            continue
        if not rps[0].startswith("/sys/devices/pci0000:%02x/" % bus_nr):
            problems.append("%s: its root port %s is not behind the expander on bus %d" % (host, rps[0], bus_nr))
        func = int(g.get("addr", "0.0").split(".")[1])
        mine = [d for d in standins if d["path"].rsplit("/", 1)[0] == rps[0] and d["path"].endswith(".%x" % func)]
        if len(mine) != 1:
            problems.append("%s: its stand-in (function %d) is missing under %s" % (host, func, rps[0]))
            continue
        seen.add(mine[0]["path"])
        if mine[0]["numa"] != str(k):
            problems.append("%s: stand-in %s has numa_node %s, wanted %d" % (host, mine[0]["path"], mine[0]["numa"], k))
        else:
            print("ok %s host node %d -> guest node %d: %s (port %s)" % (host, want_host_node, k, mine[0]["path"], port))
    if len(standins) != len(gpus) or len(seen) != len(gpus):
        problems.append("the guest shows %d stand-ins, %d matched, for %d vfio-pci devices"
                        % (len(standins), len(seen), len(gpus)))
    others = [d for d in devs if (d["vendor"], d["device"]) == TESTDEV]
    if len(others) != len(remaining_hostpci(conf)):
        problems.append("the guest shows %d of the %d remaining hostpci stand-ins"
                        % (len(others), len(remaining_hostpci(conf))))
    for d in others:
        if not d["path"].startswith("/sys/devices/pci0000:00/"):
            problems.append("remaining hostpci stand-in %s is not under pcie.0" % d["path"])
    return problems


def main(argv):
    if len(argv) == 3 and argv[1] == "args":
        print("\n".join(qemu_args(read_config(argv[2]))))
        return 0
    if len(argv) == 5 and argv[1] == "check":
        problems = check(*argv[2:])
        for p in problems:
            print("FAIL: " + p)
        return 1 if problems else 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
