// Package v1 is the widgets.example.com/v1 API: controllers that filter
// the updates they reconcile (+ctrlgen:controller:filter=).
//
// +k8s:deepcopy-gen=package
// +groupName=widgets.example.com
package v1
