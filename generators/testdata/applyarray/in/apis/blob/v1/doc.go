// Package v1 has a kind with fixed-size array fields, which deepcopy-gen
// and client-gen accept and structured-merge-diff's reflection does not.
//
// +k8s:deepcopy-gen=package
// +groupName=blob.example.com
package v1
