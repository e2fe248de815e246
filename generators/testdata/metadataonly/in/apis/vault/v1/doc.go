// Package v1 is the vault.example.com/v1 API: controllers that cache the
// objects they own as metadata alone.
//
// +k8s:deepcopy-gen=package
// +groupName=vault.example.com
package v1
