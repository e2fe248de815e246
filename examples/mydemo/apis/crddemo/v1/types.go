package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// *.k8s.io groups are protected: the apiserver refuses a CRD without this
// annotation; a value starting with "unapproved" is accepted.
// +kubebuilder:metadata:annotations="api-approved.kubernetes.io=unapproved, experimental-only: the example CRD of seed 000 (group crddemo.k8s.io)"

// Mydemo is seed 000's custom resource: an endpoint and some data, which
// the mydemo controller renders into a ConfigMap that the Mydemo owns.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +ctrlgen:controller
// +ctrlgen:controller:owns=core/v1.ConfigMap
// +ctrlgen:controller:statusApply
// +ctrlgen:webhook:defaulting,validation,conversion
// +kubebuilder:storageversion
// +kubebuilder:resource:path=mydemos,scope=Namespaced,shortName=md
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="IP",type=string,JSONPath=`.spec.ip`
// +kubebuilder:printcolumn:name="Port",type=integer,JSONPath=`.spec.port`
// +kubebuilder:printcolumn:name="ConfigMap",type=string,JSONPath=`.status.configMapName`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type Mydemo struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   MydemoSpec   `json:"spec"`
	Status MydemoStatus `json:"status,omitempty"`
}

// MydemoSpec is what the user asks for.
type MydemoSpec struct {
	// IP is the address the configuration points at.
	// +kubebuilder:validation:MinLength=1
	IP string `json:"ip"`
	// Port is the TCP port, 1 to 65535.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	Port int32 `json:"port"`
	// Data is copied into the ConfigMap, next to the keys "ip" and "port"
	// (which it may not hold itself).
	// +kubebuilder:validation:XValidation:rule="!('ip' in self) && !('port' in self)",message="data may not hold the keys ip and port, which the controller sets from spec.ip and spec.port"
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
