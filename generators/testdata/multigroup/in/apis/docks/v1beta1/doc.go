// +k8s:deepcopy-gen=package
// +groupName=docks.example.com
package v1beta1
