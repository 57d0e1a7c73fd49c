#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# --json on explain, check, check-config and topo: stdout is one JSON document (parsed here
# with Python's json module), with "version": 1, and its values are what the text output
# says for the same inputs; explain --sizes prints one row per collective and size, the same
# choices and times as its JSON.
. "$(dirname "$0")/helpers/lib.sh"
nn_cli
nn_tmp nn-json
command -v python3 >/dev/null || nn_skip "no python3 (needed to parse the JSON)"
R=$root/docs/examples/proxmox-epyc-8gpu.conf
C=(--config "$R" --cpuinfo "$root/test/fixtures/cpuinfo/amd-turin")
q() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }   # q FILE EXPR (d: the document)

# ---- explain
for rel in 2.28.9 2.31.2; do
  for vd in "" 0,1,2,3; do
    "$cli" explain "${C[@]}" --nccl-version $rel ${vd:+--visible-devices $vd} --sizes 8K,64K,1M,64M > "$tmp/text" 2>/dev/null
    "$cli" explain "${C[@]}" --nccl-version $rel ${vd:+--visible-devices $vd} --sizes 8K,64K,1M,64M --json > "$tmp/e.json" 2>/dev/null
    what="explain $rel${vd:+ visible $vd}"
    check "$what: one JSON document, version 1, command explain" \
      "[ \"\$(q '$tmp/e.json' 'd[\"version\"], d[\"command\"], d[\"nccl\"][\"release\"]')\" = '1 explain $rel' ]"
    check "$what: the summary is the text's" \
      "[ \"\$(q '$tmp/e.json' 'd[\"summary\"]')\" = \"\$(sed -n '/^summary:/,\$p' '$tmp/text')\" ]"
    served=False; [ -n "$vd" ] && served=True
    check "$what: topology served $served, as the summary says" "[ \"\$(q '$tmp/e.json' 'd[\"topology\"][\"served\"]')\" = $served ]"
    check "$what: 5 collectives' bands, 4 sizes each in sizes" \
      "[ \"\$(q '$tmp/e.json' 'len(d[\"collectives\"]), len(d[\"sizes\"]), [s[\"bytes\"] for s in d[\"sizes\"][:4]]')\" = '5 20 [8192, 65536, 1048576, 67108864]' ]"
    # every --sizes row of the text: the same choices, times (to 0.1 us) and rule as the JSON
    python3 - "$tmp/text" "$tmp/e.json" <<'PY' > "$tmp/cmp" 2>&1
import json, sys
rows = []
on = False
for line in open(sys.argv[1]):
    if line.startswith("sizes"): on = True; continue
    if on and not line.strip(): break
    if on and not line.lstrip().startswith("collective"):
        f = line.split()
        rows.append((f[0], f[3], float(f[4]), f[5], float(f[6]), f[7]))
d = json.load(open(sys.argv[2]))
js = [(s["coll"], "%s/%s" % (s["nccl"]["algo"], s["nccl"]["proto"]), round(s["nccl"]["time_us"], 1),
       "%s/%s" % (s["plugin"]["algo"], s["plugin"]["proto"]), round(s["plugin"]["time_us"], 1),
       s["rule"] or "NCCL's") for s in d["sizes"]]
ok = len(rows) == len(js) == 20 and all(a[:2] == b[:2] and abs(a[2] - b[2]) < 0.051 and a[3] == b[3]
                                         and abs(a[4] - b[4]) < 0.051 and a[5] == b[5] for a, b in zip(rows, js))
print("same" if ok else "differ: %s / %s" % (rows[:2], js[:2]))
PY
    check "$what: the --sizes rows of the text equal the JSON's" "grep -qx same '$tmp/cmp' || { cat '$tmp/cmp'; false; }"
  done
done
"$cli" explain "${C[@]}" --nccl-version 2.28.9 --sizes 8K,0 > /dev/null 2> "$tmp/err"
check "explain --sizes with a 0: refused (exit 2)" "[ \$? -eq 2 ] && grep -q -- \"--sizes '8K,0'\" '$tmp/err'"
"$cli" explain "${C[@]}" --nccl-version 2.28.9 --compare-release 2.30.7 --emit-rules --json > /dev/null 2> "$tmp/err"
check "explain --json --emit-rules: refused (exit 2)" "[ \$? -eq 2 ]"

# ---- check-config
"$cli" check-config --json "$R" > "$tmp/cc.json"
check "check-config --json: valid, 8 GPUs on 2 nodes, as the text line says" \
  "[ \$? -eq 0 ] && [ \"\$(q '$tmp/cc.json' 'd[\"version\"], d[\"valid\"], d[\"gpus\"], d[\"numa_nodes\"], d[\"rules\"]')\" = '1 True 8 2 6' ] && '$cli' check-config '$R' | grep -q ': ok (8 GPUs on 2 NUMA nodes, 6 rules, 0 env)'"
printf 'gpu 0 bus=zz numa=0\n# \033[2J\n' > "$tmp/bad.conf"
"$cli" check-config --json "$tmp/bad.conf" > "$tmp/bad.json"
check "check-config --json on a bad file: exit 1, invalid, the problem with file and line" \
  "[ \$? -eq 1 ] && [ \"\$(q '$tmp/bad.json' 'd[\"valid\"], d[\"problems\"][0].startswith(\"$tmp/bad.conf:1: gpu: bad bus id\")')\" = 'False True' ]"
check "check-config --json: ASCII only, whatever the file holds" "! LC_ALL=C grep -q '[^ -~]' '$tmp/bad.json'"

# ---- topo
"$cli" topo "${C[@]}" --nccl-version 2.28.9 > "$tmp/topo.xml" 2>/dev/null
"$cli" topo "${C[@]}" --nccl-version 2.28.9 --json > "$tmp/t.json" 2>/dev/null
check "topo --json: version 1, not served (as explain says), the XML the text mode prints" \
  "[ \"\$(q '$tmp/t.json' 'd[\"version\"], d[\"served\"], d[\"numa_nodes\"], d[\"cpu\"][\"family\"]')\" = '1 False 2 26' ] && python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))[\"xml\"] != open(sys.argv[2]).read())' '$tmp/t.json' '$tmp/topo.xml'"
"$cli" topo --validate "$root/test/fixtures/topo/good.xml" --config "$root/test/fixtures/topo/good.conf" --json > "$tmp/v.json" 2>/dev/null
check "topo --validate --json: ok, no findings" "[ \"\$(q '$tmp/v.json' 'd[\"ok\"], d[\"errors\"], d[\"findings\"]')\" = 'True 0 []' ]"

# ---- check
nn_sysfs_tree "$tmp/guest" < "$root/test/fixtures/sysfs/ref-guest.spec"
"$cli" check --config "$root/test/fixtures/config/ref-guest-flat.conf" --no-cuda --sysfs-root "$tmp/guest" --nccl-version 2.28.9 > "$tmp/check.txt" 2>/dev/null
"$cli" check --config "$root/test/fixtures/config/ref-guest-flat.conf" --no-cuda --sysfs-root "$tmp/guest" --nccl-version 2.28.9 --json > "$tmp/c.json" 2>/dev/null
check "check --json: version 1, 0 problems, the text's sections and summary" \
  "[ \"\$(q '$tmp/c.json' 'd[\"version\"], d[\"problems\"], len(d[\"sections\"])')\" = '1 0 6' ] && [ \"\$(q '$tmp/c.json' 'd[\"summary\"]')\" = \"\$(sed -n '/^summary:/,\$p' '$tmp/check.txt')\" ] && grep -q '^Result: 0 problems' '$tmp/check.txt'"

nn_finish "PASS test_json"
