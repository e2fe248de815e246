#!/usr/bin/env bash
# Runs BenchmarkInformer: one informer over all namespaces on a local
# control plane (testenv: etcd, kube-apiserver), ctrlgen's against
# client-go v0.37.2's, each side in its own process (scale/cmd/informer),
# alternating which goes first from round to round. Saves the raw output
# to bench/results/scale.txt (or $BENCH_OUT) and prints the benchstat table
# (`benchstat -col /impl`) and the ratios against the goals of issue 12.
# See bench/scale/README.md.
#
# Creating 100k objects of a kind takes a few minutes; they are created
# once per run of this script and reused by every round. A round at 100k
# is 2–4 minutes per kind on 2 cores, most of it the harness's 60k
# patches.
#
# Environment:
#   BENCH_COUNT    rounds (default 5)
#   BENCH_N        objects per kind (default 100000)
#   BENCH_KINDS    kinds, comma-separated (default configmaps,mydemos)
#   BENCH_IMPLS    sides, comma-separated (default ctrlgen,client-go,floor;
#                  NAME-http1 runs a side with its clientset on HTTP/1.1)
#   BENCH_OUT      the raw output file (default results/scale.txt)
#   BENCH_PROFILE  a directory: every informer process writes a CPU
#                  profile of its sync and heap profiles into it (this
#                  slows the sync a little; use a separate run)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." # bench/
. ./lib.sh

count="${BENCH_COUNT:-5}"
n="${BENCH_N:-100000}"
kinds="${BENCH_KINDS:-configmaps,mydemos}"
impls="${BENCH_IMPLS:-ctrlgen,client-go,floor}"
profile_flags
build_controlplane

mkdir -p results
out="${BENCH_OUT:-results/scale.txt}"

go test -c -o "$tmp/scale.test" ./scale
{
	versions client-go k8s.io/client-go
	echo "objects: $n"
	echo "# scale.test -test.run '^\$' -test.bench BenchmarkInformer -test.benchtime 1x -test.count $count -objects $n -kinds $kinds -impls $impls ${profile[*]}"
	echo "# load average before: $(load) on $(nproc) CPUs"
} >"$tmp/out.txt"
echo "run.sh: $count rounds of each side on $kinds, $n objects each" >&2
run_bench scale "$tmp/scale.test" -test.run '^$' -test.bench BenchmarkInformer -test.benchtime 1x \
	-test.count "$count" -test.timeout 5h -objects "$n" -kinds "$kinds" -impls "$impls" "${profile[@]}"
finish ./scale/ratios
