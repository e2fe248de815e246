// Package v1 is the crddemo.k8s.io/v1 API of seed 000's custom resource,
// Mydemo.
//
// +k8s:deepcopy-gen=package
// +groupName=crddemo.k8s.io
package v1
