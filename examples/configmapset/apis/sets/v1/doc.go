// Package v1 is the sets.ctrlgen.io/v1 API of the ConfigMapSet example.
//
// +k8s:deepcopy-gen=package
// +groupName=sets.ctrlgen.io
package v1
