// Package v1 is the probe.example.com/v1 API.
//
// +k8s:deepcopy-gen=package
// +groupName=probe.example.com
package v1
