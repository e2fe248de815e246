# What the suites' run.sh scripts share. A run.sh sources it from bench/,
# after `set -euo pipefail`:
#
#   cd "$(dirname "${BASH_SOURCE[0]}")/.." # bench/
#   . ./lib.sh
#
# Sourcing it makes $tmp, a temporary directory removed at exit (with the
# load sampler, if one runs). The raw output collects in $tmp/out.txt,
# which finish moves to $out, the results file the script names. The
# functions, in the order a script calls them:
#
#   build_controlplane  builds (or updates) testenv's control plane binary
#   profile_flags       sets the array profile from BENCH_PROFILE
#   sample_load         samples the load average until finish
#   versions NAME MOD   the header lines: the Go version, MOD's version
#   run_bench DIR CMD…  runs the benchmark, its output into $tmp/out.txt
#   finish RATIOS       the trailer lines, $out, benchstat and the ratios
#   load                the load averages now

tmp="$(mktemp -d)"
sampler=""
trap 'if [[ -n "$sampler" ]]; then kill "$sampler" 2>/dev/null || true; fi; rm -rf "$tmp"' EXIT

load() { cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown; }

# build_controlplane builds (or updates) testenv's control plane binary
# before the benchmark, so that no build is in its time: minutes the first
# time, seconds when it is up to date.
build_controlplane() {
	(cd .. && go run ./testenv/cmd/testenv --build-only >/dev/null)
}

# profile_flags sets profile to the benchmark's -profile-dir flag with
# BENCH_PROFILE's directory, made if missing, as an absolute path; to
# nothing if BENCH_PROFILE is unset.
profile_flags() {
	profile=()
	if [[ -n "${BENCH_PROFILE:-}" ]]; then
		mkdir -p "$BENCH_PROFILE"
		profile=(-profile-dir "$(cd "$BENCH_PROFILE" && pwd)")
	fi
}

# sample_load samples the 1-minute load average every 5 s into $tmp/loads
# until finish, and says the load average before the run on stderr.
sample_load() {
	(while sleep 5; do cut -d' ' -f1 /proc/loadavg; done) >"$tmp/loads" 2>/dev/null &
	sampler=$!
	echo "run.sh: load average before: $(load) on $(nproc) CPUs; anything else running skews the numbers" >&2
}

# versions NAME MODULE prints the first lines of a results file: the Go
# version, and MODULE's version in bench/go.mod as NAME.
versions() {
	echo "goversion: $(go env GOVERSION)"
	echo "$1: $(go list -m -f '{{.Version}}' "$2")"
}

# run_bench DIR COMMAND... runs COMMAND in DIR, its output shown and
# appended to $tmp/out.txt, its stderr kept aside; if it fails, it prints
# the end of that stderr and exits.
run_bench() {
	local dir="$1"
	shift
	if ! (cd "$dir" && "$@" 2>"$tmp/stderr") | tee -a "$tmp/out.txt"; then
		echo "run.sh: the benchmark failed; the end of its stderr:" >&2
		tail -n 50 "$tmp/stderr" >&2
		exit 1
	fi
}

# finish RATIOS appends the load average after the run to the raw output
# (and, if sample_load ran, the load during it, which it also says on
# stderr), moves the output to $out, and prints the benchstat table and
# what `go run RATIOS $out` prints.
finish() {
	local during=""
	if [[ -n "$sampler" ]]; then
		kill "$sampler" 2>/dev/null || true
		during="$(awk '{s += $1; if (NR == 1 || $1 < lo) lo = $1; if ($1 > hi) hi = $1} END {if (NR) printf "min %.2f, mean %.2f, max %.2f over %d samples", lo, s / NR, hi, NR; else print "not sampled"}' "$tmp/loads")"
	fi
	echo "# load average after: $(load)" >>"$tmp/out.txt"
	if [[ -n "$during" ]]; then
		echo "# 1-minute load average during the run (every 5 s): $during" >>"$tmp/out.txt"
	fi
	mv "$tmp/out.txt" "$out"
	if [[ -n "$during" ]]; then
		echo "run.sh: load average after: $(load); 1-minute load during the run: $during; raw output in bench/$out" >&2
	fi

	echo
	go tool benchstat -col /impl "$out"
	echo
	go run "$1" "$out"
}
