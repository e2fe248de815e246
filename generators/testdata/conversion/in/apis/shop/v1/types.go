package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Widget is stored as v1, the hub v2 converts through.
//
// +genclient
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +ctrlgen:webhook:conversion
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   WidgetSpec   `json:"spec"`
	Status WidgetStatus `json:"status,omitempty"`
}

// WidgetSpec is what v2 calls Host Address, and has Replicas, which v2
// has not.
type WidgetSpec struct {
	Common   `json:",inline"`
	Address  string            `json:"address"`
	Replicas int32             `json:"replicas,omitempty"`
	Timeout  string            `json:"timeout,omitempty"`
	Color    Color             `json:"color,omitempty"`
	Parts    []Part            `json:"parts,omitempty"`
	ByName   map[string]Part   `json:"byName,omitempty"`
	Limits   *Limits           `json:"limits,omitempty"`
	Labels   map[string]string `json:"labels,omitempty"`
}

// Common is inlined in both versions.
type Common struct {
	Owner string `json:"owner,omitempty"`
}

// Color is a named string in both versions.
type Color string

// Part is the same in both versions.
type Part struct {
	Name  string `json:"name"`
	Count int32  `json:"count,omitempty"`
}

// Limits has Burst, which v2's has not.
type Limits struct {
	CPU   string `json:"cpu,omitempty"`
	Burst int32  `json:"burst,omitempty"`
}

// WidgetStatus is the same in both versions.
type WidgetStatus struct {
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// +kubebuilder:object:root=true

// WidgetList is a list of Widgets.
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Widget `json:"items"`
}
