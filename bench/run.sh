#!/usr/bin/env bash
# `make bench`: runs every benchmark suite of the bench module, ours against
# the incumbents', one after the other. Each suite is a directory with a
# run.sh that saves its raw `go test -bench` output to
# bench/results/<suite>.txt and prints its benchstat table (-col /impl) and
# its ratios against the goals. See README.md.
#
#   runtime/run.sh     ctrlgen's runtime/cache and runtime/workqueue against
#                      client-go (~5 min on 2 idle cores)
#   controller/run.sh  the mydemo controller on ctrlgen against the same
#                      controller on client-go and a plain driver, on a local
#                      control plane (~9 min for 3 rounds)
#   generator/run.sh   the ctrlgen generator against k8s.io/code-generator
#   scale/run.sh       one informer over 100k ConfigMaps and 100k Mydemos on
#                      a local control plane, ctrlgen's and client-go's each
#                      in its own process (~25 min per kind for 5 rounds)
#
# Environment:
#   BENCH_SUITES  the suites to run, in order (default: runtime, then every
#                 other directory with an executable run.sh, by name)
#   BENCH_COUNT, BENCH_FILTER, …  passed on; see each suite's run.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

if [[ -n "${BENCH_SUITES:-}" ]]; then
	suites="$BENCH_SUITES"
else
	suites="runtime"
	for script in */run.sh; do
		suite="${script%/run.sh}"
		if [[ "$suite" != runtime && -x "$script" ]]; then suites="$suites $suite"; fi
	done
fi
ran=0
for suite in $suites; do
	if [[ ! -x "$suite/run.sh" ]]; then
		echo "run.sh: no suite $suite (no executable $suite/run.sh); skipped" >&2
		continue
	fi
	echo "=== $suite ==="
	"./$suite/run.sh"
	echo
	ran=$((ran + 1))
done
if ((ran == 0)); then
	echo "run.sh: no suite ran" >&2
	exit 1
fi
