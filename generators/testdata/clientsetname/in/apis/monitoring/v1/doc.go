// Package v1 is generated as prometheus-operator generates its API:
// client-gen --clientset-name versioned --output-dir pkg/client puts the
// clientset at pkg/client/versioned, which ctrlgen's --clientset-name .
// does too.
// +k8s:deepcopy-gen=package
// +groupName=monitoring.example.com
package v1
