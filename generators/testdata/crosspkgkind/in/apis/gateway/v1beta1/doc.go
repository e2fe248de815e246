// Package v1beta1 is the gateway.example.com/v1beta1 API. Its kinds are
// declared as v1's, as gateway-api declares its v1beta1 kinds.
//
// +k8s:deepcopy-gen=package
// +groupName=gateway.example.com
package v1beta1
