package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Tenant is cluster-scoped.
//
// +genclient
// +genclient:nonNamespaced
type Tenant struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   TenantSpec   `json:"spec"`
	Status TenantStatus `json:"status,omitempty"`
}

// TenantSpec is the desired state.
type TenantSpec struct {
	Namespaces []string `json:"namespaces,omitempty"`
}

// TenantStatus is the observed state.
type TenantStatus struct {
	Ready bool `json:"ready"`
}

// TenantList is a list of Tenants.
type TenantList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Tenant `json:"items"`
}
