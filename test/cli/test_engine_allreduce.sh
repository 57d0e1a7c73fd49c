#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# exec --bind-for sglang|vllm and env --engine: the engine's PCIe all-reduce variable is set
# only where the mapping's p2p line is ok with its cross-process test passed on the job's GPUs
# (and the running driver), the TP is 2, 4 or 8, and the installed engine reads the variable and
# FlashInfer has the kernels; else one line says why. The installed environments are fake: a venv
# of dist-info METADATA and source files only, whose python3 leaves a mark if anything ran it.
. "$(dirname "$0")/helpers/lib.sh"
nn_build_cli
nn_tmp nn-engine-ar
T=$tmp
unset NCCL_TUNER_PLUGIN NCCL_ENV_PLUGIN NCCL_NUMA_CONFIG NCCL_TOPO_FILE CUDA_VISIBLE_DEVICES NCCL_NUMA_PYTHON \
  VIRTUAL_ENV SGLANG_ENABLE_PCIE_IPC_ALLREDUCE VLLM_ALLREDUCE_USE_FLASHINFER_PCIE_IPC SGLANG_SKIP_P2P_CHECK

# venv NAME ENGINE-DIST ENGINE-VERSION ENGINE-FILE ENGINE-TEXT FI-VERSION FI-TEXT: a fake venv
venv() {
  local v=$T/$1 site=$T/$1/lib/python3.12/site-packages
  mkdir -p "$v/bin" "$site/$2-$3.dist-info" "$(dirname "$site/$4")"
  printf '#!/bin/sh\n: >"%s/ran"\nexit 1\n' "$T" >"$v/bin/python3" && chmod 0755 "$v/bin/python3"
  printf 'home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.12.3\n' >"$v/pyvenv.cfg"
  printf 'Metadata-Version: 2.1\nName: %s\nVersion: %s\n' "$2" "$3" >"$site/$2-$3.dist-info/METADATA"
  printf '%s\n' "$5" >"$site/$4"
  if [ -n "$6" ]; then
    mkdir -p "$site/flashinfer_python-$6.dist-info" "$site/flashinfer/comm"
    printf 'Metadata-Version: 2.1\nName: flashinfer-python\nVersion: %s\n' "$6" >"$site/flashinfer_python-$6.dist-info/METADATA"
    printf 'import torch\n%s\n' "$7" >"$site/flashinfer/comm/allreduce.py"
  fi
}
kernels='class PcieIpcAllReduceWorkspace:
    """Shared workspace for the PCIe IPC all-reduce."""'
no_kernels='class TrtllmAllReduceWorkspace:
    pass'
sg_reads='class Envs:
    SGLANG_ENABLE_PCIE_IPC_ALLREDUCE = EnvBool(False)'
vl_reads='environment_variables = {
    "VLLM_ALLREDUCE_USE_FLASHINFER_PCIE_IPC": lambda: bool(int(os.getenv("VLLM_ALLREDUCE_USE_FLASHINFER_PCIE_IPC", "0"))),
}'
venv sg-kernels sglang 0.5.24 sglang/srt/environ.py "$sg_reads" 0.7.0 "$kernels"
venv sg-old sglang 0.5.21 sglang/srt/environ.py 'class Envs:
    SGLANG_ENABLE_TORCH_COMPILE = EnvBool(False)' 0.6.18 "$no_kernels"
venv sg-nofi sglang 0.5.24 sglang/srt/environ.py "$sg_reads" 0.6.18 "$no_kernels"
venv vl-kernels vllm 0.30.0 vllm/envs.py "$vl_reads" 0.7.0 "$kernels"
venv vl-nofi vllm 0.30.0 vllm/envs.py "$vl_reads" 0.6.18 "$no_kernels"

# the running driver and a GPU list the driver shows (none: the mapping's GPUs)
mkdir -p "$T/root/proc/driver/nvidia"
printf 'NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build  (dvs-builder@U16-I2)\n' \
  >"$T/root/proc/driver/nvidia/version"
export NCCL_NUMA_DRIVER_ROOT=$T/root
gpus='numa 0 cpus=0-1
numa 1 cpus=2-3
gpu 0 bus=11:00.0 numa=0
gpu 1 bus=12:00.0 numa=0
gpu 2 bus=13:00.0 numa=0
gpu 3 bus=14:00.0 numa=0
gpu 4 bus=15:00.0 numa=1
gpu 5 bus=16:00.0 numa=1
gpu 6 bus=17:00.0 numa=1
gpu 7 bus=18:00.0 numa=1'
printf '%s\np2p ok level=SYS gpus=0-7 driver=580.95.05 xproc=ok tested=2026-12-06\n' "$gpus" >"$T/ok.conf"
printf '%s\n' "$gpus" >"$T/none.conf"
printf '%s\np2p ok level=PHB gpus=0-3 driver=580.95.05 xproc=ok\n' "$gpus" >"$T/half.conf"
printf '%s\np2p ok level=SYS gpus=0-7 driver=580.95.05\n' "$gpus" >"$T/xnone.conf"

