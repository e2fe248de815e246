// Package v1 is the fleet.example.com/v1 API: every CRD marker ctrlgen
// reads, on types and fields.
//
// +k8s:deepcopy-gen=package
// +groupName=fleet.example.com
package v1
