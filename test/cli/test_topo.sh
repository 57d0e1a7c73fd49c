#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# `nccl-numa topo`: generating the topology XML (stdout, -o, --sysfs-root, verdict) and
# `topo --validate` on the fixtures under test/fixtures/topo, hostile files included.
# NCCL_NUMA_BIN overrides the CLI under test (default build/nccl-numa).
. "$(dirname "$0")/helpers/lib.sh"
nn_cli abs   # --validate runs from $fix
fix=$root/test/fixtures/topo
nn_tmp

# run ARGS...: runs `nccl-numa topo` with a time limit, sets $rc, $out, $err
run() { nn_run 20 topo "$@"; }

# validate FILE RC [--config C]: runs --validate on a fixture (cd'ed, so names are short)
validate() {
  local f=$1 want=$2
  shift 2
  (cd "$fix" && timeout 20 "$cli" topo --validate "$f" "$@" >"$tmp/out" 2>"$tmp/err")
  rc=$?
  out=$(cat "$tmp/out")
  err=$(cat "$tmp/err")
  expect_rc "$want" "--validate $f"
}

# ---- usage
run --help
expect_rc 0 "--help"
grep -q '^usage: nccl-numa topo --config FILE' "$tmp/out" || fail "--help: no usage on stdout"
grep -q -- '--validate FILE' "$tmp/out" || fail "--help: --validate not explained"
run
expect_rc 2 "no arguments"
run --bogus
expect_rc 2 "unknown option"
run --config
expect_rc 2 "--config without value"
run --config "$fix/good.conf" --config "$fix/good.conf"
expect_rc 2 "--config twice"
run --validate "$fix/good.xml" -o "$tmp/x"
expect_rc 2 "--validate with -o"

