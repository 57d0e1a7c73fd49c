#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The examples in README.md and docs/**/*.md are true: every ```console block is run and its
# output compared. In such a block a line "$ CMD" is a command (a trailing "\" continues it
# on the next line), run by bash from the repository root with stderr joined to stdout; the
# lines after it, up to the next command, are its whole output, where a line "..." stands
# for any number of lines and "..." within a line for any text on it. README.md's commands
# must also exit 0 (they are the ones a new user runs first). The commands of one file run in one shell, in order, so an
# `export` or a file written by one example is there for the next. /tmp/nn-example is a
# private temporary directory here; `nccl-numa` is the CLI under test. Every relative link
# [text](path#anchor) must name a file of the repository and, with #anchor, one of its headings.
# NCCL_NUMA_BIN overrides the CLI under test (default build/nccl-numa).
. "$(dirname "$0")/helpers/lib.sh"
nn_cli abs
command -v python3 >/dev/null || nn_skip "python3 is needed to read the documents"
nn_tmp
cd "$root" || exit 1
unset HWLOC_XMLFILE NCCL_NUMA_CONFIG NCCL_TOPO_FILE NCCL_TUNER_CONFIG_FILE NCCL_TUNER_PLUGIN \
  NCCL_ENV_PLUGIN NCCL_DEBUG NCCL_DEBUG_SUBSYS NCCL_NUMA_LOG_FILE
docs=$(ls README.md docs/*.md docs/*/*.md 2>/dev/null)
python3 - "$tmp" "$cli" $docs <<'PY'
import os, re, subprocess, sys

tmp, cli, files = sys.argv[1], sys.argv[2], sys.argv[3:]
example = "/tmp/nn-example"
private = os.path.join(tmp, "nn-example")

def examples(path):
    """[(line, command, expected lines)] of the file's console blocks."""
    out, block, cmd = [], False, None
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            block = line.strip() == "```console"
            cmd = None
        elif block and line.startswith("$ "):
            start, text = i + 1, line[2:]
            while text.endswith("\\") and i + 1 < len(lines):
                i += 1
                text += "\n" + lines[i]
            cmd = [start, text, []]
            out.append(cmd)
        elif block and cmd is not None:
            cmd[2].append(line)
        i += 1
    return out

def line_pattern(w):
    """A wanted line: "..." within it stands for any text on that line."""
    return ".*".join(re.escape(part) for part in w.split("..."))

def matches(want, got):
    """want's lines equal got's, a "..." line standing for any number of lines."""
    pat = "".join(r"(?:.*\n)*?" if w == "..." else line_pattern(w) + r"\n" for w in want)
    return re.fullmatch(pat, "".join(g + "\n" for g in got)) is not None

def slug(heading):
    """The anchor GitHub gives a heading."""
    h = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return h.replace(" ", "-")

def anchors(path):
    text = re.sub(r"^```.*?^```", "", open(path, encoding="utf-8").read(), flags=re.S | re.M)
    return {slug(m) for m in re.findall(r"^#+ (.*)$", text, flags=re.M)}

fails = checked = 0
for path in files:
    for target in re.findall(r"\]\(([^)\s]+)\)", open(path, encoding="utf-8").read()):
        if re.match(r"[a-z]+:", target):
            continue
        file, _, anchor = target.partition("#")
        full = os.path.normpath(os.path.join(os.path.dirname(path), file)) if file else path
        checked += 1
        if not os.path.exists(full):
            fails += 1
            print("FAIL %s: link to %s: no such file" % (path, target))
        elif anchor and (not full.endswith(".md") or anchor not in anchors(full)):
            fails += 1
            print("FAIL %s: link to %s: no heading #%s in %s" % (path, target, anchor, full))
for path in files:
    items = examples(path)
    if not items:
        continue
    script = ["nccl-numa() { %s \"$@\"; }" % cli, "set +e"]
    for n, (line, text, _) in enumerate(items):
        script.append("echo '@@nn-docs %d@@'" % n)
        script.append("{ %s\n} 2>&1; echo \"@@nn-rc $?@@\"" % text.replace(example, private))
    run = subprocess.run(["bash", "-c", "\n".join(script)], capture_output=True, text=True,
                         timeout=300, env=dict(os.environ, SOURCE_DATE_EPOCH="0"))
    parts = re.split(r"^@@nn-docs \d+@@\n", run.stdout, flags=re.M)[1:]
    for n, (line, text, want) in enumerate(items):
        checked += 1
        got = parts[n].split("\n")[:-1] if n < len(parts) else ["(not run: %s)" % run.stderr]
        rc = int(got.pop()[len("@@nn-rc "):-2]) if got and got[-1].startswith("@@nn-rc ") else None
        want = [w.replace(example, private) for w in want]
        if path == "README.md" and rc != 0:
            fails += 1
            print("FAIL %s:%d: `$ %s` exited %s; README's commands must work" % (path, line, text, rc))
            print("  got:\n    " + "\n    ".join(got))
            continue
        if matches(want, got):
            print("ok %s:%d: $ %s" % (path, line, text.split("\n")[0]))
            continue
        fails += 1
        print("FAIL %s:%d: `$ %s` printed something else; update the document or the code" % (path, line, text))
        print("  wanted:\n    " + "\n    ".join(want) + "\n  got:\n    " + "\n    ".join(got))
print("%d examples and links checked, %d wrong" % (checked, fails))
sys.exit(1 if fails or not checked else 0)
PY
rc=$?
[ $rc -eq 0 ] || fails=$((fails + 1))

# Comments are self-contained: none cites a document outside the repository (the shared
# contract notes, the ABI notes, an issue) instead of giving the reason.
cited=$(git -C "$root" grep -nE 'contract notes?|\.\./shared/docs|ABI doc|\(notes? [0-9]+|issue [0-9]+\)?[:,)]' \
  -- '*.c' '*.h' '*.sh' '*.py' Makefile 2>/dev/null | grep -v '^test/cli/test_docs.sh:')
if [ -z "$cited" ]; then echo "ok no comment cites a document outside the repository"
else fail "comments citing documents outside the repository:"; echo "$cited"; fi
nn_finish "all passed"
