// Package v2 is the crddemo.k8s.io/v2 API of Mydemo: spec.ip is
// spec.address, and spec.protocol is new. The apiserver stores v1, the
// hub; the mydemo manager's conversion webhook converts v2 to and from
// it (zz_generated.conversion.go, and mydemo_conversion.go for what
// differs).
//
// +k8s:deepcopy-gen=package
// +groupName=crddemo.k8s.io
package v2
