#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A run directory is shared between people: `report` and `calibrate --from` treat it
# as hostile input. Each attack below was reproduced on the unhardened code: gnuplot
# code in meta's host name ran, a collective named /../../../X wrote files above the
# run directory, a planted report.md link overwrote its target, and a FIFO hung both
# commands. Every command runs under `timeout` so a hang fails instead of blocking.
. "$(dirname "$0")/helpers/lib.sh"
nn_build_cli
nn_tmp nn-hostile
T=$tmp
L=10   # seconds before a hang counts as a failure

out_file() {   # out_file PATH T8 T64: a synthetic nccl-tests output
  cat >"$1" <<EOF
# SYNTHETIC output written by test_rundir_hostile.sh
# nccl-tests version 2.17.6 nccl-headers=22809 nccl-library=22809
#  Rank  0 Group  0 Pid 1 on h device  0 [0000:01:00] SYNTH GPU
#  Rank  1 Group  0 Pid 1 on h device  1 [0000:02:00] SYNTH GPU
#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong
           8             2     float     sum      -1  $2    0.00    0.00       0  $2    0.00    0.00       0
          64            16     float     sum      -1  $3    0.00    0.00       0  $3    0.00    0.00       0
EOF
}

# mkrun DIR [HOST]: a good run directory of two forced arms, two repeats, all_reduce.
mkrun() {
  rm -rf "$1"
  mkdir -p "$1/runs"
  printf 'format 1\nkind calibrate\nhost %s\ngpus 2\nsizes -b 8 -e 64 -f 8\niters 20\nwarmup 5\nrepeats 2\n' \
    "${2:-h}" >"$1/meta"
  printf 'arm ring.ll kind=forced algo=ring proto=ll\narm ring.simple kind=forced algo=ring proto=simple\n' >>"$1/meta"
  : >"$1/runs.tsv"
  local i=0 r a
  for r in 1 2; do
    for a in ring.ll ring.simple; do
      i=$((i + 1))
      printf '%d\t%d\t%s\tall_reduce\t0\t1\truns/%d.out\truns/%d.env\n' $i $r $a $i $i >>"$1/runs.tsv"
      if [ $a = ring.ll ]; then out_file "$1/runs/$i.out" 10.0$r 30.0$r; else out_file "$1/runs/$i.out" 20.0$r 20.0$r; fi
    done
  done
}

nn_cli
R=$T/top/a/b/run
mkdir -p "$T/top/a/b"
mkrun "$R"
nn_run $L report --no-plot "$R"
expect_rc 0 "a good run directory"
check "baseline: the good run directory is reported" "grep -q '## all_reduce' '$R/report.md'"

# --- 1. gnuplot code in meta's host name is a string, never run
mkrun "$R" "vm'; system 'id > $T/pwned'; print '"
nn_run $L report "$R"
expect_rc 0 "report with a hostile host name"
check "host name: gnuplot ran nothing" "[ ! -e '$T/pwned' ]"
check "host name: the title is one quoted gnuplot string" \
  "grep -qF \"set title 'all_reduce: time vs size (vm''; system ''id > $T/pwned''; print '')' noenhanced\" '$R/plot-all_reduce.gp'"
if command -v gnuplot >/dev/null; then
  check "host name: the plots were still drawn" "[ -s '$R/plot-all_reduce.png' ] && grep -q '<svg' '$R/plot-all_reduce.svg'"
  (cd "$R" && timeout $L gnuplot plot-all_reduce.gp >/dev/null 2>&1)
  check "host name: running the kept script by hand runs nothing either" "[ ! -e '$T/pwned' ]"
else
  echo "note: gnuplot missing: the script was checked, not run"
fi

# --- terminal escapes in meta's free text never reach the terminal or report.md
mkrun "$R" "$(printf 'vm\033]0;pwned\007\033[2J')"
nn_run $L report --no-plot "$R"
expect_rc 0 "report with escape sequences in the host name"
check "escape sequences: none printed, none in report.md" \
  "! grep -q \$'\\033' '$tmp/out' && ! grep -q \$'\\033' '$R/report.md' && grep -qF 'vm?]0;pwned??[2J' '$R/report.md'"

# C1 controls (U+009B is CSI to a UTF-8 terminal, 0x9b to an 8-bit one) and backquotes are
# escaped too (the report's own UTF-8, such as its ± columns, is not the input's); a CR ends
# meta's line.
mkrun "$R" "$(printf 'vm \302\2332J \2331J `x`')"
nn_run $L report --no-plot "$R"
expect_rc 0 "report with C1 controls in the host name"
check "C1 controls: none printed, none in report.md, shown escaped" \
  "! LC_ALL=C grep -q \$'\x9b' '$tmp/out' '$R/report.md' && grep -qF 'Machine: vm \\xc2\\x9b2J \\x9b1J \\x60x\\x60 (' '$R/report.md'"

