package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// ConfigMapSet keeps spec.replicas ConfigMaps, as a ReplicaSet keeps Pods:
// each is created by generateName from the set's name, holds spec.data,
// and is controlled by the set.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +ctrlgen:controller
// +ctrlgen:controller:owns=core/v1.ConfigMap
// +ctrlgen:controller:expectations
type ConfigMapSet struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ConfigMapSetSpec   `json:"spec"`
	Status ConfigMapSetStatus `json:"status,omitempty"`
}

// ConfigMapSetSpec is what the user asks for.
type ConfigMapSetSpec struct {
	// Replicas is how many ConfigMaps the set keeps.
	Replicas int32 `json:"replicas"`
	// Data is each ConfigMap's data.
	Data map[string]string `json:"data,omitempty"`
}

// ConfigMapSetStatus is what the controller observed.
type ConfigMapSetStatus struct {
	// ObservedGeneration is the generation the status describes.
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Replicas is how many ConfigMaps the set controlled when it was last
	// reconciled.
	Replicas int32 `json:"replicas"`
}

// ConfigMapSetList is a list of ConfigMapSets.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type ConfigMapSetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []ConfigMapSet `json:"items"`
}
