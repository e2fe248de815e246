// +k8s:deepcopy-gen=package
// +groupName=ships.example.com
package v1beta1
