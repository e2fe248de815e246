package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// ConfigMapSet keeps spec.replicas ConfigMaps, as a ReplicaSet keeps Pods:
// each is created by generateName from the set's name, with the labels of
// spec.selector's matchLabels and spec.data, and is controlled by the set.
// The set adopts orphan ConfigMaps its selector matches and releases those
// it stops matching.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +ctrlgen:controller
// +ctrlgen:controller:owns=core/v1.ConfigMap,adopt=spec.selector
// +ctrlgen:controller:expectations
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Desired",type=integer,JSONPath=`.spec.replicas`
// +kubebuilder:printcolumn:name="Current",type=integer,JSONPath=`.status.replicas`
type ConfigMapSet struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ConfigMapSetSpec   `json:"spec"`
	Status ConfigMapSetStatus `json:"status,omitempty"`
}

// ConfigMapSetSpec is what the user asks for.
type ConfigMapSetSpec struct {
	// Replicas is how many ConfigMaps the set keeps.
	// +kubebuilder:validation:Minimum=0
	Replicas int32 `json:"replicas"`
	// Selector picks the set's ConfigMaps; the ConfigMaps it creates get
	// its matchLabels.
	Selector *metav1.LabelSelector `json:"selector"`
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

// SecretSet keeps spec.replicas Secrets, as ConfigMapSet keeps
// ConfigMaps. Its controller caches the Secrets as metadata alone
// (metadataOnly): it counts, adopts and deletes them by their names,
// labels and owners, and never holds their data in memory.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +ctrlgen:controller
// +ctrlgen:controller:owns=core/v1.Secret,adopt=spec.selector,metadataOnly
// +ctrlgen:controller:expectations
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Desired",type=integer,JSONPath=`.spec.replicas`
// +kubebuilder:printcolumn:name="Current",type=integer,JSONPath=`.status.replicas`
type SecretSet struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   SecretSetSpec   `json:"spec"`
	Status SecretSetStatus `json:"status,omitempty"`
}

// SecretSetSpec is what the user asks for.
type SecretSetSpec struct {
	// Replicas is how many Secrets the set keeps.
	// +kubebuilder:validation:Minimum=0
	Replicas int32 `json:"replicas"`
	// Selector picks the set's Secrets; the Secrets it creates get its
	// matchLabels.
	Selector *metav1.LabelSelector `json:"selector"`
	// Data is each Secret's data.
	Data map[string][]byte `json:"data,omitempty"`
}

// SecretSetStatus is what the controller observed.
type SecretSetStatus struct {
	// ObservedGeneration is the generation the status describes.
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Replicas is how many Secrets the set controlled when it was last
	// reconciled.
	Replicas int32 `json:"replicas"`
}

// SecretSetList is a list of SecretSets.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type SecretSetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []SecretSet `json:"items"`
}