# ---- generation (the file with NUMA nodes; the flat one is the verdict's where it rates best)
run --config "$fix/good.conf" --nccl-version 2.28.9 --file numa
expect_rc 0 "generate good.conf"
# Affinities worked out by hand: 0-15,32-47 and 16-31,48-63.
expect_out_line ' <cpu numaid="0" affinity="0000ffff,0000ffff" arch="x86_64" vendor="AuthenticAMD" familyid="25" modelid="17">' "generate"
expect_out_line ' <cpu numaid="1" affinity="ffff0000,ffff0000" arch="x86_64" vendor="AuthenticAMD" familyid="25" modelid="17">' "generate"
expect_out_line '  <pci busid="0000:41:00.0" class="0x030000"/>' "generate"
[ "$(head -n1 "$tmp/out")" = '<system version="1">' ] || fail "generate: first line is not <system version=\"1\">"
[ "$(grep -c '<pci ' "$tmp/out")" -eq 4 ] || fail "generate: not 4 pci elements"
grep -q $'\t' "$tmp/out" && fail "generate: tab in output"
grep -q '<?xml' "$tmp/out" && fail "generate: XML declaration in output"
# NUMA 0 first, its GPUs (2, 3) in index order.
[ "$(grep -o 'busid="[^"]*"' "$tmp/out" | tr '\n' ' ')" = 'busid="0000:c1:00.0" busid="0000:c2:00.0" busid="0000:41:00.0" busid="0000:42:00.0" ' ] \
  || fail "generate: GPU order $(grep -o 'busid="[^"]*"' "$tmp/out" | tr '\n' ' ')"
# The verdict on stderr (release, floor, both predicted searches) is the golden case
# test/golden/topo/good-2.28.9; here only that there is one.
grep -q 'topology served (mode=auto, NCCL 2.28.9)' "$tmp/err" || fail "generate: no verdict on stderr ($err)"
# the flat file: every GPU under node 0 with both nodes' CPUs
run --config "$fix/good.conf" --nccl-version 2.28.9 --file flat
expect_out_line ' <cpu numaid="0" affinity="ffffffff,ffffffff" arch="x86_64" vendor="AuthenticAMD" familyid="25" modelid="17">' "flat"
[ "$(grep -c '<cpu ' "$tmp/out")" -eq 1 ] || fail "flat: not one cpu"
grep -q 'the flat file (every GPU under one CPU node), which the plugin does not serve this job' "$tmp/err" \
  || fail "flat: not said ($err)"
run --config "$fix/good.conf" --file bogus
expect_rc 2 "--file bogus"

# the release: newer than the table, the newest row and "unverified"; malformed; from a library
run --config "$fix/good.conf" --nccl-version 2.99.1
expect_rc 0 "--nccl-version newer than the table"
grep -Eq 'NCCL 2\.99\.1 \(newer than checked: treated as 2\.[0-9.]+\)' "$tmp/err" || fail "unverified release ($err)"
run --config "$fix/good.conf" --nccl-version 2.31
expect_rc 2 "--nccl-version malformed"
grep -q "expected X.Y.Z" "$tmp/err" || fail "malformed version: no reason ($err)"
printf '__attribute__((used)) static const char v[] = "NCCL version 2.31.2+cuda13.0";\n' >"$tmp/fake.c"
if cc -shared -fPIC -o "$tmp/libnccl.so.2" "$tmp/fake.c" 2>/dev/null; then
  run --config "$fix/good.conf" --nccl-lib "$tmp/libnccl.so.2"
  expect_rc 0 "--nccl-lib"
  grep -q "release: NCCL 2.31.2, from the version string in $tmp/libnccl.so.2" "$tmp/err" || fail "--nccl-lib: release ($err)"
  # 2.31.2 models Zen 3/4 at 24 GB/s: the served search passes, and is worse than NCCL's own
  grep -q 'modelled CPU link 24 GB/s' "$tmp/err" || fail "--nccl-lib: 2.31.2 link ($err)"
  LD_LIBRARY_PATH="$tmp" run --config "$fix/good.conf"
  grep -q "release: NCCL 2.31.2, from the version string in $tmp/libnccl.so.2" "$tmp/err" \
    || fail "library path: release not from the library exec would run with ($err)"
  run --config "$fix/good.conf" --nccl-lib "$tmp/none.so"
  expect_rc 2 "--nccl-lib missing"
fi
# pcie= on the gpu lines: gen3 x16 on Blackwell fails whatever is served
sed 's/^\(gpu .*\)$/\1 pcie=3x16 sm=120/' "$fix/good.conf" >"$tmp/gen3.conf"
run --config "$tmp/gen3.conf" --nccl-version 2.31.2
expect_rc 0 "pcie=3x16"
grep -q "the mapping's pcie=" "$tmp/err" || fail "pcie=: origin not shown ($err)"
grep -q 'fails whatever file is served' "$tmp/err" || fail "pcie=3x16: search fails regardless not said ($err)"
run --config "$fix/good.conf"
cp "$tmp/out" "$tmp/stdout.xml"

# -o: the same bytes, written atomically, identical on a second run
run --config "$fix/good.conf" -o "$tmp/topo.xml"
expect_rc 0 "-o"
[ -z "$out" ] || fail "-o: stdout not empty"
cmp -s "$tmp/topo.xml" "$tmp/stdout.xml" || fail "-o: file differs from stdout output"
cp "$tmp/topo.xml" "$tmp/first.xml"
run --config "$fix/good.conf" -o "$tmp/topo.xml"
cmp -s "$tmp/topo.xml" "$tmp/first.xml" || fail "-o: second run not byte-identical"
[ "$(ls "$tmp" | grep -c '^topo\.xml\.')" -eq 0 ] || fail "-o: temporary file left behind"
run --config "$fix/good.conf" -o "$tmp/no/such/dir/topo.xml"
expect_rc 1 "-o into a missing directory"
grep -q 'no/such/dir/topo.xml: cannot create a temporary file next to it: No such file or directory' "$tmp/err" ||
  fail "-o missing dir: no reason ($err)"

# the generated file passes its own validation against the mapping
validate "$tmp/topo.xml" 0 --config good.conf
expect_out_line "$tmp/topo.xml: ok, agrees with the mapping (0 warnings)" "round trip"
if [ -f "$root/examples/proxmox-epyc-8gpu.conf" ]; then
  run --config "$root/examples/proxmox-epyc-8gpu.conf" -o "$tmp/ref.xml"
  expect_rc 0 "generate the example"
  validate "$tmp/ref.xml" 0 --config "$root/examples/proxmox-epyc-8gpu.conf"
fi

# NICs: each under its node's cpu; one under the other node is an error, one left out a warning
nics=$root/test/fixtures/config/ref-nics.conf
run --config "$nics" -o "$tmp/nics.xml"
expect_rc 0 "generate ref-nics"
validate "$tmp/nics.xml" 0 --config "$nics"
expect_out_line "$tmp/nics.xml: ok, agrees with the mapping (0 warnings)" "ref-nics round trip"
grep -c 'class="0x020000"' "$tmp/nics.xml" | grep -qx 2 || fail "ref-nics: not two NIC pci elements"
grep -v '<pci busid="0000:09:00.0"' "$tmp/nics.xml" |
  sed 's|<pci busid="0000:01:00.0" class="0x030000"/>|&\n  <pci busid="0000:09:00.0" class="0x020000"/>|' \
  >"$tmp/nics-moved.xml"
validate "$tmp/nics-moved.xml" 1 --config "$nics"
grep -q "NIC 0 (0000:09:00.0) is under numaid 1, but the mapping (line 15) puts it on NUMA node 0" "$tmp/out" "$tmp/err" ||
  fail "a NIC under the other node: not reported ($out $err)"
grep -v '<pci busid="0000:0a:00.0"' "$tmp/nics.xml" >"$tmp/nics-less.xml"
validate "$tmp/nics-less.xml" 0 --config "$nics"
grep -q "warning: NIC 1 (0000:0a:00.0, mapping line 16) is missing" "$tmp/out" "$tmp/err" ||
  fail "a NIC left out: no warning ($out $err)"

# --sysfs-root: affinity from nodeN/cpulist when the mapping has no numa line
mkdir -p "$tmp/sys/sys/devices/system/node/node0"
echo "0-7,64-71" >"$tmp/sys/sys/devices/system/node/node0/cpulist"
grep -v '^numa ' "$fix/good.conf" >"$tmp/nonuma.conf"
run --config "$tmp/nonuma.conf" --sysfs-root "$tmp/sys" --file numa
expect_rc 0 "--sysfs-root"
expect_out_line ' <cpu numaid="0" affinity="000000ff,00000000,000000ff" arch="x86_64" vendor="AuthenticAMD" familyid="25" modelid="17">' "--sysfs-root node0"
expect_out_line ' <cpu numaid="1" arch="x86_64" vendor="AuthenticAMD" familyid="25" modelid="17">' "--sysfs-root node1 without affinity"
grep -q 'NUMA node 1: affinity left out' "$tmp/err" || fail "--sysfs-root: no note about node 1 ($err)"
# the flat file pins nothing rather than node 0's CPUs alone when node 1's are unknown
run --config "$tmp/nonuma.conf" --sysfs-root "$tmp/sys" --file flat
expect_out_line ' <cpu numaid="0" arch="x86_64" vendor="AuthenticAMD" familyid="25" modelid="17">' "flat, node 1 unknown"
grep -q 'the CPUs of some node the GPUs sit on are unknown' "$tmp/err" || fail "flat: no note ($err)"

# the CPU kind from a cpuinfo file when the mapping has no cpu line
grep -v '^cpu ' "$fix/good.conf" >"$tmp/nocpu.conf"
printf 'processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 207\n\n' >"$tmp/cpuinfo"
run --config "$tmp/nocpu.conf" --cpuinfo "$tmp/cpuinfo" --nccl-version 2.28.9
expect_rc 0 "--cpuinfo"
grep -q 'vendor="GenuineIntel" familyid="6" modelid="207">' "$tmp/out" || fail "--cpuinfo: Intel kind not written ($out)"
grep -q 'modelled CPU link 40 GB/s' "$tmp/err" || fail "--cpuinfo: verdict numbers ($err)"

# a bad mapping: FILE:LINE: problem, exit 1, nothing on stdout
printf 'gpu 0 bus=0000:01:00.0 numa=0\nbogus line\n' >"$tmp/bad.conf"
run --config "$tmp/bad.conf"
expect_rc 1 "bad mapping"
grep -q "^$tmp/bad.conf:2: " "$tmp/err" || fail "bad mapping: no FILE:LINE message ($err)"
[ -z "$out" ] || fail "bad mapping: output on stdout"
run --config "$tmp/missing.conf"
expect_rc 1 "missing mapping"
# a mapping without GPUs has no topology
printf 'env NCCL_SOCKET_IFNAME=lo\n' >"$tmp/nogpu.conf"
run --config "$tmp/nogpu.conf"
expect_rc 1 "mapping without GPUs"
grep -q 'no gpu lines' "$tmp/err" || fail "no GPUs: reason ($err)"

# ---- validation of fixtures
validate good.xml 0
validate good.xml 0 --config good.conf
expect_out_line "good.xml: ok, agrees with the mapping (0 warnings)" "good.xml"

validate declaration.xml 1
expect_err_line "declaration.xml:1: XML declaration '<?xml ...?>': NCCL's parser rejects it; remove the line" "declaration"
validate tabs.xml 1
expect_err_line "tabs.xml:2: tab character (column 1): NCCL accepts only space, LF and CR between elements and attributes" "tabs"
validate split-attrs.xml 1
expect_err_line "split-attrs.xml:2: attributes of <cpu> are split over lines: NCCL reads each element from one line" "split"
validate doctype.xml 1
expect_err_line "doctype.xml:1: DOCTYPE: refused (no DTDs or entity declarations in a topology file; NCCL's parser rejects them too)" "doctype"
start=$(date +%s)
validate billion-laughs.xml 1
[ $(( $(date +%s) - start )) -le 5 ] || fail "billion laughs took too long"
expect_err_line "billion-laughs.xml:1: DOCTYPE: refused (no DTDs or entity declarations in a topology file; NCCL's parser rejects them too)" "billion laughs"
grep -q 'lollol' "$tmp/err" && fail "billion laughs: entities were expanded"
validate external-entity.xml 1
expect_err_line "external-entity.xml:1: DOCTYPE: refused (no DTDs or entity declarations in a topology file; NCCL's parser rejects them too)" "external entity"
grep -q 'root:' "$tmp/err" "$tmp/out" && fail "external entity: /etc/passwd leaked"
validate entity-ref.xml 1
expect_err_line "entity-ref.xml:2: value of 'vendor' in <cpu> contains '&' (an entity or character reference): NCCL does not decode entities; write the plain value" "entity ref"
validate spacing.xml 1
expect_err_line "spacing.xml:2: several spaces between attributes of <cpu>: NCCL wants exactly one" "spacing"
expect_err_line "spacing.xml:2: warning: space before the end of <cpu>: NCCL reads it as an empty attribute" "spacing"
expect_err_line "spacing.xml:4: closing tag '</cpu' must end with '>' right after the name (NCCL's parser fails otherwise)" "spacing"
validate wrong-root.xml 1
expect_err_line "wrong-root.xml:1: root element is <topology>: NCCL wants <system version=\"1\">" "wrong root"
validate wrong-version.xml 1
expect_err_line "wrong-version.xml:1: <system version=\"2\">: NCCL wants version=\"1\"" "wrong version"
validate not-wellformed.xml 1
grep -q '^not-wellformed.xml:[0-9]*: not well-formed XML: ' "$tmp/err" || fail "not well-formed: message ($err)"
validate mixed-kinds.xml 1
expect_err_line "mixed-kinds.xml:5: cpu numaid=1 differs from the cpu at line 2 (modelid '143' vs '207'): every cpu must carry the same arch, vendor, familyid and modelid" "mixed kinds"

validate bad-cpu.xml 1
expect_err_line "bad-cpu.xml:2: cpu without numaid (NCCL requires it)" "bad cpu"
expect_err_line "bad-cpu.xml:4: cpu numaid=1: affinity 'ffff' is not a sysfs cpumap (comma-separated words of 8 hex digits, most significant first)" "bad cpu"
expect_err_line "bad-cpu.xml:6: numaid 1 is already used by the cpu at line 4: each cpu needs its own" "bad cpu"
expect_err_line "bad-cpu.xml:6: cpu numaid=1: arch 'aarch64' is unknown to NCCL (x86_64, arm64 or ppc64)" "bad cpu"
expect_err_line "bad-cpu.xml:8: cpu numaid=2: vendor 'HygonGenuine' is unknown to NCCL, which then models the link between CPUs as free (AuthenticAMD or GenuineIntel)" "bad cpu"
expect_err_line "bad-cpu.xml:10: cpu numaid=3: GenuineIntel needs familyid and modelid (NCCL's model of the link between CPUs depends on them)" "bad cpu"
expect_err_line "bad-cpu.xml:12: cpu numaid=4 has no vendor (AuthenticAMD or GenuineIntel)" "bad cpu"
expect_err_line "bad-cpu.xml:14: numaid 'five' is not a non-negative integer" "bad cpu"
expect_err_line "bad-cpu.xml: invalid (12 errors, 1 warning)" "bad cpu count"

validate bad-pci.xml 1
expect_err_line "bad-pci.xml:3: busid '0000:C1:00.0' is not dddd:bb:dd.f (4-digit domain, lowercase hex, device <= 1f, function <= 7): NCCL compares bus ids as strings" "bad pci uppercase"
expect_err_line "bad-pci.xml:4: busid '00:c2:00.0' is not dddd:bb:dd.f (4-digit domain, lowercase hex, device <= 1f, function <= 7): NCCL compares bus ids as strings" "bad pci domain"
expect_err_line "bad-pci.xml:5: pci 0000:c3:00.0 is a GPU (it holds a gpu element) but its class is '0x020000': a GPU needs 0x03xxxx" "bad pci class"
expect_err_line "bad-pci.xml:6: warning: gpu element: its values (dev, gdr, ...) override NCCL's own detection; leave gpu elements out" "gpu element"
expect_err_line "bad-pci.xml:8: pci 0000:c4:00.0: link_speed '32 GT/s PCIe Gen5' is not one NCCL knows (e.g. \"16.0 GT/s PCIe\", \"32.0 GT/s PCIe\", \"64.0 GT/s PCIe\")" "link_speed"
expect_err_line "bad-pci.xml:8: pci 0000:c4:00.0: link_width 'x16' is not a lane count (an integer 0-32)" "link_width"
expect_err_line "bad-pci.xml:9: pci 0000:c5:00.0 has no class (NCCL requires it)" "no class"
expect_err_line "bad-pci.xml:10: busid 0000:c5:00.0 already appears at line 9" "duplicate busid"
expect_err_line "bad-pci.xml:11: busid '0000:c6:20.0' is not dddd:bb:dd.f (4-digit domain, lowercase hex, device <= 1f, function <= 7): NCCL compares bus ids as strings" "device > 1f"

validate mismatch.xml 1 --config good.conf
expect_err_line "mismatch.xml:1: GPU 3 (0000:c2:00.0, mapping line 8) is missing" "mismatch missing"
expect_err_line "mismatch.xml:4: GPU 0 (0000:41:00.0) is under numaid 0, but the mapping (line 5) puts it on NUMA node 1" "mismatch numaid"
expect_err_line "mismatch.xml:8: GPU 0000:99:00.0 is not in the mapping" "mismatch extra"
validate mismatch.xml 0   # without a mapping the file itself is fine

# ---- hostile or odd inputs made at run time
head -c $((10 * 1024 * 1024)) /dev/zero | tr '\0' ' ' >"$tmp/big.xml"
run --validate "$tmp/big.xml"
expect_rc 1 "10 MB file"
expect_err_line "$tmp/big.xml: file is 10485760 bytes, over the 1 MiB limit: refused" "10 MB file"
run --validate "$tmp/nonexistent.xml"
expect_rc 1 "missing file"
grep -q "^$tmp/nonexistent.xml: cannot open: " "$tmp/err" || fail "missing file: message ($err)"
mkfifo "$tmp/fifo.xml"
run --validate "$tmp/fifo.xml"
expect_rc 1 "FIFO"
expect_err_line "$tmp/fifo.xml: cannot open: a FIFO, not a regular file: refused" "FIFO"
run --validate "$tmp"
expect_rc 1 "directory"
: >"$tmp/empty.xml"
run --validate "$tmp/empty.xml"
expect_rc 1 "empty file"
printf '<system version="1">\0</system>\n' >"$tmp/nul.xml"
run --validate "$tmp/nul.xml"
expect_rc 1 "NUL byte"
expect_err_line "$tmp/nul.xml:1: NUL byte: not a text file" "NUL byte"

{ echo '<system version="1">'
  echo ' <cpu numaid="0" affinity="0000ffff" arch="x86_64" vendor="AuthenticAMD" familyid="25" modelid="17">'
  for i in $(seq 0 128); do printf '  <pci busid="0001:%02x:00.0" class="0x030000"/>\n' $((i % 256)); done
  echo ' </cpu>'
  echo '</system>'; } >"$tmp/wide.xml"
run --validate "$tmp/wide.xml"
expect_rc 1 "129 children"
expect_err_line "$tmp/wide.xml:2: <cpu> has 129 child elements: NCCL reads at most 128" "129 children"

attrs=$(for i in $(seq 1 13); do printf ' x%d="1"' "$i"; done)
long=$(head -c 300 /dev/zero | tr '\0' 'f')
{ echo '<system version="1">'
  echo " <cpu numaid=\"0\" affinity=\"0000ffff\" arch=\"x86_64\" vendor=\"AuthenticAMD\"$attrs>"
  echo "  <pci busid=\"0000:01:00.0\" class=\"0x030000\" note=\"$long\"/>"
  echo ' </cpu>'
  echo '</system>'; } >"$tmp/limits.xml"
run --validate "$tmp/limits.xml"
expect_rc 1 "limits"
expect_err_line "$tmp/limits.xml:2: <cpu> has 17 attributes: NCCL reads at most 16" "17 attributes"
expect_err_line "$tmp/limits.xml:3: value of 'note' in <pci> has 300 characters: NCCL reads at most 253" "long value"

# a mapping error during --validate --config
run --validate "$fix/good.xml" --config "$tmp/bad.conf"
expect_rc 1 "--validate with a bad mapping"
grep -q "^$tmp/bad.conf:2: " "$tmp/err" || fail "--validate bad mapping: no FILE:LINE ($err)"

nn_finish "all topo CLI checks passed" "failure(s)"
