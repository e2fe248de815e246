// Package compat proves that controllers written against
// k8s.io/code-generator's output, and their unit tests, work unchanged on
// ctrlgen's. It holds only tests, all skipped with -short (they build
// code-generator or download and build real projects):
//
//   - TestExample runs examples/samplecontroller's controller test (a
//     controller written as k8s.io/sample-controller's is) twice: in the
//     repository, on ctrlgen's committed output, after checking with
//     ctrlgen --verify that it is current; and in a temporary copy whose
//     generated code code-generator wrote instead (deepcopy-gen,
//     register-gen, client-gen, lister-gen, informer-gen, as
//     kube_codegen.sh runs them), at the same import paths.
//   - TestProjects takes real controllers from the module proxy
//     (k8s.io/sample-controller, external-snapshotter's snapshot
//     controller and sidecar, prometheus-operator's operator, whose API
//     and client are modules nested in its repository, cert-manager's
//     controllers and knative serving's reconcilers; versions in
//     internal/genrun), deletes their generated clientset, listers and
//     informers (and apply configurations where ctrlgen writes them;
//     prometheus-operator's deep copies too), regenerates them with
//     ctrlgen at the same import paths (ctrlgen's runtime, which the
//     generated code imports, replaced by this checkout), checks that the
//     controllers now build on ctrlgen's runtime, and runs their own unit
//     tests, unchanged.
//
// See README.md for how long each takes.
package compat
