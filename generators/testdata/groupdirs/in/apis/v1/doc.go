// Package v1 is the gateway.networking.k8s.io/v1 API, in apis/: code-generator names
// its output directories after apis, not after the group.
//
// +k8s:deepcopy-gen=package
// +groupName=gateway.networking.k8s.io
package v1
