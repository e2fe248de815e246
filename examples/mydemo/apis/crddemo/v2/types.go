package v2

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Mydemo is seed 000's custom resource as v2 serves it: an address, a
// port and a protocol, and some data.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:resource:path=mydemos,scope=Namespaced,shortName=md
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Address",type=string,JSONPath=`.spec.address`
// +kubebuilder:printcolumn:name="Port",type=integer,JSONPath=`.spec.port`
// +kubebuilder:printcolumn:name="Protocol",type=string,JSONPath=`.spec.protocol`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type Mydemo struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   MydemoSpec   `json:"spec"`
	Status MydemoStatus `json:"status,omitempty"`
}

// MydemoSpec is what the user asks for.
type MydemoSpec struct {
	// Address is the address the configuration points at (v1's ip).
	// +kubebuilder:validation:MinLength=1
	Address string `json:"address"`
	// Port is the TCP or UDP port, 1 to 65535.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	Port int32 `json:"port"`
	// Protocol is TCP or UDP; v1 has no place for it, and keeps it in
	// the annotation conversion.ctrlgen.dev/v2.
	// +kubebuilder:validation:Enum=TCP;UDP
	// +optional
	Protocol string `json:"protocol,omitempty"`
	// Data is copied into the ConfigMap, next to the keys "ip" and "port"
	// (which it may not hold itself).
	// +kubebuilder:validation:XValidation:rule="!('ip' in self) && !('port' in self)",message="data may not hold the keys ip and port, which the controller sets from spec.address and spec.port"
	Data map[string]string `json:"data,omitempty"`
}

// MydemoStatus is what the controller observed, as in v1.
type MydemoStatus struct {
	// ObservedGeneration is the generation the status describes.
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// ConfigMapName names the ConfigMap rendered from the spec.
	ConfigMapName string `json:"configMapName,omitempty"`
	// Conditions: "Ready" is true once the ConfigMap matches the spec.
	// +listType=map
	// +listMapKey=type
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
