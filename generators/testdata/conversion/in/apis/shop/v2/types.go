package v2

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Widget is served as v2 too, converted through v1.
//
// +genclient
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   WidgetSpec   `json:"spec"`
	Status WidgetStatus `json:"status,omitempty"`
}

// WidgetSpec calls v1's Address Host, has Tier, which v1 has not, and
// a Timeout in seconds where v1 has a duration string.
type WidgetSpec struct {
	Common  `json:",inline"`
	Host    string            `json:"host"`
	Tier    string            `json:"tier,omitempty"`
	Timeout int64             `json:"timeout,omitempty"`
	Color   Color             `json:"color,omitempty"`
	Parts   []Part            `json:"parts,omitempty"`
	ByName  map[string]Part   `json:"byName,omitempty"`
	Limits  *Limits           `json:"limits,omitempty"`
	Labels  map[string]string `json:"labels,omitempty"`
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

// Limits has no Burst.
type Limits struct {
	CPU string `json:"cpu,omitempty"`
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
