#!/usr/bin/env bash
# Runs the generator benchmarks — ctrlgen against k8s.io/code-generator
# v0.37.2 on the same inputs, each tool built once and run as processes —
# in one `go test -bench` run, saves the raw output to
# bench/results/generator.txt and prints the benchstat table
# (`benchstat -col /impl`) and the ratios against the goals. See README.md.
#
# Every op runs once per sample (-benchtime 1x: ops take seconds); the
# template modules are made, and every cache warmed, before any timing.
#
# Environment:
#   BENCH_COUNT   samples per benchmark (default 6, the fewest benchstat
#                 needs for a confidence interval; a sample of all five
#                 benchmarks takes ~20 s on 2 idle cores, plus ~40 s setup)
#   BENCH_FILTER  -bench regexp (default ^BenchmarkGenerate$)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." # bench/

count="${BENCH_COUNT:-6}"
filter="${BENCH_FILTER:-^BenchmarkGenerate\$}"

tmp="$(mktemp)"
loads="$(mktemp)"
# The 1-minute load average every 5 s while the benchmarks run.
(while sleep 5; do cut -d' ' -f1 /proc/loadavg; done) >"$loads" 2>/dev/null &
sampler=$!
trap 'kill "$sampler" 2>/dev/null || true; rm -f "$tmp" "$loads"' EXIT

mkdir -p results
out=results/generator.txt

load() { cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown; }
echo "run.sh: load average before: $(load) on $(nproc) CPUs; anything else running skews the numbers" >&2

{
	echo "goversion: $(go env GOVERSION)"
	echo "code-generator: $(go list -m -f '{{.Version}}' k8s.io/code-generator)"
	echo "# go test -run '^\$' -bench '$filter' -benchtime 1x -count $count ./generator"
	echo "# load average before: $(load) on $(nproc) CPUs"
} >"$tmp"
go test -run '^$' -bench "$filter" -benchtime 1x -count "$count" -timeout 60m ./generator | tee -a "$tmp"
kill "$sampler" 2>/dev/null || true
during="$(awk '{s += $1; if (NR == 1 || $1 < lo) lo = $1; if ($1 > hi) hi = $1} END {if (NR) printf "min %.2f, mean %.2f, max %.2f over %d samples", lo, s / NR, hi, NR; else print "not sampled"}' "$loads")"
{
	echo "# load average after: $(load)"
	echo "# 1-minute load average during the run (every 5 s): $during"
} >>"$tmp"
mv "$tmp" "$out"
echo "run.sh: load average after: $(load); 1-minute load during the run: $during; raw output in bench/$out" >&2

echo
go tool benchstat -col /impl "$out"
echo
go run ./generator/ratios "$out"
