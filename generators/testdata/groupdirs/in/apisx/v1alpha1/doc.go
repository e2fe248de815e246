// Package v1alpha1 is the networking.x-k8s.io/v1alpha1 API, in apisx/: code-generator names
// its output directories after apisx, not after the group.
//
// +k8s:deepcopy-gen=package
// +groupName=networking.x-k8s.io
package v1alpha1
