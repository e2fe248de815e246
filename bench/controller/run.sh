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
# The control plane binary is built (or updated) first (minutes the
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
. ./lib.sh

count="${BENCH_COUNT:-3}"
n="${BENCH_N:-5000}"
profile_flags
build_controlplane
sample_load

mkdir -p results
out="${BENCH_OUT:-results/controller.txt}"

go test -c -o "$tmp/controller.test" ./controller
{
	versions client-go k8s.io/client-go
	echo "mydemos: $n"
	echo "# controller.test -test.run '^\$' -test.bench BenchmarkMydemoReady -test.benchtime 1x -test.count $count -mydemos $n ${profile[*]}"
	echo "# load average before: $(load) on $(nproc) CPUs; TMPDIR=${TMPDIR:-/tmp}"
} >"$tmp/out.txt"
echo "run.sh: $count runs of each implementation with $n Mydemos" >&2
run_bench controller "$tmp/controller.test" -test.run '^$' -test.bench BenchmarkMydemoReady \
	-test.benchtime 1x -test.count "$count" -test.timeout 3h -mydemos "$n" "${profile[@]}"
finish ./controller/ratios
