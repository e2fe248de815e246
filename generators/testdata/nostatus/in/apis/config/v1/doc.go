// +k8s:deepcopy-gen=package
// +groupName=config.example.com
package v1
