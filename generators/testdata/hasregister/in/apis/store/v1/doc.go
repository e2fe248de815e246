// Package v1 registers its types itself (register.go): no
// zz_generated.register.go.
//
// +k8s:deepcopy-gen=package
// +groupName=store.example.com
package v1