# run VENV CONF ENGINE [exec options...]: exec in that venv, printing what the engine would see
run() {
  local v=$1 conf=$2 engine=$3
  shift 3
  rm -f "$T/ran"
  VIRTUAL_ENV=$T/$v "$CLI" exec --config "$T/$conf" --bind-for "$engine" "$@" -- \
    sh -c 'echo "SG=${SGLANG_ENABLE_PCIE_IPC_ALLREDUCE-unset} VL=${VLLM_ALLREDUCE_USE_FLASHINFER_PCIE_IPC-unset} SKIP=${SGLANG_SKIP_P2P_CHECK-unset}"' x \
    >"$T/out" 2>"$T/err"
  rc=$?
  out=$(cat "$T/out")
  line=$(grep 'PCIE_IPC' "$T/err")
  echo "    $v $conf $engine: $line"
}
never_ran() { [ ! -e "$T/ran" ]; }

CUDA_VISIBLE_DEVICES=0,1,2,3 run sg-kernels ok.conf sglang
check "sglang with the kernels, TP=4 on tested GPUs: set" "[ $rc -eq 0 ] && [ \"\$out\" = 'SG=1 VL=unset SKIP=unset' ]"
check "sglang: one line says what it rests on" \
  "grep -q '^nccl-numa exec: --bind-for sglang: SGLANG_ENABLE_PCIE_IPC_ALLREDUCE=1 set: p2p ok with the cross-process test passed (mapping line 11) covers GPUs 0,1,2,3, TP=4, SGLang 0.5.24 reads it (.*/sglang/srt/environ.py) and FlashInfer 0.7.0 has the kernels (.*/flashinfer/comm/allreduce.py)$' '$T/err'"
check "sglang: the venv's python3 never ran" never_ran
CUDA_VISIBLE_DEVICES=0,1,2,3 run sg-old ok.conf sglang
check "sglang 0.5.21 (no such variable): not set, why" "[ \"\$out\" = 'SG=unset VL=unset SKIP=unset' ] && grep -q 'SGLANG_ENABLE_PCIE_IPC_ALLREDUCE not set: SGLang 0.5.21 in the Python environment of $T/sg-old/bin/python3 does not read SGLANG_ENABLE_PCIE_IPC_ALLREDUCE' '$T/err'"
CUDA_VISIBLE_DEVICES=0,1,2,3 run sg-nofi ok.conf sglang
check "sglang without FlashInfer's kernels: not set, why" "[ \"\$out\" = 'SG=unset VL=unset SKIP=unset' ] && grep -q 'not set: FlashInfer 0.6.18 in .* lacks the PCIe all-reduce kernels' '$T/err'"
CUDA_VISIBLE_DEVICES=4,5,6,7 run vl-kernels ok.conf vllm
check "vllm with the kernels: set" "[ \"\$out\" = 'SG=unset VL=1 SKIP=unset' ] && grep -q 'VLLM_ALLREDUCE_USE_FLASHINFER_PCIE_IPC=1 set: .*covers GPUs 4,5,6,7, TP=4, vLLM 0.30.0 reads it (.*/vllm/envs.py)' '$T/err'"
check "vllm: python never ran" never_ran
CUDA_VISIBLE_DEVICES=4,5,6,7 run vl-nofi ok.conf vllm
check "vllm without FlashInfer's kernels (it would fall back to NCCL silently): not set, why" \
  "[ \"\$out\" = 'SG=unset VL=unset SKIP=unset' ] && grep -q 'VLLM_ALLREDUCE_USE_FLASHINFER_PCIE_IPC not set: FlashInfer 0.6.18 .* lacks the PCIe all-reduce kernels' '$T/err'"
run sg-kernels ok.conf sglang
check "all 8 GPUs (CUDA_VISIBLE_DEVICES unset): TP=8, set" "[ \"\$out\" = 'SG=1 VL=unset SKIP=unset' ] && grep -q 'covers GPUs 0,1,2,3,4,5,6,7, TP=8' '$T/err'"

# the p2p line: none, not covering the job, cross-process test failed
CUDA_VISIBLE_DEVICES=0,1,2,3 run sg-kernels none.conf sglang
check "no p2p line: not set, why" "[ \"\$out\" = 'SG=unset VL=unset SKIP=unset' ] && grep -q 'not set: the mapping has no p2p line' '$T/err'"
CUDA_VISIBLE_DEVICES=2,3,4,5 run vl-kernels half.conf vllm
check "a p2p line tested on GPUs 0-3 and a job on 2-5: not set, why" \
  "[ \"\$out\" = 'SG=unset VL=unset SKIP=unset' ] && grep -q 'not set: the mapping.s p2p line (line 11) tested GPUs 0-3, not all of the job.s (2,3,4,5)' '$T/err'"
