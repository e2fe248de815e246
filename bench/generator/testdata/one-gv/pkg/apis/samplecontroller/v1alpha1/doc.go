// +k8s:deepcopy-gen=package
// +groupName=samplecontroller.example.com

// Package v1alpha1 is the v1alpha1 version of the samplecontroller API.
package v1alpha1
