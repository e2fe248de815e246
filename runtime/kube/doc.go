// Package kube is the root of the informers and listers the ctrlgen module
// ships for every group version of k8s.io/api, so that no project
// regenerates the built-in kinds:
//
//   - kube/informers is shaped as k8s.io/client-go/informers, with its
//     exported API, and takes client-go's kubernetes.Interface;
//   - kube/listers is shaped as k8s.io/client-go/listers, with its
//     exported API.
//
// They run on ctrlgen's runtime (runtime/cache, runtime/informers,
// runtime/listers) and live in its module, so that a controller using them
// needs nothing of the generator's. ctrlgen generates them, with the line
// below, run from the main module at the repository root (make generate),
// and make verify fails when they are stale. The hand-written
// files are the package comments, kube/listers' generic helpers, and
// client-go's lister expansions (<kind>_expansion.go), copied from
// k8s.io/client-go v0.37.2.
//
// A controller generated with "+ctrlgen:controller:owns=core/v1.ConfigMap"
// uses them when its own run does not generate k8s.io/api/core/v1.
package kube

//go:generate sh -c "cd ../.. && go run ./cmd/ctrlgen --generators lister,informer --versioned-clientset-package k8s.io/client-go/kubernetes --single-directory --output-dir runtime/kube k8s.io/api/..."
