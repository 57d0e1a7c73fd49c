#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Checks Kubernetes manifests against what nccl-numa reads. Parses every YAML file given and
every ```yaml block of every Markdown file given (PyYAML, safe_load_all), then, for each
Deployment and each pod template of a LeaderWorkerSet (leader and worker): a non-root pod (runAsNonRoot, runAsUser > 0); per container, GPUs from the NVIDIA
device plugin (resources.limits nvidia.com/gpu) and no CUDA_VISIBLE_DEVICES of its own; every
NCCL_* variable it sets read by the code (a "NAME" string literal in plugin/, cli/ or include/);
the mapping path (NCCL_NUMA_CONFIG, or exec's --config) a key of a ConfigMap mounted read-only
at that directory; NCCL_TUNER_PLUGIN/NCCL_ENV_PLUGIN either an absolute path or a name whose
library `make install` puts on the library path; an `nccl-numa` command's subcommand and options
among those its --help lists. Each ConfigMap's *.conf entry must pass `nccl-numa check-config`.
Prints "ok ..." per check, "FAIL ..." per problem; exits 1 on any problem.
usage: k8s_yaml.py REPO_ROOT CLI FILE..."""
import os
import re
import subprocess
import sys
import tempfile

import yaml

root, cli, files = sys.argv[1], sys.argv[2], sys.argv[3:]
problems = 0


def say(ok, what):
    global problems
    print(("ok   " if ok else "FAIL ") + what)
    problems += not ok


def documents(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if not path.endswith(".md"):
        return [(path, d) for d in yaml.safe_load_all(text) if d]
    blocks = re.findall(r"^```yaml\n(.*?)^```", text, re.S | re.M)
    return [("%s (yaml block %d)" % (path, i + 1), d) for i, b in enumerate(blocks) for d in yaml.safe_load_all(b) if d]


def source_text():
    parts = []
    for top in ("plugin", "cli", "include"):
        for dirpath, _, names in os.walk(os.path.join(root, top)):
            for n in names:
                if n.endswith((".c", ".h")):
                    with open(os.path.join(dirpath, n), encoding="utf-8", errors="replace") as f:
                        parts.append(f.read())
    return "\n".join(parts)


def cli_help(*args):
    return subprocess.run([cli, *args, "--help"], capture_output=True, text=True).stdout


docs = [d for f in files for d in documents(f)]
configmaps = {d["metadata"]["name"]: d.get("data", {}) for _, d in docs if d.get("kind") == "ConfigMap"}
sources = source_text()
with open(os.path.join(root, "Makefile"), encoding="utf-8") as f:
    makefile = f.read()

for name, data in configmaps.items():
    for key, text in data.items():
        if not key.endswith(".conf"):
            continue
        # in a directory of its own: a file lying directly in /tmp is not trusted
        with tempfile.TemporaryDirectory() as tmpdir:
            conf = os.path.join(tmpdir, key)
            with open(conf, "w") as tmp:
                tmp.write(text)
            r = subprocess.run([cli, "check-config", conf], capture_output=True, text=True)
        say(r.returncode == 0, "ConfigMap %s: %s is a valid mapping %s" % (name, key, r.stderr.strip()))


def check_env(where, env):
    names = {e["name"]: e.get("value") for e in env}
    say("CUDA_VISIBLE_DEVICES" not in names, "%s: leaves CUDA_VISIBLE_DEVICES to the device plugin" % where)
    for n in names:
        if n.startswith("NCCL_"):
            say('"%s"' % n in sources, "%s: %s is read by the code" % (where, n))
    for var, kind in (("NCCL_TUNER_PLUGIN", "tuner"), ("NCCL_ENV_PLUGIN", "env")):
        v = names.get(var)
        if v is None:
            continue
        lib = "libnccl-%s-%s.so" % (kind, v)
        say(v.startswith("/") or lib in makefile, "%s: %s=%s opens %s, which make install puts on the library path" %
            (where, var, v, lib))
    return names


def check_command(where, cmd):
    """The mapping path exec's --config names, or None."""
    if not cmd or os.path.basename(str(cmd[0])) != "nccl-numa":
        return None
    sub = cmd[1]
    say(re.search(r"^  %s " % re.escape(sub), cli_help(), re.M) is not None, "%s: nccl-numa %s is a command" % (where, sub))
    usage = cli_help(sub)
    args = cmd[2:cmd.index("--")] if "--" in cmd else cmd[2:]
    config = None
    for i, a in enumerate(args):
        if a.startswith("--"):
            say(re.search(r"\[%s[ \]]" % re.escape(a), usage) is not None, "%s: exec takes %s" % (where, a))
        if a == "--config":
            config = args[i + 1]
        if a == "--bind-for":
            say(args[i + 1] in ("sglang", "vllm"), "%s: --bind-for %s" % (where, args[i + 1]))
    say("--" in cmd, "%s: the engine's command follows --" % where)
    return config


def check_mapping_mount(where, spec, container, path):
    volumes = {v["name"]: v for v in spec.get("volumes") or []}
    for m in container.get("volumeMounts") or []:
        cm = volumes.get(m["name"], {}).get("configMap")
        if not cm or os.path.dirname(path) != m["mountPath"].rstrip("/"):
            continue
        say(m.get("readOnly") is True, "%s: the ConfigMap %s is mounted read-only" % (where, cm["name"]))
        say(os.path.basename(path) in configmaps.get(cm["name"], {}),
            "%s: %s is a key of the ConfigMap %s" % (where, os.path.basename(path), cm["name"]))
        return
    say(False, "%s: no ConfigMap mounted at %s" % (where, os.path.dirname(path)))


# Fragments (a Markdown block without a kind): their variables and commands, checked alike.
for where, d in docs:
    if "kind" not in d and isinstance(d.get("env"), list):
        check_env(where, d["env"])
    if "kind" not in d and isinstance(d.get("command"), list):
        check_command(where, d["command"])

# Pod templates: a Deployment's; a LeaderWorkerSet's leader and worker templates (multi-node).
pods = []
for where, d in docs:
    name = "%s %s" % (where, (d.get("metadata") or {}).get("name"))
    if d.get("kind") == "Deployment":
        pods.append((name, d["spec"]["template"]["spec"]))
    elif d.get("kind") == "LeaderWorkerSet":
        lwt = d["spec"]["leaderWorkerTemplate"]
        for part in ("leaderTemplate", "workerTemplate"):
            if part in lwt:
                pods.append(("%s %s" % (name, part), lwt[part]["spec"]))
n_deploy = sum(1 for _, d in docs if d.get("kind") == "Deployment")
say(n_deploy >= 2, "%d Deployments found" % n_deploy)
for where, spec in pods:
    sc = spec.get("securityContext") or {}
    say(sc.get("runAsNonRoot") is True and int(sc.get("runAsUser", 0)) > 0, "%s: runs as non-root" % where)
    for c in spec["containers"]:
        gpus = ((c.get("resources") or {}).get("limits") or {}).get("nvidia.com/gpu")
        say(isinstance(gpus, int) and gpus > 0, "%s: GPUs from the NVIDIA device plugin (nvidia.com/gpu: %s)" % (where, gpus))
        names = check_env(where, c.get("env") or [])
        path = check_command(where, c.get("command")) or names.get("NCCL_NUMA_CONFIG")
        say(path is not None, "%s: names the mapping (exec --config or NCCL_NUMA_CONFIG)" % where)
        if path:
            check_mapping_mount(where, spec, c, path)
sys.exit(1 if problems else 0)
