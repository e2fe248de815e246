// Package v1 is the shop.example.com/v1 API.
//
// +k8s:deepcopy-gen=package
// +groupName=shop.example.com
package v1
