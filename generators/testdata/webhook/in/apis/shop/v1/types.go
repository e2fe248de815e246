package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Order is defaulted and validated by webhooks ctrlgen wires: one marker.
//
// +genclient
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +ctrlgen:webhook:defaulting,validation
type Order struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   OrderSpec   `json:"spec"`
	Status OrderStatus `json:"status,omitempty"`
}

// OrderSpec is what is ordered.
type OrderSpec struct {
	Item     string `json:"item"`
	Quantity int32  `json:"quantity,omitempty"`
}

// OrderStatus is how far the order got.
type OrderStatus struct {
	Shipped bool `json:"shipped,omitempty"`
}

// Receipt only gets a validating webhook.
//
// +genclient
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster
// +ctrlgen:webhook:validation
type Receipt struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Total int64 `json:"total"`
}

// +kubebuilder:object:root=true
type OrderList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Order `json:"items"`
}

// +kubebuilder:object:root=true
type ReceiptList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Receipt `json:"items"`
}
