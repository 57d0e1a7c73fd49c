#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# docs/examples/k8s-*.yaml and the yaml blocks of docs/user/kubernetes.md: parsed with PyYAML
# (helpers/k8s_yaml.py) and held against the code: non-root pods given GPUs by the NVIDIA
# device plugin, every NCCL_* variable one the code reads, the mapping a key of a ConfigMap
# mounted read-only where the variable or exec's --config points, exec's options those its
# --help lists, the ConfigMap's mapping valid. Then the checker itself must catch one broken
# copy of each kind, or its passes prove nothing.
. "$(dirname "$0")/helpers/lib.sh"
nn_cli
nn_tmp nn-k8s-yaml
py=
for p in python3 /usr/bin/python3; do
  if command -v "$p" >/dev/null && "$p" -c 'import yaml' 2>/dev/null; then py=$p; break; fi
done
[ -n "$py" ] || nn_skip "no python3 with PyYAML (Debian: python3-yaml; make deps installs it)"
files=("$root"/docs/examples/k8s-*.yaml)
[ -f "$root/docs/user/kubernetes.md" ] && files+=("$root/docs/user/kubernetes.md")
[ ${#files[@]} -ge 2 ] || fail "no docs/examples/k8s-*.yaml"

"$py" "$root/test/cli/helpers/k8s_yaml.py" "$root" "$cli" "${files[@]}" >"$tmp/out" 2>&1
rc=$?
cat "$tmp/out"
[ $rc -eq 0 ] && ! grep -q '^FAIL' "$tmp/out" || fail "the manifests do not match the code"

# broken NAME SED-EXPR WANT: a copy of k8s-sglang.yaml and k8s-vllm.yaml edited by SED-EXPR
# must make the checker fail with a line matching WANT.
broken() {
  local dir=$tmp/$1
  mkdir -p "$dir"
  for f in "$root"/docs/examples/k8s-sglang.yaml "$root"/docs/examples/k8s-vllm.yaml; do sed "$2" "$f" >"$dir/$(basename "$f")"; done
  cmp -s "$dir/k8s-sglang.yaml" "$root/docs/examples/k8s-sglang.yaml" && cmp -s "$dir/k8s-vllm.yaml" "$root/docs/examples/k8s-vllm.yaml" \
    && { fail "control $1: the edit changed nothing"; return; }
  if "$py" "$root/test/cli/helpers/k8s_yaml.py" "$root" "$cli" "$dir"/*.yaml >"$dir/out" 2>&1; then
    fail "control $1: the checker passed a broken copy"
  elif grep -q "^FAIL .*$3" "$dir/out"; then echo "ok   control $1: caught ($(grep -m1 "^FAIL" "$dir/out"))"
  else fail "control $1: failed, but not on '$3': $(grep -m1 '^FAIL' "$dir/out")"; fi
}
broken misspelt-variable 's/NCCL_NUMA_CONFIG$/NCCL_NUMA_CONFG/' 'NCCL_NUMA_CONFG is read by the code'
broken writable-mount 's/readOnly: true/readOnly: false/' 'mounted read-only'
broken wrong-key 's|/etc/nccl-numa/nccl-numa.conf|/etc/nccl-numa/mapping.conf|' 'mapping.conf is a key'
broken root-pod 's/runAsUser: 1000/runAsUser: 0/' 'runs as non-root'
broken no-gpus '/nvidia.com\/gpu: 4/d' 'GPUs from the NVIDIA device plugin'
broken own-devices 's/- name: HOME/- name: CUDA_VISIBLE_DEVICES/' 'leaves CUDA_VISIBLE_DEVICES'
broken exec-option 's/- --bind-for/- --bind-to/' 'exec takes --bind-to'
broken plugin-name 's/value: numa$/value: numa2/' 'libnccl-tuner-numa2.so'
broken bad-mapping 's/gpu 7 bus=0000:e1:00.0 numa=1/gpu 7 bus=0000:e1:00.0 numa=one/' 'is a valid mapping'
# the multi-node manifests (LeaderWorkerSet): a worker template's defect is caught too
mkdir -p "$tmp/lws"
sed '0,/runAsUser: 1000/!s/runAsUser: 1000/runAsUser: 0/' \
  "$root/docs/examples/k8s-sglang-2node.yaml" >"$tmp/lws/k8s-sglang-2node.yaml"
if "$py" "$root/test/cli/helpers/k8s_yaml.py" "$root" "$cli" "$tmp/lws/k8s-sglang-2node.yaml" >"$tmp/lws/out" 2>&1; then
  fail "control lws-root-worker: the checker passed a broken copy"
elif grep -q "^FAIL .*workerTemplate: runs as non-root" "$tmp/lws/out"; then echo "ok   control lws-root-worker: caught"
else fail "control lws-root-worker: failed, but not on the worker: $(grep -m1 '^FAIL' "$tmp/lws/out")"; fi
nn_finish "the Kubernetes manifests use only what nccl-numa reads ($py, PyYAML $("$py" -c 'import yaml; print(yaml.__version__)'))"
