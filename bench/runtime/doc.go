// Package runtimebench runs the same workloads through ctrlgen's runtime
// (runtime/cache, runtime/workqueue) and through client-go v0.37.2, on the
// same input objects, as sub-benchmarks named impl=ctrlgen and
// impl=client-go so that `benchstat -col /impl` puts them side by side.
//
// The workloads live in non-test files so that the quick tests
// (runtime_test.go) drive exactly the code the benchmarks time, only at a
// small size:
//
//   - InitialList: an informer lists N objects and delivers every add to one
//     handler;
//   - WatchUpdates: a synced informer receives M Modified events through its
//     watch and delivers every update to one handler;
//   - WorkQueue: one producer adds K distinct keys, four workers Get and
//     Done them;
//   - Memory: the heap an informer holding N objects retains, per object,
//     beyond the objects themselves.
package runtimebench
