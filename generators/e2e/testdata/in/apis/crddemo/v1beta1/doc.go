// Package v1beta1 is the crddemo.k8s.io/v1beta1 API of the generated-client
// tests: a second version of the group.
// +k8s:deepcopy-gen=package
// +groupName=crddemo.k8s.io
package v1beta1
