package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Foo asks for a Deployment named spec.deploymentName, running
// spec.replicas copies of nginx, which the controller creates and keeps
// at that size.
//
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type Foo struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   FooSpec   `json:"spec"`
	Status FooStatus `json:"status"`
}

// FooSpec is what the user asks for.
type FooSpec struct {
	// DeploymentName names the Deployment the Foo owns, in its namespace.
	DeploymentName string `json:"deploymentName"`
	// Replicas is the Deployment's size; nil leaves it as it is.
	Replicas *int32 `json:"replicas"`
}

// FooStatus is what the controller last saw of the Deployment.
type FooStatus struct {
	// AvailableReplicas is the Deployment's status.availableReplicas.
	AvailableReplicas int32 `json:"availableReplicas"`
}

// FooList is a list of Foos.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type FooList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Foo `json:"items"`
}
