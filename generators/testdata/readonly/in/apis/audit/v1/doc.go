// +k8s:deepcopy-gen=package
// +groupName=audit.example.com
package v1
