package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Foo is a specification for a Foo resource.
type Foo struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   FooSpec   `json:"spec"`
	Status FooStatus `json:"status,omitempty"`
}

// FooSpec is the spec for a Foo resource.
type FooSpec struct {
	DeploymentName string            `json:"deploymentName"`
	Replicas       *int32            `json:"replicas"`
	Selector       map[string]string `json:"selector,omitempty"`
}

// FooStatus is the status for a Foo resource.
type FooStatus struct {
	AvailableReplicas int32              `json:"availableReplicas"`
	Conditions        []metav1.Condition `json:"conditions,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// FooList is a list of Foo resources.
type FooList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata"`

	Items []Foo `json:"items"`
}

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Bar is a specification for a Bar resource.
type Bar struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   BarSpec   `json:"spec"`
	Status BarStatus `json:"status,omitempty"`
}

// BarSpec is the spec for a Bar resource.
type BarSpec struct {
	FooRef   string           `json:"fooRef"`
	Message  string           `json:"message"`
	Tags     []string         `json:"tags,omitempty"`
	Interval *metav1.Duration `json:"interval,omitempty"`
}

// BarStatus is the status for a Bar resource.
type BarStatus struct {
	Phase        string       `json:"phase,omitempty"`
	LastSyncTime *metav1.Time `json:"lastSyncTime,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// BarList is a list of Bar resources.
type BarList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata"`

	Items []Bar `json:"items"`
}
