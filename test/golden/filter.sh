#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# filter.sh ROOT TMP < OUTPUT: the one place where the golden tests mask what changes from
# run to run and machine to machine, so that the expected files hold only what a reviewer
# should see change:
#   TMP (the run's scratch directory, with the fake sysfs trees)   -> <tmp>
#   ROOT (the checkout's absolute path)                             -> <root>
#   the version in VERSION, where it follows "nccl-numa "           -> nccl-numa <version>
#   ISO 8601 / RFC 3339 times and "YYYY-MM-DD HH:MM:SS"             -> <time>
#   explain's two "binding:" lines                                  -> removed
#     (explain prints them when the OS running it has the mapping's NUMA nodes: it reads the
#     real /sys/devices/system/node, so they come and go with the test machine)
# Anything else that differs is a real change: regenerate with `make golden` and review the diff.
set -u
root=$1 tmp=$2
version=$(cat "$root/VERSION")
esc() { printf '%s' "$1" | sed 's/[][\.*^$/]/\\&/g'; }
sed -e "s/$(esc "$tmp")/<tmp>/g" \
    -e "s/$(esc "$root")/<root>/g" \
    -e "s/nccl-numa $(esc "$version")\b/nccl-numa <version>/g" \
    -e 's/[0-9]\{4\}-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]\(\.[0-9]*\)\?\(Z\|[+-][0-9][0-9]:\?[0-9][0-9]\)/<time>/g' \
    -e 's/[0-9]\{4\}-[0-9][0-9]-[0-9][0-9] [0-9][0-9]:[0-9][0-9]:[0-9][0-9]\( [+-][0-9]\{4\}\)\?/<time>/g' \
    -e '/^binding:      this OS has the mapping.s NUMA nodes/,/^              `--bind-for vllm` adds/d'
