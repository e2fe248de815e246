// Package v1 is the gateway.example.com/v1 API.
//
// +k8s:deepcopy-gen=package
// +groupName=gateway.example.com
package v1
