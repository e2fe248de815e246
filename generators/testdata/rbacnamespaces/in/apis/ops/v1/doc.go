// Package v1 is the ops.example.com/v1 API: kinds with controllers, whose
// manager's RBAC is derived from what the controllers do and from the
// RBAC markers here and in the controller packages.
//
// +k8s:deepcopy-gen=package
// +groupName=ops.example.com
// +kubebuilder:rbac:urls=/healthz;/metrics,verbs=get
package v1
