#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Instructions per getCollInfo call by stage, from one callgrind dump of bench_tuner -I.

Usage: stages.py CALLGRIND_OUT CALLS
Runs callgrind_annotate over the dump with whole source files, gives every source line's
instruction count (inlined code counts at its own line) to the function whose body holds
it, then sums those functions into the stages of a call. Prints one markdown table row per
stage."""
import re
import subprocess
import sys

STAGES = [  # (stage, functions whose lines it sums)
    ("benchmark harness: refill the table, indirect call (the floor's work)", {"time_calls"}),
    ("ABI adapter (tuner_v5.c, tuner.h: context, collective mask, jump)", {"get_coll_info_v5", "nn_tuner_get_coll_info"}),
    ("ruled collective: entry, saved registers, exit (tuner.c)", {"nn_tuner_get_coll_info_ruled", "nn_policy_apply_fast"}),
    ("segment lookup: octave word, key of nBytes, bucket, step back", {"nn_policy_octave", "nn_policy_key", "nn_policy_segment_fast", "nn_policy_step_back"}),
    ("choice check: entry set, table shape, entry enabled or no rule", {"nn_policy_fast_ok"}),
    ("no +-0.0 among the first 8 entries (vector compare)",
     {"nn_policy_zero_in_8", "intrinsics"}),
    ("write the choice: entry 0.0, channels", {"nn_policy_fast_write"}),
    ("general path (crowded buckets, conditions, open choices)",
     {"get_coll_info_general", "nn_policy_apply_general", "nn_policy_crowded", "nn_policy_split", "nn_policy_search",
      "apply_walk", "find_rule", "first_possible", "segment_index", "possible", "resolve_choice", "call_matches",
      "cheapest", "enabled", "choose", "rule_has_coll", "in_range"}),
]
FUNC = re.compile(r"^(?:static\s+|inline\s+|__attribute__\(\([^)]*\)\)\s+|const\s+|struct\s+\w+\s*\*?\s*|"
                  r"unsigned\s+|int\s+|void\s+|double\s+|nn_ncclResult_t\s+|uint32_t\s+|uint64_t\s+)+\**(\w+)\(")
COUNT = re.compile(r"^\s*([\d,]+) \(\s*[\d.]+%\)  ")
DOT = re.compile(r"^(\s*\.) {11}")   # a line that ran nothing: the count column, then "(xx.xx%)  " blank


def per_function(text):
    """Instruction counts per function name over every annotated source file."""
    totals, width, func, in_src, intrin = {}, None, None, False, False
    for line in text.splitlines():
        if line.startswith("-- Auto-annotated source:"):
            # The compiler's vector intrinsics (xmmintrin.h, only the +-0.0 check uses them)
            # are declared in a form FUNC does not read: their lines count as one function.
            intrin = line.rstrip().endswith("intrin.h")
            in_src, width, func = True, None, "intrinsics" if intrin else None
            continue
        if line.startswith("The following files") or line.rstrip().endswith("events annotated"):
            in_src = False   # the trailer: its total must not join the last file's last function
        if not in_src or "=>" in line or line.startswith("----") or line.startswith("Ir"):
            continue
        m = COUNT.match(line)
        d = DOT.match(line)
        if width is None and (m or d):
            width = m.end() if m else d.end()
        if width is None:
            continue
        src = line[width:] if len(line) > width else ""
        f = FUNC.match(src)
        if f and not src.rstrip().endswith(";"):
            func = f.group(1)
        if m and func:
            totals[func] = totals.get(func, 0) + int(m.group(1).replace(",", ""))
        if src.startswith("}") and not intrin:
            func = None
    return totals


def main():
    dump, calls = sys.argv[1], int(sys.argv[2])
    text = subprocess.run(["callgrind_annotate", "--show=Ir", "--threshold=100", "--auto=yes", "--context=1000000", dump],
                          capture_output=True, text=True, check=True).stdout
    totals = per_function(text)
    seen = set()
    for stage, funcs in STAGES:
        n = sum(totals.get(f, 0) for f in funcs)
        seen |= funcs
        print(f"| {stage} | {n / calls:.1f} |")
    rest = sum(v for k, v in totals.items() if k not in seen)
    print(f"| elsewhere | {rest / calls:.1f} |")


if __name__ == "__main__":
    main()
