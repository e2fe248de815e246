package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Backup is namespaced, has a status with observedGeneration, a finalizer,
// and owns ConfigMaps, which it adopts by a selector held by value: every
// option of the generated wiring.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +ctrlgen:controller
// +ctrlgen:controller:owns=core/v1.ConfigMap,adopt=spec.selector
// +ctrlgen:controller:finalizer=ops.example.com/cleanup
type Backup struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   BackupSpec   `json:"spec"`
	Status BackupStatus `json:"status,omitempty"`
}

type BackupSpec struct {
	Source   string               `json:"source"`
	Selector metav1.LabelSelector `json:"selector"`
}

// BackupStatus gets observedGeneration from an embedded struct.
type BackupStatus struct {
	CommonStatus `json:",inline"`
	Phase        string `json:"phase,omitempty"`
}

type CommonStatus struct {
	ObservedGeneration int64              `json:"observedGeneration,omitempty"`
	Conditions         []metav1.Condition `json:"conditions,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type BackupList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Backup `json:"items"`
}

// Schedule is cluster-scoped and owns Backups, which it adopts by a
// selector held by pointer; its status has no
// observedGeneration. Its controller package is hand-written already
// (in/controllers/schedule), with a Deleted method.
//
// +genclient
// +genclient:nonNamespaced
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +ctrlgen:controller
// +ctrlgen:controller:owns=ops.example.com/v1.Backup,adopt=spec.backupSelector
// +ctrlgen:controller:expectations
type Schedule struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ScheduleSpec   `json:"spec"`
	Status ScheduleStatus `json:"status,omitempty"`
}

type ScheduleSpec struct {
	Cron           string                `json:"cron"`
	BackupSelector *metav1.LabelSelector `json:"backupSelector,omitempty"`
}

type ScheduleStatus struct {
	LastRun *metav1.Time `json:"lastRun,omitempty"`
	// Generation is not observedGeneration: the wiring leaves it alone.
	Generation int32 `json:"generation,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type ScheduleList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Schedule `json:"items"`
}

// Restore has no status subresource: no status write-back. It owns
// Restores (a chain of them): its own informer serves the owned ones.
//
// +genclient
// +genclient:noStatus
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +ctrlgen:controller
// +ctrlgen:controller:owns=ops.example.com/v1.Restore
type Restore struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   RestoreSpec   `json:"spec"`
	Status RestoreStatus `json:"status,omitempty"`
}

type RestoreSpec struct {
	Backup string `json:"backup"`
}

type RestoreStatus struct {
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type RestoreList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Restore `json:"items"`
}
