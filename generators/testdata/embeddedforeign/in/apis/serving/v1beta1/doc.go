// +k8s:deepcopy-gen=package
// +groupName=serving.example.com
package v1beta1
