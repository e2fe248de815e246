// Package v1 is served by a group whose first DNS label, "my-widgets",
// is no Go name: +groupGoName gives it one.
//
// +k8s:deepcopy-gen=package
// +groupName=my-widgets.tools.example.com
// +groupGoName=Widgets
package v1
