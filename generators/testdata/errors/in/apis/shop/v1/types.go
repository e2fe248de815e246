package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// +genclient
// Order is the type the error cases put markers on.
type Order struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Status            string `json:"status"`
}

// OrderList is a list of Orders.
type OrderList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Order `json:"items"`
}
