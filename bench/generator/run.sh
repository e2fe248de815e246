#!/usr/bin/env bash
# Runs the generator benchmarks — ctrlgen against k8s.io/code-generator
# v0.37.2 (or controller-gen) on the same inputs, each tool built (or
# taken from the build cache) once per round and run as processes — in
# rounds of `go test -bench`, saves the raw output to
# bench/results/generator.txt and prints the benchstat table
# (`benchstat -col /impl`) and the ratios against the goals. See README.md.
#
# Every op runs once per sample (-benchtime 1x: ops take seconds); the
# template modules are made, and every cache warmed, before any timing.
# The samples are taken in rounds, one `go test -count 1` each, so that
# the tools alternate: ctrlgen, then the incumbent, on each input, in
# every round (-count N would run one tool's N ops back to back).
#
# Environment:
#   BENCH_COUNT   rounds, samples per benchmark (default 6, the fewest
#                 benchstat needs for a confidence interval; a round of
#                 all five benchmarks takes ~20 s on 2 idle cores, plus
#                 ~40 s setup)
#   BENCH_FILTER  -bench regexp (default ^BenchmarkGenerate$;
#                 ^BenchmarkCRD$ for ctrlgen against controller-gen)
#   BENCH_OUT     where the raw output goes (default results/generator.txt)
#   TMPDIR        where the inputs are copied and the tools write; on this
#                 VM's disk creating a file costs 0.2–0.9 ms of kernel time,
#                 varying with recent churn, so a tmpfs (TMPDIR=/dev/shm)
#                 takes the file system's time out of both tools' figures
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." # bench/
. ./lib.sh

count="${BENCH_COUNT:-6}"
filter="${BENCH_FILTER:-^BenchmarkGenerate\$}"
sample_load

mkdir -p results
out="${BENCH_OUT:-results/generator.txt}"

{
	versions code-generator k8s.io/code-generator
	echo "# $count rounds of: go test -run '^\$' -bench '$filter' -benchtime 1x -count 1 ./generator (TMPDIR=${TMPDIR:-/tmp})"
	echo "# load average before: $(load) on $(nproc) CPUs"
} >"$tmp/out.txt"
for round in $(seq "$count"); do
	echo "# round $round" >>"$tmp/out.txt"
	go test -run '^$' -bench "$filter" -benchtime 1x -count 1 -timeout 60m ./generator | tee -a "$tmp/out.txt"
done
finish ./generator/ratios
