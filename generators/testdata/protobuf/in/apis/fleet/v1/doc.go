// +k8s:deepcopy-gen=package
// +groupName=fleet.example.com
package v1
