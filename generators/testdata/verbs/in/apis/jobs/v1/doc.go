// +k8s:deepcopy-gen=package
// +groupName=jobs.example.com
package v1
