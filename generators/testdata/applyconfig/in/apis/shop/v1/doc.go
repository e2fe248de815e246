// +k8s:deepcopy-gen=package
// +groupName=shop.example.com
package v1
