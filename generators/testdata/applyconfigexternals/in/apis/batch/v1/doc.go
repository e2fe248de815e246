// +k8s:deepcopy-gen=package
// +groupName=batch.example.com

// Package v1 refers to k8s.io/api types whose apply configurations are
// listed in --external-applyconfigurations (client-go's) and one that is
// not (its Go type stays).
package v1
