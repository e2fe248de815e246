package v1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +genclient

// Runner runs something it points at.
type Runner struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   RunnerSpec   `json:"spec,omitempty"`
	Status RunnerStatus `json:"status,omitempty"`
}

// RunnerSpec refers to k8s.io/api types.
type RunnerSpec struct {
	// Target is listed: client-go's ObjectReferenceApplyConfiguration.
	Target corev1.ObjectReference `json:"target"`
	// Secret is not listed: the apply configuration keeps the Go type.
	Secret *corev1.LocalObjectReference `json:"secret,omitempty"`
	// Selector is meta/v1's, always client-go's.
	Selector *metav1.LabelSelector `json:"selector,omitempty"`
}

// RunnerStatus has conditions.
type RunnerStatus struct {
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// RunnerList is a list of Runners.
type RunnerList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Runner `json:"items"`
}

// +genclient
// +genclient:noVerbs

// Trigger has no verbs, as policy/v1's Eviction, and still gets apply
// configurations, as applyconfiguration-gen writes them (it reads the
// verbs without +genclient:noVerbs).
type Trigger struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Reason says why.
	Reason string `json:"reason,omitempty"`
}
