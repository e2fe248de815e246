package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Vault owns Secrets, which it caches as metadata alone and adopts by its
// selector, ConfigMaps, which it caches whole, and Keys of this group as
// metadata alone.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +ctrlgen:controller
// +ctrlgen:controller:owns=core/v1.Secret,metadataOnly,adopt=spec.selector
// +ctrlgen:controller:owns=core/v1.ConfigMap
// +ctrlgen:controller:owns=vault.example.com/v1.Key,metadataOnly
type Vault struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   VaultSpec   `json:"spec"`
	Status VaultStatus `json:"status,omitempty"`
}

type VaultSpec struct {
	Selector metav1.LabelSelector `json:"selector"`
}

type VaultStatus struct {
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	Secrets            int32 `json:"secrets,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type VaultList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Vault `json:"items"`
}

// Key owns Secrets as metadata alone and no built-in kind whole: its
// controller takes client-go's clientset but no informer factory of it.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +ctrlgen:controller
// +ctrlgen:controller:owns=core/v1.Secret,metadataOnly
type Key struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec KeySpec `json:"spec"`
}

type KeySpec struct {
	Bits int32 `json:"bits"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type KeyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Key `json:"items"`
}