# --- 2. names outside letters, digits, _ . - are refused, naming the line
mkrun "$R"
sed -i "s/^arm ring.ll /arm ring'll /" "$R/meta"
nn_run $L report --no-plot "$R"
expect_rc 1 "arm name with a quote"
expect_err_has "arm name with a quote: meta line named" "$R/meta:9: bad line"
mkrun "$R"
sed -i '1s|all_reduce|/../../../X|' "$R/runs.tsv"
nn_run $L report "$R"
expect_rc 1 "collective /../../../X"
expect_err_has "collective /../../../X: runs.tsv line named" "$R/runs.tsv:1: malformed run record"
check "collective /../../../X: nothing written above the run directory" \
  "[ -z \"\$(find '$T/top' -name 'X*' -o -name '*X.dat' -o -name '*X.gp')\" ]"
nn_run $L calibrate --from "$R"
expect_rc 1 "calibrate --from: collective /../../../X"
for bad in '../../x.out' 'runs/../../x.out' '/etc/passwd' 'runs//1.out'; do
  mkrun "$R"
  awk -v p="$bad" 'BEGIN{FS=OFS="\t"} NR==1{$7=p} 1' "$R/runs.tsv" >"$T/tsv" && cp "$T/tsv" "$R/runs.tsv"
  nn_run $L report --no-plot "$R"
  expect_rc 1 "output file $bad refused"
done

# --- 3. outputs replace a planted link, never write through it
for f in report.md plot-all_reduce.dat plot-all_reduce.gp plot-all_reduce.png plot-all_reduce.svg \
         plot-all_reduce-ratio.png plot-all_reduce-ratio.svg; do
  mkrun "$R"
  echo precious >"$T/victim"
  ln -s "$T/victim" "$R/$f"
  nn_run $L report "$R"
  expect_rc 0 "planted link $f"
  check "planted link $f: its target is untouched" "[ \"\$(cat '$T/victim')\" = precious ]"
  if [ $f = report.md ] || [ $f = plot-all_reduce.dat ] || [ $f = plot-all_reduce.gp ] || command -v gnuplot >/dev/null; then
    check "planted link $f: replaced by a regular file" "[ -f '$R/$f' ] && [ ! -L '$R/$f' ]"
  fi
done
check "no staging directory left behind" "[ -z \"\$(find '$R' -maxdepth 1 -name '.report-*')\" ]"

# --- 4. FIFOs, devices, links and oversized files: refused, exit 1, no hang
hostile() {   # hostile WHAT FILE SETUP...: each of report and calibrate --from refuses it
  local what=$1 file=$2 msg=$3
  shift 3
  for cmd in "report --no-plot" "calibrate --from"; do
    mkrun "$R"
    rm -f "$R/$file"
    "$@"
    # shellcheck disable=SC2086
    nn_run $L $cmd "$R"
    if [ "$rc" -eq 124 ]; then fail "$cmd: $what $file: hung (killed after $L s)"; continue; fi
    expect_rc 1 "$cmd: $what $file"
    expect_err_has "$cmd: $what $file: said why" "$msg"
  done
}
hostile "a FIFO as" meta "a FIFO, not a regular file" mkfifo "$R/meta"
hostile "a FIFO as" runs.tsv "a FIFO, not a regular file" mkfifo "$R/runs.tsv"
hostile "a FIFO as" runs/1.out "a FIFO, not a regular file" mkfifo "$R/runs/1.out"
hostile "a link to /dev/zero as" runs/1.out "symbolic link" ln -s /dev/zero "$R/runs/1.out"
hostile "a link to /dev/zero as" meta "symbolic link" ln -s /dev/zero "$R/meta"
hostile "an oversized" runs/1.out "over the 64 MiB limit" truncate -s 65M "$R/runs/1.out"
hostile "an oversized" meta "over the 1 MiB limit" truncate -s 2M "$R/meta"
if mknod "$T/zero" c 1 5 2>/dev/null; then
  hostile "a character device as" runs/1.out "a character device, not a regular file" mknod "$R/runs/1.out" c 1 5
else
  echo "note: mknod not permitted here: the device node case was not run"
fi
mkrun "$R"
mkfifo "$R/launch"   # optional (ab --launcher writes it): a FIFO is ignored, never waited on
nn_run $L calibrate --from "$R"
check "calibrate --from: a FIFO as launch: no hang" "[ $rc -ne 124 ]"
mkrun "$R"
mv "$R/runs" "$T/elsewhere" && ln -s "$T/elsewhere" "$R/runs"
nn_run $L report --no-plot "$R"
expect_rc 1 "runs/ a link out of the run directory"
expect_err_has "runs/ a link: said why" "symbolic link or not a directory"

# --- a missing output is a failed run, not a refusal
mkrun "$R"
rm "$R/runs/1.out"
nn_run $L report --no-plot "$R"
expect_rc 0 "a missing runs/1.out"
check "a missing runs/1.out: counted as a failed run" "grep -q '1 run(s) failed' '$R/report.md'"

nn_finish "all hostile run directory checks passed"
