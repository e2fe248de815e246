package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	duckv1 "example.com/embeddedforeign/duck/v1"
)

// +genclient

// DomainMapping is knative serving's: its status embeds duckv1.Status
// inline.
type DomainMapping struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   DomainMappingSpec   `json:"spec,omitempty"`
	Status DomainMappingStatus `json:"status,omitempty"`
}

// DomainMappingSpec embeds a struct of the other package under a name.
type DomainMappingSpec struct {
	duckv1.Destination `json:"destination,omitempty"`

	// +optional
	TLS *SecretTLS `json:"tls,omitempty"`
}

// SecretTLS names a secret.
type SecretTLS struct {
	SecretName string `json:"secretName"`
}

// DomainMappingStatus describes the current state of the DomainMapping.
type DomainMappingStatus struct {
	duckv1.Status `json:",inline"`

	// URL is the URL of this DomainMapping.
	// +optional
	URL *string `json:"url,omitempty"`

	// Address is a struct of the other package, not embedded.
	// +optional
	Address *duckv1.Addressable `json:"address,omitempty"`
}

// DomainMappingList is a list of DomainMappings.
type DomainMappingList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []DomainMapping `json:"items"`
}
