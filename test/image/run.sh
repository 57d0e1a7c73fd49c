#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# make image-test: builds docker/Dockerfile with buildah and checks the image from inside.
# The SGLang base cannot be pulled here, so it stands on a local Debian 12 base made with
# mmdebstrap (cached as BUILD/image/base-bookworm-DATE.tar, remade once a day for Debian's
# updates), imported with podman, plus test/image/sglang-standin.Containerfile (python3 and
# the nvidia-nccl-cu12 wheel, where SGLang's PyTorch has NCCL). The Dockerfile is built on it
# through its build arguments (SGLANG_IMAGE, NCCL_TESTS_SRC=none: nccl-tests need CUDA, which
# the stand-in lacks), tagged localhost/sglang-nccl-numa:test in buildah's vfs storage, and
# checked with `buildah run`: the CLI, the plugin in the multiarch directory, explain on the
# shipped example, and the wheel's real NCCL loading the installed env plugin by its name.
# Build layers are cached (buildah --layers): a second run rebuilds only what changed.
# Skipped (77) without buildah, podman or mmdebstrap (make deps installs them) or root.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
skip() { echo "skipped: $*"; exit 77; }
for tool in buildah podman mmdebstrap; do
  command -v "$tool" >/dev/null || skip "$tool is not installed (make deps installs buildah, podman and mmdebstrap)"
done
[ "$(id -u)" -eq 0 ] || skip "buildah's chroot isolation and mmdebstrap run as root here"

S=(--storage-driver vfs)
key=$(date -u +%Y%m%d)
dir=$BUILD/image
base_tar=$dir/base-bookworm-$key.tar
base=localhost/nccl-numa-test-base:$key
standin=localhost/nccl-numa-test-sglang:$key
image=localhost/sglang-nccl-numa:test
mkdir -p "$dir"
fails=0
t0=$SECONDS
phase_start=$SECONDS
phase() {   # phase NAME: prints the time the previous step took under its name
  echo "time: $1: $((SECONDS - phase_start)) s"
  phase_start=$SECONDS
}
die() { echo "FAIL: $*"; exit 1; }

# ---- the base: Debian 12 minbase with python3 and pip, as a tar under BUILD, then an image
if [ -s "$base_tar" ]; then
  echo "base: $base_tar (cached)"
else
  rm -f "$dir"/base-bookworm-*.tar
  mmdebstrap --quiet --variant=minbase --include=python3,python3-pip,ca-certificates bookworm "$dir/base-bookworm-$key.part.tar" \
    || die "mmdebstrap could not make the Debian 12 base (no Debian mirror?)"
  mv "$dir/base-bookworm-$key.part.tar" "$base_tar"
fi
phase "base tar (mmdebstrap)"
if podman "${S[@]}" image exists "$base"; then
  echo "base: $base (imported already)"
else
  podman "${S[@]}" import --quiet "$base_tar" "$base" >/dev/null || die "podman import $base_tar"
fi
phase "base image (podman import)"
bud() { buildah "${S[@]}" bud --isolation chroot --layers "$@"; }
# pip in the stand-in trusts what this machine trusts (a proxy's CA, where there is one): its
# CA bundle is mounted over the image's for the RUN steps only, never stored in a layer.
ca=${PIP_CERT:-${SSL_CERT_FILE:-/etc/ssl/certs/ca-certificates.crt}}
trust=()
[ -f "$ca" ] && trust=(--volume "$(readlink -f "$ca"):/etc/ssl/certs/ca-certificates.crt:ro")
bud -f test/image/sglang-standin.Containerfile "${trust[@]}" --build-arg BASE="$base" -t "$standin" test/image \
  >"$dir/standin.log" 2>&1 || { tail -n 20 "$dir/standin.log"; die "the SGLang stand-in (pip install nvidia-nccl-cu12: no PyPI?)"; }
phase "SGLang stand-in (pip: nvidia-nccl-cu12)"

# ---- the image, from docker/Dockerfile as a user builds it, on the stand-in
bud -f docker/Dockerfile --ignorefile docker/Dockerfile.dockerignore --build-arg SGLANG_IMAGE="$standin" \
  --build-arg NCCL_TESTS_SRC=none -t "$image" . >"$dir/build.log" 2>&1 \
  || { tail -n 40 "$dir/build.log"; die "buildah bud docker/Dockerfile (log: $dir/build.log)"; }
grep -m1 '^topology: *release: NCCL' "$dir/build.log" | sed 's/^/build: /'
phase "docker/Dockerfile (buildah bud)"

