// Package v1 is the pets.example.com/v1 API. Its deepcopy marker has
// the register parameter that deepcopy-gen accepts and ignores.
//
// +k8s:deepcopy-gen=package,register
// +groupName=pets.example.com
package v1
