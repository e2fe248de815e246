package v1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"example.com/applyconfig/money"
)

// +genclient

// Store is a namespaced kind with a status.
type Store struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   StoreSpec   `json:"spec,omitempty"`
	Status StoreStatus `json:"status,omitempty"`
}

// Common is embedded inline in StoreSpec.
type Common struct {
	// Owner is who runs the store.
	Owner string `json:"owner,omitempty"`
	// +optional
	Notes []string `json:"notes,omitempty"`
}

// StoreSpec exercises every shape of field.
type StoreSpec struct {
	Common `json:",inline"`

	// Address is a nested struct behind a pointer.
	Address *Address `json:"address,omitempty"`
	// Hours is a nested struct by value.
	Hours Hours `json:"hours"`
	// Shelves are merged by name.
	// +listType=map
	// +listMapKey=name
	Shelves []Shelf `json:"shelves,omitempty"`
	// Tags is a map of strings.
	Tags map[string]string `json:"tags,omitempty"`
	// Prices maps an item to its price, a struct of another package.
	Prices map[string]money.Amount `json:"prices,omitempty"`
	// Counters maps names to nested structs.
	Counters map[string]Counter `json:"counters,omitempty"`
	// Replicas is a pointer to a builtin.
	Replicas *int32 `json:"replicas,omitempty"`
	// Float is a sum of another package.
	Float money.Amount `json:"float"`
	// Port is an int or a string.
	Port intstr.IntOrString `json:"port,omitempty"`
	// Selector is a meta/v1 type with client-go's apply configuration.
	Selector *metav1.LabelSelector `json:"selector,omitempty"`
	// Template is a k8s.io/api type with client-go's apply configuration.
	Template corev1.PodTemplateSpec `json:"template"`
	// Aisles is an atomic list of builtins.
	Aisles []int32 `json:"aisles,omitempty"`
	// Phase is a named string.
	Phase Phase `json:"phase,omitempty"`
	// Ignored is not serialised.
	Ignored string `json:"-"`
}

// Phase is where a store is in its life.
type Phase string

// Address is where a store is.
type Address struct {
	Street string `json:"street"`
	City   string `json:"city"`
}

// Hours are a store's opening hours.
type Hours struct {
	Open  string `json:"open"`
	Close string `json:"close"`
}

// Shelf is one shelf of a store.
type Shelf struct {
	Name  string   `json:"name"`
	Items []string `json:"items,omitempty"`
	// +listType=set
	Labels []string `json:"labels,omitempty"`
}

// Counter is a till.
type Counter struct {
	Staffed bool `json:"staffed"`
}

// StoreStatus is what the controller saw.
type StoreStatus struct {
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	Visitors   int64              `json:"visitors,omitempty"`
}

// StoreList is a list of Stores.
type StoreList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Store `json:"items"`
}

// +genclient
// +genclient:nonNamespaced

// Region is a cluster-scoped kind.
type Region struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   RegionSpec   `json:"spec,omitempty"`
	Status RegionStatus `json:"status,omitempty"`
}

// RegionSpec names the stores of a region.
type RegionSpec struct {
	Stores []string `json:"stores,omitempty"`
}

// RegionStatus counts them.
type RegionStatus struct {
	Open int32 `json:"open"`
}

// RegionList is a list of Regions.
type RegionList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Region `json:"items"`
}

// +genclient

// Coupon is a kind without a status.
type Coupon struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Code     string `json:"code"`
	Discount int32  `json:"discount"`
}

// CouponList is a list of Coupons.
type CouponList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Coupon `json:"items"`
}

// +genclient
// +genclient:skipVerbs=apply,applyStatus

// Receipt has no Apply: it skips the verb.
type Receipt struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Total money.Amount `json:"total"`
}

// ReceiptList is a list of Receipts.
type ReceiptList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Receipt `json:"items"`
}
