// Package scale benchmarks one informer over 100k objects on a real
// control plane (testenv: etcd, kube-apiserver), ctrlgen's against
// client-go v0.37.2's with its defaults, each side in its own process
// (cmd/informer), alternating in rounds. See README.md.
package scale
