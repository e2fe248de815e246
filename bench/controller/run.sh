#!/usr/bin/env bash
# Runs BenchmarkMydemoReady: the time from creating N Mydemos to all of them
# Ready, for the mydemo controller on ctrlgen's runtime (impl=ctrlgen,
# writing by server-side apply), the same with update writes
# (impl=ctrlgen-update), the same controller on client-go (impl=client-go,
# update writes, over ctrlgen's clientset; impl=client-go-clientgen, over
# the clientset as client-gen builds it) and a plain driver making the
# update writes (impl=floor), all against one local control plane
# (testenv), each
# implementation in a process of its own. Saves the raw output to
# bench/results/controller.txt and prints the benchstat table
# (`benchstat -col /impl`) and ctrlgen's ratios to client-go and to the
# floor, and server-side apply's to update writes. See
# bench/controller/README.md.
#
# The control plane binary is built first if it is missing (minutes the
# first time). With N=5000 each run takes ~45 s on 2 cores (the timed span,
# then deleting the namespace and waiting for the control plane to go
# idle, at most 2 minutes): ~20 minutes for 3 rounds of the five, with the
# warm-up run and the control plane's start.
#
# Environment:
#   BENCH_COUNT  rounds (default 3): each runs every implementation once,
#                the first one rotating from round to round; 6 or more
#                give benchstat's p-values
#   BENCH_N      Mydemos per run (default 5000)
#   BENCH_OUT    where the raw output goes, relative to bench/ (default
#                results/controller.txt)
#   BENCH_PROFILE a directory: each implementation's process writes a
#                CPU profile of each measured run (from its caches synced
#                to its stop, so a little more than ctrl-cpu-s's span)
#                into it, as IMPL-rROUND.cpu.pprof, the warm-up excepted;
#                profiling costs the processes a little CPU, so use a
#                separate run
#   TMPDIR       where testenv keeps etcd's data; on this VM's disk etcd's
#                fsyncs slow the whole control plane after heavy file
#                churn, TMPDIR=/dev/shm keeps it in memory
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." # bench/

count="${BENCH_COUNT:-3}"
n="${BENCH_N:-5000}"
profile=()
if [[ -n "${BENCH_PROFILE:-}" ]]; then
	mkdir -p "$BENCH_PROFILE"
	profile=(-profile-dir "$(cd "$BENCH_PROFILE" && pwd)")
fi

bin="${CTRLGEN_CONTROLPLANE_BIN:-$(cd .. && pwd)/.cache/bin/ctrlplane}"
if [[ ! -x "$bin" ]]; then
	echo "run.sh: building the control plane ($bin; minutes the first time)" >&2
	(cd .. && go run ./testenv/cmd/testenv --build-only >/dev/null)
fi

tmp="$(mktemp -d)"
# The 1-minute load average every 5 s while the benchmark runs.
(while sleep 5; do cut -d' ' -f1 /proc/loadavg; done) >"$tmp/loads" 2>/dev/null &
sampler=$!
trap 'kill "$sampler" 2>/dev/null || true; rm -rf "$tmp"' EXIT

mkdir -p results
out="${BENCH_OUT:-results/controller.txt}"

load() { cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown; }
echo "run.sh: load average before: $(load) on $(nproc) CPUs; anything else running skews the numbers" >&2

go test -c -o "$tmp/controller.test" ./controller
{
	echo "goversion: $(go env GOVERSION)"
	echo "client-go: $(go list -m -f '{{.Version}}' k8s.io/client-go)"
	echo "mydemos: $n"
	echo "# controller.test -test.run '^\$' -test.bench BenchmarkMydemoReady -test.benchtime 1x -test.count $count -mydemos $n ${profile[*]}"
	echo "# load average before: $(load) on $(nproc) CPUs; TMPDIR=${TMPDIR:-/tmp}"
} >"$tmp/out.txt"
echo "run.sh: $count runs of each implementation with $n Mydemos" >&2
if ! (cd controller && "$tmp/controller.test" -test.run '^$' -test.bench BenchmarkMydemoReady \
	-test.benchtime 1x -test.count "$count" -test.timeout 3h -mydemos "$n" "${profile[@]}" 2>"$tmp/stderr") | tee -a "$tmp/out.txt"; then
	echo "run.sh: the benchmark failed; the end of its stderr:" >&2
	tail -n 50 "$tmp/stderr" >&2
	exit 1
fi
kill "$sampler" 2>/dev/null || true
during="$(awk '{s += $1; if (NR == 1 || $1 < lo) lo = $1; if ($1 > hi) hi = $1} END {if (NR) printf "min %.2f, mean %.2f, max %.2f over %d samples", lo, s / NR, hi, NR; else print "not sampled"}' "$tmp/loads")"
{
	echo "# load average after: $(load)"
	echo "# 1-minute load average during the run (every 5 s): $during"
} >>"$tmp/out.txt"
mv "$tmp/out.txt" "$out"
echo "run.sh: load average after: $(load); 1-minute load during the run: $during; raw output in bench/$out" >&2

echo
go tool benchstat -col /impl "$out"
echo
go run ./controller/ratios "$out"
