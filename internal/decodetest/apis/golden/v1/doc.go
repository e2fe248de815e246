// Package v1 is golden.ctrlgen.dev/v1: types that exercise each rule of
// the generated JSON decoders.
//
// +k8s:deepcopy-gen=package
// +groupName=golden.ctrlgen.dev
package v1
