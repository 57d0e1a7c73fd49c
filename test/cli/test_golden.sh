#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The golden-output cases of explain, check, topo and discover (test/golden/run.sh): every
# case's output equals its test/golden/COMMAND/CASE.out, or the diff is shown. After a
# deliberate change of wording, `make golden` rewrites them: review and commit the diff.
exec bash "$(dirname "$0")/../golden/run.sh" "$@"
