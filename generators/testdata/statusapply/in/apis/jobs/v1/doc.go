// Package v1 is the jobs.example.com/v1 API: controllers that write
// status by server-side apply.
//
// +k8s:deepcopy-gen=package
// +groupName=jobs.example.com
package v1
