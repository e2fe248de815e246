// +k8s:deepcopy-gen=package
// +groupName=geo.example.com
package v1
