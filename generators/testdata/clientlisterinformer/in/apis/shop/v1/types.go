package v1

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Order is a namespaced kind with a status.
type Order struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   OrderSpec   `json:"spec"`
	Status OrderStatus `json:"status,omitempty"`
}

// OrderSpec exercises the deep copy of every kind of field.
type OrderSpec struct {
	Customer  string                  `json:"customer"`
	Quantity  *int32                  `json:"quantity,omitempty"`
	Price     resource.Quantity       `json:"price"`
	Port      intstr.IntOrString      `json:"port"`
	Deadline  *metav1.Time            `json:"deadline,omitempty"`
	Labels    map[string]string       `json:"labels,omitempty"`
	Lines     []Line                  `json:"lines,omitempty"`
	Pointers  []*Line                 `json:"pointers,omitempty"`
	ByName    map[string]Line         `json:"byName,omitempty"`
	Tags      Tags                    `json:"tags,omitempty"`
	Matrix    [][]string              `json:"matrix,omitempty"`
	Indexed   map[string][]int64      `json:"indexed,omitempty"`
	Checksum  [4]byte                 `json:"checksum"`
	Template  *corev1.PodTemplateSpec `json:"template,omitempty"`
	Resources corev1.ResourceList     `json:"resources,omitempty"`
	Raw       []byte                  `json:"raw,omitempty"`
	Address   `json:",inline"`
	Phase     Phase             `json:"phase"`
	Nested    *map[string]*Line `json:"nested,omitempty"`
}

// Line is one order line.
type Line struct {
	SKU   string  `json:"sku"`
	Count int     `json:"count"`
	Note  *string `json:"note,omitempty"`
}

// Address is embedded in OrderSpec.
type Address struct {
	Street string `json:"street"`
	City   string `json:"city"`
}

// Tags is a named map.
type Tags map[string]string

// Phase is a named string: no deep copy of its own.
type Phase string

// OrderStatus is the observed state.
type OrderStatus struct {
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	Shipped    bool               `json:"shipped"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// OrderList is a list of Orders.
type OrderList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Order `json:"items"`
}

// internal types are not copied.
type internal struct {
	x int
}
