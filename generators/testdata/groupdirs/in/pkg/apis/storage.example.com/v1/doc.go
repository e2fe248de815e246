// Package v1 is the storage.example.com/v1 API, in a directory named after
// the whole group, dots included: code-generator's output directories are
// named so too, the informers' group package is "storage", and the Go name
// comes from +groupGoName.
//
// +k8s:deepcopy-gen=package
// +groupName=storage.example.com
// +groupGoName=objectStore
package v1