# ---- checks inside
ctr=$(buildah "${S[@]}" from --quiet "$image") || die "buildah from $image"
trap 'buildah "${S[@]}" rm "$ctr" >/dev/null' EXIT
inside() { buildah "${S[@]}" run --isolation chroot "$@"; }
check() {   # check NAME: the last command's status
  if [ "$?" -eq 0 ]; then echo "ok   $1"; else echo "FAIL $1"; fails=$((fails + 1)); fi
}
version=$(cat VERSION)
out=$(inside "$ctr" -- nccl-numa --version 2>&1)
echo "$out" | sed 's/^/  /'
grep -q "^nccl-numa $version" <<<"$out"
check "nccl-numa --version says $version"
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
out=$(inside "$ctr" -- sh -c "ls -l /usr/lib/$multiarch/libnccl-tuner-numa.so /usr/lib/$multiarch/libnccl-env-numa.so" 2>&1)
echo "$out" | sed 's/^/  /'
inside "$ctr" -- test -f "/usr/lib/$multiarch/libnccl-tuner-numa.so" \
  && [ "$(inside "$ctr" -- readlink "/usr/lib/$multiarch/libnccl-env-numa.so")" = libnccl-tuner-numa.so ]
check "the plugin in /usr/lib/$multiarch, with its env plugin name"
example=/usr/share/nccl-numa/examples/proxmox-epyc-8gpu.conf
out=$(inside "$ctr" -- nccl-numa explain --config "$example" 2>&1)
rc=$?
grep -E '^(config|topology: +release):' <<<"$out" | sed 's/^/  /'
[ $rc -eq 0 ] && grep -q "^config: *$example (8 GPUs" <<<"$out" \
  && grep -q 'release: NCCL 2\.30\.7.*nvidia/nccl/lib/libnccl\.so\.2.*the Python environment' <<<"$out"
check "explain on the shipped example, with the wheel's NCCL 2.30.7"

# Real NCCL: the wheel's libnccl.so.2 loads the installed env plugin by name (NCCL_ENV_PLUGIN=numa
# opens libnccl-env-numa.so from the library path), which serves the mapping's env line.
buildah "${S[@]}" copy "$ctr" test/image/nccl_uid.py /tmp/nccl_uid.py >/dev/null || die "buildah copy"
# (in a directory of their own: a mapping lying directly in /tmp is not trusted)
inside "$ctr" -- sh -c "mkdir -m 0755 /tmp/maps && printf '# image test\nenv NCCL_SOCKET_IFNAME=lo\n' >/tmp/maps/with-env.conf &&
  printf '# image test, no env line\n' >/tmp/maps/without-env.conf" || die "writing the test mappings"
nccl() {   # nccl CONFIG [ENV_PLUGIN]: NCCL's log of ncclGetUniqueId
  inside --env NCCL_ENV_PLUGIN="${2:-numa}" --env NCCL_NUMA_CONFIG="$1" --env NCCL_DEBUG=INFO \
    "$ctr" -- python3 /tmp/nccl_uid.py 2>&1
}
out=$(nccl /tmp/maps/with-env.conf)
rc=$?
grep -E 'libnccl:|NCCL version|ENV/Plugin|nccl-numa|NCCL_SOCKET_IFNAME|ncclGetUniqueId' <<<"$out" | sed 's/^/  /'
[ $rc -eq 0 ] && grep -q 'ENV/Plugin: Using nccl-numa' <<<"$out" \
  && grep -q "nccl-numa $version: env plugin v" <<<"$out" \
  && grep -q 'NCCL_SOCKET_IFNAME set by environment to lo' <<<"$out"
check "the wheel's NCCL used the installed env plugin, which served NCCL_SOCKET_IFNAME=lo"
# the INIT line names the NCCL the process really loaded: the wheel's library, not a system one
grep -q "nccl-numa $version: env plugin v2 on NCCL 2.30.7 (loaded from /usr/local/lib/python3[.0-9]*/dist-packages/nvidia/nccl/lib/libnccl.so.2)" <<<"$out"
check "the env plugin's INIT line names the wheel's libnccl.so.2 it was loaded into, and its release"
out=$(nccl /tmp/maps/without-env.conf)
! grep -q 'NCCL_SOCKET_IFNAME set by environment' <<<"$out" && grep -q 'ENV/Plugin: Using nccl-numa' <<<"$out"
check "control: without the env line nothing is served"
out=$(nccl /tmp/maps/with-env.conf none)
! grep -q 'Using nccl-numa' <<<"$out"
check "control: NCCL_ENV_PLUGIN naming another plugin does not load nccl-numa"
phase "checks (buildah run)"
echo "time: total: $((SECONDS - t0)) s"
[ $fails -eq 0 ] || { echo "$fails image check(s) failed"; exit 1; }
echo "passed: $image built from docker/Dockerfile on a Debian 12 stand-in for $(sed -n 's/^ARG SGLANG_IMAGE=//p' docker/Dockerfile), checked inside"
