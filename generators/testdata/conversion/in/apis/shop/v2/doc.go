// +groupName=shop.example.com
// +kubebuilder:object:generate=true
package v2
