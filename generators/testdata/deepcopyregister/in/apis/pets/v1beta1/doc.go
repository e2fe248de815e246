// Package v1beta1 is the pets.example.com/v1beta1 API. Its deepcopy marker has
// the register parameter that deepcopy-gen accepts and ignores.
//
// +k8s:deepcopy-gen=package,register=true
// +groupName=pets.example.com
package v1beta1
