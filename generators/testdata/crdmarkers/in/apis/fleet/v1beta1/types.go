package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	fleetv1 "example.com/crdmarkers/apis/fleet/v1"
)

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=vessels,scope=Namespaced,shortName=vs;vsl,categories={fleet,all},singular=vessel
// +kubebuilder:deprecatedversion:warning="fleet.example.com/v1beta1 is deprecated; use v1"
// +kubebuilder:printcolumn:name="Class",type=string,JSONPath=`.spec.class`

// Vessel is the v1beta1 vessel: v1's spec.
type Vessel struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec fleetv1.VesselSpec `json:"spec"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true

// VesselList is a list of vessels.
type VesselList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Vessel `json:"items"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:unservedversion
// +kubebuilder:resource:scope=Cluster

// Harbor is no longer served at v1beta1.
type Harbor struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              fleetv1.HarborSpec `json:"spec,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true

// HarborList is a list of harbors.
type HarborList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Harbor `json:"items"`
}
