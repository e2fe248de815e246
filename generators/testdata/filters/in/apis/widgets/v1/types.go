package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Widget reconciles spec and label changes only, and never its own status
// writes (which generationChanged drops anyway; ownStatusWrites is here
// to show the two together).
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +ctrlgen:controller
// +ctrlgen:controller:filter=generationChanged,labelsChanged,ownStatusWrites
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   WidgetSpec   `json:"spec"`
	Status WidgetStatus `json:"status,omitempty"`
}

type WidgetSpec struct {
	Size int32 `json:"size"`
}

type WidgetStatus struct {
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Widget `json:"items"`
}

// Gadget applies its status and skips only its own status writes: other
// writers' status changes are still reconciled.
//
// +genclient
// +genclient:nonNamespaced
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +ctrlgen:controller
// +ctrlgen:controller:statusApply
// +ctrlgen:controller:filter=ownStatusWrites
type Gadget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   GadgetSpec   `json:"spec"`
	Status GadgetStatus `json:"status,omitempty"`
}

type GadgetSpec struct {
	Mode string `json:"mode,omitempty"`
}

type GadgetStatus struct {
	Mode string `json:"mode,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type GadgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Gadget `json:"items"`
}

// Gizmo reconciles annotation changes, and the updates its controller's
// hand-written FilterUpdate passes (in/controllers/gizmo).
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +ctrlgen:controller
// +ctrlgen:controller:filter=annotationsChanged
type Gizmo struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec GizmoSpec `json:"spec"`
}

type GizmoSpec struct {
	Paused bool `json:"paused,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type GizmoList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Gizmo `json:"items"`
}
