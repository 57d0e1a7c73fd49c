# SPDX-License-Identifier: BSD-3-Clause
# lib.sh - the prologue and helpers the CLI shell tests (test/cli/test_*.sh) share.
#
# Source it first:  . "$(dirname "$0")/helpers/lib.sh"
# It sets -u, $root (the repository root, absolute) and fails=0 (the count of
# failed checks). A test exits 0 when it passes, 77 when skipped (after a line
# "skipped: reason", see nn_skip), anything else when it fails (nn_finish).
# Variables honoured: NCCL_NUMA_BIN (nn_cli), NN_BUILD (nn_build_cli), KEEP
# (nn_tmp keeps the temporary directory for a look after the run).

set -u
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
fails=0
# build_dir: the build directory under test, absolute ($NN_BUILD, default build, is relative to
# the root unless it is absolute itself: `make check BUILD=/tmp/out` works too)
case ${NN_BUILD:-build} in /*) build_dir=$NN_BUILD ;; *) build_dir=$root/${NN_BUILD:-build} ;; esac

# Predictions of NCCL's own view depend on the CPU kind NCCL reads. The expected outputs
# are an Intel host's: the command reads this file instead of the host's /proc/cpuinfo, so
# a test gives the same result on any machine (test_cpu_kind.sh proves it under both).
export NCCL_NUMA_CPUINFO="$root/test/fixtures/cpuinfo/intel-emerald-rapids"
# explain, check and the plugin judge the GPUs CUDA_VISIBLE_DEVICES leaves: the tests set it
# where they mean to, never inherit it from the machine.
unset CUDA_VISIBLE_DEVICES
# ... and so the GPUs the NVIDIA driver shows this machine (/proc/driver/nvidia/gpus): a root
# without that directory, so the tests' made-up mappings are judged whole on a GPU host too.
export NCCL_NUMA_DRIVER_ROOT="$root/test/fixtures/driver/none"

# ---- the program under test ----

# nn_need_built PATH: fails the test (exit 1) when PATH is not an executable.
nn_need_built() {
  [ -x "$1" ] || { echo "FAIL: $1 not built (run make first)"; exit 1; }
}

# nn_cli [abs]: $cli, the CLI under test: $NCCL_NUMA_BIN, else $NN_BUILD/nccl-numa (build/).
# "abs" makes it absolute, for tests that run it from other directories.
nn_cli() {
  cli=${NCCL_NUMA_BIN:-$build_dir/nccl-numa}
  nn_need_built "$cli"
  [ "${1:-}" != abs ] || cli=$(cd "$(dirname "$cli")" && pwd)/$(basename "$cli")
}

# nn_build_cli: cd to the repository root, $CLI and $SO the CLI and the plugin
# of the build directory $NN_BUILD (default build), relative to the root.
nn_build_cli() {
  cd "$root" || exit 1
  CLI=${NN_BUILD:-build}/nccl-numa
  SO=${NN_BUILD:-build}/libnccl-tuner-numa.so
  nn_need_built "$CLI"
}

# ---- temporary files ----

# nn_tmp [NAME]: $tmp, a fresh directory (/tmp/NAME-XXXXXX when NAME is given)
# removed when the test exits, unless KEEP is set.
nn_tmp() {
  tmp=$(mktemp -d ${1:+"/tmp/$1-XXXXXX"})
  trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
}

# nn_sysfs_tree DIR < SPEC: a fake sysfs tree built by sysfs_fixture.py.
nn_sysfs_tree() {
  rm -rf "$1"
  python3 "$root/test/cli/helpers/sysfs_fixture.py" "$1" || fail "sysfs fixture $1"
}

# ---- another user ----

# nn_need_nobody: skips the test unless it runs as root with setpriv, which `nobody` needs.
nn_need_nobody() {
  [ "$(id -u)" -eq 0 ] || nn_skip "the attacks need root and a second user (uid 65534)"
  command -v setpriv >/dev/null || nn_skip "setpriv not installed"
}

# nobody CMD...: runs CMD as uid 65534 (gid 65534, no other groups): the hostile user.
nobody() { setpriv --reuid 65534 --regid 65534 --clear-groups "$@"; }

# ---- verdicts ----

# nn_skip REASON...: the test is skipped (exit 77).
nn_skip() { echo "skipped: $*"; exit 77; }

# fail MESSAGE...: one failed check.
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# check NAME EXPR: evaluates EXPR; "ok   NAME" when true, else a failed check.
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fails=$((fails + 1)); fi; }

# nn_finish PASSED [FAILED]: prints PASSED and exits 0 when no check failed,
# else prints "<count> FAILED" (default "check(s) failed") and exits 1.
nn_finish() {
  if [ "$fails" -eq 0 ]; then
    echo "$1"
    exit 0
  fi
  echo "$fails ${2:-check(s) failed}"
  exit 1
}

# ---- running the CLI: $rc, $out, $err; stdout in $tmp/out, stderr in $tmp/err ----

# nn_run SECONDS ARGS...: runs "$cli ARGS..." with a time limit.
nn_run() {
  local limit=$1
  shift
  timeout "$limit" "$cli" "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  out=$(cat "$tmp/out")
  err=$(cat "$tmp/err")
}

# expect NAME WANT_RC WANT_STDOUT: the exit code and the whole of stdout.
expect() {
  if [ "$rc" -ne "$2" ]; then fail "$1: exit $rc, wanted $2 (stderr: $err)"; return; fi
  if [ "$out" != "$3" ]; then fail "$1: stdout differs"; diff <(echo "$3") <(echo "$out"); return; fi
  echo "ok $1"
}

# expect_rc WANT WHAT: the exit code only.
expect_rc() {
  [ "$rc" -eq "$1" ] || fail "$2: exit $rc, wanted $1 (stdout: $out; stderr: $err)"
}

# expect_err_has NAME TEXT: stderr contains TEXT.
expect_err_has() {
  if grep -qF -- "$2" "$tmp/err"; then echo "ok $1"; else fail "$1: stderr lacks '$2' (got: $err)"; fi
}

# expect_err_is NAME TEXT: stderr is exactly TEXT.
expect_err_is() {
  if [ "$err" = "$2" ]; then echo "ok $1"; else fail "$1: stderr differs"; diff <(echo "$2") <(echo "$err"); fi
}

# expect_err_line TEXT WHAT: TEXT is one whole line of stderr.
expect_err_line() {
  grep -qxF -- "$1" "$tmp/err" || fail "$2: stderr lacks the line '$1' (got: $err)"
}

# expect_out_line TEXT WHAT: TEXT is one whole line of stdout.
expect_out_line() {
  grep -qxF -- "$1" "$tmp/out" || fail "$2: stdout lacks the line '$1' (got: $out)"
}
