// Package generator benchmarks the ctrlgen generator against
// k8s.io/code-generator (the version bench/go.mod pins, v0.37.2) on the
// same inputs, as a user would run them: each tool is built once into a
// binary, then every benchmark op runs the binaries as child processes.
//
//   - BenchmarkGenerate/input=one-gv: one group/version with two kinds (Foo
//     and Bar, sample-controller sized) in a writable package, copied fresh
//     into a temporary module for every op. code-generator runs
//     deepcopy-gen, register-gen, client-gen, lister-gen and informer-gen
//     with the flags kube_codegen.sh gives them; ctrlgen runs once.
//   - BenchmarkGenerate/input=one-gv-noop: ctrlgen run again on its own
//     output, nothing to change.
//   - BenchmarkGenerate/input=k8s-api: every group/version of k8s.io/api
//     with a +genclient type, read-only in the module cache; clientset,
//     listers and informers only (k8s.io/api has its deep copies).
//
// Each op reports its wall time (sec/op); peak-MB, the largest peak RSS
// among the op's processes (Maxrss from wait4, which includes the `go list`
// processes each tool starts); and cpu-sec/op, the user+system CPU time of
// those processes, which depends far less than wall time on what else
// the machine is running. Run it through run.sh; see README.md.
//
// TestGenerateOneGV runs both tools once on the one-gv input and checks
// that they produce the same set of files, so a broken benchmark fails
// `go test ./...` (it is skipped with -short: it builds code-generator).
package generator
