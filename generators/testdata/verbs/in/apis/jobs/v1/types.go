package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// +genclient
// +genclient:onlyVerbs=create,get,list,watch

// Run can be created and read, never changed.
type Run struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Command []string `json:"command"`
}

// RunList is a list of Runs.
type RunList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Run `json:"items"`
}

// +genclient
// +genclient:skipVerbs=delete,deleteCollection,patch

// Schedule cannot be deleted or patched.
type Schedule struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Cron   string         `json:"cron"`
	Status ScheduleStatus `json:"status,omitempty"`
}

// ScheduleStatus is the observed state.
type ScheduleStatus struct {
	LastRun *metav1.Time `json:"lastRun,omitempty"`
}

// ScheduleList is a list of Schedules.
type ScheduleList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Schedule `json:"items"`
}

// +genclient
// +genclient:onlyVerbs=create
// +genclient:nonNamespaced

// Review is create-only, like TokenReview, and has no list type.
type Review struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Allowed bool `json:"allowed"`
}
