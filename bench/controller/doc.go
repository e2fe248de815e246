// Package controllerbench measures how long a controller takes to bring N
// freshly created Mydemos (examples/mydemo, crddemo.k8s.io/v1) to Ready
// on a real local kube-apiserver (testenv), for four implementations that
// make the same number of writes:
//
//   - impl=ctrlgen: the mydemo controller as ctrlgen ships it
//     (examples/mydemo/controllers/mydemo: the generated wiring and
//     reconcile.go on runtime/controller, writing the ConfigMap and the
//     status by server-side apply), run by runtime/manager with its
//     default client limits (QPS 1000, Burst 2000);
//   - impl=ctrlgen-update: the same on the same runtime and manager, with
//     the update writes it made before server-side apply
//     (updatewrites.go): ConfigMap Create or Update, UpdateStatus;
//   - impl=client-go: the same controller written sample-controller style
//     on client-go's SharedIndexInformer, listers and rate-limited
//     workqueue, with update writes (clientgo.go);
//   - impl=floor: no informer and no controller: as each Mydemo create
//     returns, a pool of workers creates its ConfigMap and writes its
//     status (floor.go). The same writes, as soon as they can be made.
//
// Every implementation gets the same Mydemo creator (16 goroutines, its
// own client), the same number of workers (16) on one client with the same
// QPS and Burst, and the same Ready watcher; see the benchmark file for the
// rest of what is held equal. Each implementation, the floor included,
// runs in a process of its own (the test binary started again,
// child_test.go), so that its CPU time and peak memory are measured apart
// from the creator's and the watcher's, which stay in the benchmark's
// process; the floor gets each created Mydemo over a pipe. The pure parts (the rendered ConfigMap, the
// status) are in shared.go, pinned to reconcile.go's by a test.
//
// run.sh runs the benchmark and README.md has the results.
package controllerbench
