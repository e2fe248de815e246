// Package v1beta1 is the older, deprecated version of the fleet API.
//
// +k8s:deepcopy-gen=package
// +groupName=fleet.example.com
package v1beta1
