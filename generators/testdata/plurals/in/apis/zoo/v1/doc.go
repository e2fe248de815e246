// +k8s:deepcopy-gen=package
// +groupName=zoo.example.com
package v1
