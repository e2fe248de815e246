// +k8s:deepcopy-gen=package
// +groupName=tenancy.example.com
package v1alpha1
