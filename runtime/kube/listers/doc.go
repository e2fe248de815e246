// Package listers provides generated listers for Kubernetes APIs: those of
// k8s.io/client-go/listers, with its exported API, on ctrlgen's runtime.
//
// ctrlgen generates the listers in the packages below, but for client-go's
// hand-written lister expansions (<kind>_expansion.go), copied from
// k8s.io/client-go v0.37.2; see package github.com/ctrlgen/ctrlgen/runtime/kube.
package listers
