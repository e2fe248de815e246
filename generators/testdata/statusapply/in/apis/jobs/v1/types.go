package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Job is namespaced; its status has observedGeneration through an
// embedded struct, and conditions keyed by type. Its controller
// (in/controllers/job) applies the status.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +ctrlgen:controller
// +ctrlgen:controller:statusApply
type Job struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   JobSpec   `json:"spec"`
	Status JobStatus `json:"status,omitempty"`
}

type JobSpec struct {
	// Phase is what the controller copies into status.phase.
	Phase string `json:"phase,omitempty"`
}

type JobStatus struct {
	CommonStatus `json:",inline"`
	Phase        string `json:"phase,omitempty"`
}

type CommonStatus struct {
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type JobList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Job `json:"items"`
}

// Pool is cluster-scoped, without observedGeneration; ctrlgen writes its
// reconcile.go.
//
// +genclient
// +genclient:nonNamespaced
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +ctrlgen:controller
// +ctrlgen:controller:statusApply
type Pool struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   PoolSpec   `json:"spec"`
	Status PoolStatus `json:"status,omitempty"`
}

type PoolSpec struct {
	Size int32 `json:"size"`
}

type PoolStatus struct {
	Nodes   int32  `json:"nodes,omitempty"`
	Message string `json:"message,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type PoolList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Pool `json:"items"`
}
