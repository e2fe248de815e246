package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// A marker in a block of its own is read too, as controller-gen reads it.
// +kubebuilder:rbac:groups=core,resources=secrets,verbs=get

// Backup is namespaced and has a status subresource (status write-back:
// update on backups/status, get on backups after a conflict), a finalizer
// (update on backups), owns ConfigMaps, which it adopts (get on backups,
// patch and delete on configmaps, update on backups/finalizers), and owns
// Secrets without adopting them (list and watch).
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +ctrlgen:controller
// +ctrlgen:controller:owns=core/v1.ConfigMap,adopt=spec.selector
// +ctrlgen:controller:owns=core/v1.Secret
// +ctrlgen:controller:finalizer=ops.example.com/cleanup
// +kubebuilder:rbac:groups=ops.example.com,resources=backups,verbs=delete
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

type BackupStatus struct {
	ObservedGeneration int64  `json:"observedGeneration,omitempty"`
	Phase              string `json:"phase,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type BackupList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Backup `json:"items"`
}

// Schedule is cluster-scoped, without a status (nothing written back),
// and owns Backups: list and watch on both, nothing more.
//
// +genclient
// +genclient:nonNamespaced
// +genclient:noStatus
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +ctrlgen:controller
// +ctrlgen:controller:owns=ops.example.com/v1.Backup
type Schedule struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ScheduleSpec `json:"spec"`
}

type ScheduleSpec struct {
	Cron string `json:"cron"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type ScheduleList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Schedule `json:"items"`
}
