package v1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// CronJobSpec defines the desired state of CronJob.
type CronJobSpec struct {
	// +kubebuilder:validation:MinLength=0
	Schedule string `json:"schedule"`

	// +optional
	StartingDeadlineSeconds *int64 `json:"startingDeadlineSeconds,omitempty"`

	JobTemplate corev1.PodTemplateSpec `json:"jobTemplate"`
}

// CronJobStatus defines the observed state of CronJob.
type CronJobStatus struct {
	// +optional
	Active []corev1.ObjectReference `json:"active,omitempty"`

	// +optional
	LastScheduleTime *metav1.Time `json:"lastScheduleTime,omitempty"`
}

// +genclient
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status

// CronJob is the Schema for the cronjobs API.
type CronJob struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   CronJobSpec   `json:"spec,omitempty"`
	Status CronJobStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// CronJobList contains a list of CronJob.
type CronJobList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []CronJob `json:"items"`
}

// +genclient
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=calendars,scope=Cluster

// Calendar is cluster-scoped; it has a Status field but no status
// subresource, so its client has no UpdateStatus.
type Calendar struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Holidays []metav1.Time `json:"holidays,omitempty"`
	Status   string        `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// CalendarList contains a list of Calendar.
type CalendarList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Calendar `json:"items"`
}

func init() {
	SchemeBuilder.Register(&CronJob{}, &CronJobList{}, &Calendar{}, &CalendarList{})
}