CUDA_VISIBLE_DEVICES=0,1,2,3 run sg-kernels half.conf sglang
check "the same line, the job on 0-3: set" "[ \"\$out\" = 'SG=1 VL=unset SKIP=unset' ]"
CUDA_VISIBLE_DEVICES=0,1,2,3 run sg-kernels xnone.conf sglang
check "no cross-process test recorded (no xproc=): not set, why" "[ \"\$out\" = 'SG=unset VL=unset SKIP=unset' ] && grep -q 'records no passed cross-process test' '$T/err'"
sed -i 's/driver=580.95.05/driver=570.86.15/' "$T/half.conf"
CUDA_VISIBLE_DEVICES=0,1,2,3 run sg-kernels half.conf sglang
check "tested under another driver: not set, why" "[ \"\$out\" = 'SG=unset VL=unset SKIP=unset' ] && grep -q 'is not served to this job: ' '$T/err'"

# TP the kernel does not take
CUDA_VISIBLE_DEVICES=0,1,2 run sg-kernels ok.conf sglang
check "TP=3: not set, why" "[ \"\$out\" = 'SG=unset VL=unset SKIP=unset' ] && grep -q 'not set: TP=3: FlashInfer.s PCIe all-reduce takes 2, 4 or 8 GPUs' '$T/err'"
rm -f "$T/ran"
CUDA_VISIBLE_DEVICES=0,1,2,3 VIRTUAL_ENV=$T/sg-kernels "$CLI" exec --config "$T/ok.conf" --bind-for sglang -- \
  sh -c 'echo "SG=${SGLANG_ENABLE_PCIE_IPC_ALLREDUCE-unset}"' x --tp-size 2 >"$T/out" 2>"$T/err"
check "the command's --tp-size 2 on 4 GPUs: TP=2, set" "[ \"\$(cat '$T/out')\" = 'SG=1' ] && grep -q 'TP=2, SGLang' '$T/err'"
CUDA_VISIBLE_DEVICES=0,1,2,3 VIRTUAL_ENV=$T/vl-kernels "$CLI" exec --config "$T/ok.conf" --bind-for vllm -- \
  sh -c 'echo "VL=${VLLM_ALLREDUCE_USE_FLASHINFER_PCIE_IPC-unset}"' x serve m -tp=3 >"$T/out" 2>"$T/err"
check "the command's -tp=3: not set" "[ \"\$(cat '$T/out')\" = 'VL=unset' ] && grep -q 'TP=3' '$T/err'"

# the user's value wins; the option turns the hand-off off; SGLang's own P2P check untouched
CUDA_VISIBLE_DEVICES=0,1,2,3 SGLANG_ENABLE_PCIE_IPC_ALLREDUCE=0 SGLANG_SKIP_P2P_CHECK=0 run sg-kernels ok.conf sglang
check "the user's SGLANG_ENABLE_PCIE_IPC_ALLREDUCE=0 wins, SGLANG_SKIP_P2P_CHECK as given" \
  "[ \"\$out\" = 'SG=0 VL=unset SKIP=0' ] && grep -q 'SGLANG_ENABLE_PCIE_IPC_ALLREDUCE=0 is set in the environment: the user.s value wins' '$T/err'"
CUDA_VISIBLE_DEVICES=0,1,2,3 run sg-kernels ok.conf sglang --no-engine-allreduce
check "--no-engine-allreduce: not set, said" "[ \"\$out\" = 'SG=unset VL=unset SKIP=unset' ] && grep -q 'SGLANG_ENABLE_PCIE_IPC_ALLREDUCE not set: --no-engine-allreduce' '$T/err'"

# python3 on PATH (no VIRTUAL_ENV): the same files, found through its pyvenv.cfg, never run
rm -f "$T/ran"
CUDA_VISIBLE_DEVICES=0,1,2,3 PATH=$T/vl-kernels/bin:$PATH "$CLI" env --config "$T/ok.conf" --engine vllm >"$T/out" 2>"$T/err"
check "env --engine vllm (python3 on PATH): the export line" "grep -qx 'export VLLM_ALLREDUCE_USE_FLASHINFER_PCIE_IPC=1' '$T/out'"
check "env: stderr says why" "grep -q '^nccl-numa env: --engine vllm: VLLM_ALLREDUCE_USE_FLASHINFER_PCIE_IPC=1 set: ' '$T/err'"
check "env: python3 on PATH never ran" never_ran
CUDA_VISIBLE_DEVICES=0,1,2 PATH=$T/vl-kernels/bin:$PATH "$CLI" env --config "$T/ok.conf" --engine vllm >"$T/out" 2>"$T/err"
check "env --engine, TP=3: no export line, why" "! grep -q PCIE_IPC '$T/out' && grep -q 'not set: TP=3' '$T/err'"
"$CLI" env --config "$T/ok.conf" >"$T/out" 2>"$T/err"
check "env without --engine: nothing of the engine" "! grep -q PCIE_IPC '$T/out' '$T/err'"
never_ran
check "no python3 ran in any case" never_ran
nn_finish "passed: the engines' PCIe all-reduce handed over only where tested and installed"
