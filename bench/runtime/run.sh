#!/usr/bin/env bash
# Runs the runtime benchmarks — ctrlgen's runtime against client-go v0.37.2,
# the same workloads on the same objects — saves the raw output to
# bench/results/runtime.txt and prints the benchstat table
# (`benchstat -col /impl`) and the ratio of each workload to its goal. See
# bench/README.md. bench/run.sh (`make bench`) runs it.
#
# The benchmark binary is built once and run BENCH_COUNT times, each run a
# fresh process with the two implementations in alternating order, so that
# neither always runs first and both see the same heap history.
#
# Environment:
#   BENCH_COUNT   runs (samples per benchmark); default 6, the fewest
#                 benchstat needs for a confidence interval; a run takes
#                 ~45 s on 2 idle cores
#   BENCH_FILTER  -test.bench regexp (default ".": all of them)
#   BENCH_TIME    -test.benchtime per benchmark and run (default 1s)
#   BENCH_EVENT_BUFFER  capacity of the fake watch's channel in WatchUpdates
#                 (default 1024; 0: one goroutine hand-off per event)
#   BENCH_OUT     where to save the raw output (default results/runtime.txt)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." # bench/
. ./lib.sh

count="${BENCH_COUNT:-6}"
filter="${BENCH_FILTER:-.}"
benchtime="${BENCH_TIME:-1s}"
sample_load

mkdir -p "$(dirname "${BENCH_OUT:-results/runtime.txt}")"
out="${BENCH_OUT:-results/runtime.txt}"

go test -c -o "$tmp/runtime.test" ./runtime
{
	versions client-go k8s.io/client-go
	echo "event-buffer: ${BENCH_EVENT_BUFFER:-1024}"
	echo "# $count runs of: runtime.test -test.run '^\$' -test.bench '$filter' -test.benchtime $benchtime -test.count 1"
	echo "# load average before: $(load) on $(nproc) CPUs"
} >"$tmp/out.txt"
for ((i = 1; i <= count; i++)); do
	reverse=""
	if ((i % 2 == 0)); then reverse=1; fi
	echo "run.sh: run $i/$count${reverse:+ (client-go first)}" >&2
	(cd runtime && BENCH_REVERSE="$reverse" "$tmp/runtime.test" -test.run '^$' -test.bench "$filter" \
		-test.benchtime "$benchtime" -test.count 1 -test.timeout 30m) | tee -a "$tmp/out.txt"
done
finish ./internal/ratios
