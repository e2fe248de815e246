// Package v1 is the ops.example.com/v1 API: kinds with controllers.
//
// +k8s:deepcopy-gen=package
// +groupName=ops.example.com
package v1
