package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Mydemo is seed 000's custom resource: an endpoint and some data, which
// the mydemo controller renders into a ConfigMap that the Mydemo owns.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +ctrlgen:controller
// +ctrlgen:controller:owns=core/v1.ConfigMap
type Mydemo struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   MydemoSpec   `json:"spec"`
	Status MydemoStatus `json:"status,omitempty"`
}

// MydemoSpec is what the user asks for.
type MydemoSpec struct {
	// IP is the address the configuration points at.
	IP string `json:"ip"`
	// Port is the TCP port, 1 to 65535.
	Port int32 `json:"port"`
	// Data is copied into the ConfigMap, next to the keys "ip" and "port"
	// (which it may not hold itself).
	Data map[string]string `json:"data,omitempty"`
}

// MydemoStatus is what the controller observed.
type MydemoStatus struct {
	// ObservedGeneration is the generation the status describes; the
	// generated controller wiring sets it after each successful reconcile.
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// ConfigMapName names the ConfigMap rendered from the spec.
	ConfigMapName string `json:"configMapName,omitempty"`
	// Conditions: "Ready" is true once the ConfigMap matches the spec.
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// MydemoList is a list of Mydemos.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type MydemoList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Mydemo `json:"items"`
}
