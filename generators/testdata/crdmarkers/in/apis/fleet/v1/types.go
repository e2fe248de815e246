package v1

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=vessels,scope=Namespaced,shortName=vs;vsl,categories={fleet,all},singular=vessel
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas,selectorpath=.status.selector
// +kubebuilder:printcolumn:name="Class",type=string,JSONPath=`.spec.class`,description="the vessel's class"
// +kubebuilder:printcolumn:name="Replicas",type=integer,JSONPath=".spec.replicas",priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:storageversion
// +kubebuilder:metadata:annotations="api-approved.kubernetes.io=unapproved, testing",labels="app=fleet"
// +kubebuilder:selectablefield:JSONPath=`.spec.class`

// Vessel is a ship of the fleet.
//
// It has a second paragraph,
// which stays one.
type Vessel struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   VesselSpec   `json:"spec"`
	Status VesselStatus `json:"status,omitempty"`
}

// Class is a vessel's class.
// +kubebuilder:validation:Enum=frigate;corvette;"carrier"
// +kubebuilder:validation:MaxLength=16
type Class string

// Port is a TCP port.
// +kubebuilder:validation:Minimum=1
// +kubebuilder:validation:Maximum=65535
type Port int32

// Labels are a set of labels.
// +mapType=atomic
type Labels map[string]string

// Stage is a rollout stage; its constants are its values.
// +k8s:enum
type Stage string

const (
	StageCanary Stage = "Canary"
	StageFull   Stage = "Full"
)

// VesselSpec is what the user asks for.
// +kubebuilder:validation:XValidation:rule="self.replicas <= 100",message="at most 100 replicas"
// +kubebuilder:validation:AtMostOneOf=crew;autopilot
type VesselSpec struct {
	// Class of the vessel.
	Class Class `json:"class"`
	// Replicas is how many.
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:ExclusiveMaximum=true
	// +kubebuilder:validation:Maximum=1000
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`
	// Ports; the type's bounds apply to each.
	// +listType=set
	// +kubebuilder:validation:MaxItems=8
	// +kubebuilder:validation:MinItems=1
	Ports []Port `json:"ports,omitempty"`
	// Name must look like a DNS label.
	// +kubebuilder:validation:Pattern=`^[a-z]([-a-z0-9]*[a-z0-9])?$`
	// +kubebuilder:validation:MinLength=1
	// +required
	Name string `json:"name,omitzero"`
	// Crew names, each at most 63 characters.
	// +kubebuilder:validation:items:MaxLength=63
	// +kubebuilder:validation:UniqueItems=true
	// +optional
	Crew []string `json:"crew,omitempty"`
	// Autopilot takes the place of a crew.
	// +kubebuilder:validation:Optional
	Autopilot bool `json:"autopilot"`
	// Routes are keyed by name.
	// +listType=map
	// +listMapKey=name
	// +listMapKey=port
	Routes []Route `json:"routes,omitempty"`
	// Labels replace one another whole.
	Labels Labels `json:"labels,omitempty"`
	// Tags are merged key by key.
	// +mapType=granular
	// +kubebuilder:validation:MaxProperties=10
	// +kubebuilder:validation:MinProperties=1
	Tags map[string]string `json:"tags,omitempty"`
	// Engine is replaced whole.
	// +structType=atomic
	Engine *Engine `json:"engine,omitempty"`
	// Resources of the vessel's pods.
	Resources corev1.ResourceRequirements `json:"resources,omitempty"`
	// Tolerations, from k8s.io/api.
	// +optional
	Tolerations []corev1.Toleration `json:"tolerations,omitempty"`
	// MaxUnavailable is a number or a percentage.
	// +kubebuilder:default="25%"
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty"`
	// Capacity is a quantity.
	Capacity resource.Quantity `json:"capacity,omitempty"`
	// Timeout is a duration.
	// +kubebuilder:validation:Format=duration
	Timeout metav1.Duration `json:"timeout,omitempty"`
	// Extra is kept as it is.
	// +kubebuilder:pruning:PreserveUnknownFields
	// +optional
	Extra runtime.RawExtension `json:"extra,omitempty"`
	// Template is a whole object.
	// +kubebuilder:validation:EmbeddedResource
	// +kubebuilder:pruning:PreserveUnknownFields
	// +optional
	Template *runtime.RawExtension `json:"template,omitempty"`
	// Note may be null.
	// +nullable
	// +optional
	Note *string `json:"note,omitempty"`
	// Payload is bytes.
	// +optional
	Payload []byte `json:"payload,omitempty"`
	// Stage of the rollout.
	// +optional
	Stage Stage `json:"stage,omitempty"`
	// Size is a number or a string.
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:Type=""
	// +optional
	Size *intstr.IntOrString `json:"size,omitempty"`
	// Defaults holds defaults of every kind.
	// +optional
	Defaults Defaults `json:"defaults,omitempty"`
	// Immutable cannot change.
	// +k8s:immutable
	// +optional
	Immutable string `json:"immutable,omitempty"`
	// Ignored is not serialised.
	Ignored string `json:"-"`

	Shared `json:",inline"`
}

// Shared fields, inlined.
type Shared struct {
	// Owner of the vessel.
	// +kubebuilder:example="someone"
	// +kubebuilder:title="Owner"
	Owner string `json:"owner"`
}

// Defaults has defaults of every value type.
type Defaults struct {
	// +kubebuilder:default={a: "1", b: two}
	// +kubebuilder:example={a: 1, b: "two", c: {x, y}, d: {e: 1.5}}
	Object map[string]string `json:"object,omitempty"`
	// +kubebuilder:default={}
	Empty []string `json:"empty,omitempty"`
	// +kubebuilder:default={x,y}
	List []string `json:"list,omitempty"`
	// +kubebuilder:default=true
	Flag bool `json:"flag,omitempty"`
	// +kubebuilder:default=2.5
	// +kubebuilder:validation:Type=number
	Ratio string `json:"ratio,omitempty"`
	// +default="json"
	JSON string `json:"json,omitempty"`
}

// Route is an entry of an associative list.
type Route struct {
	Name string `json:"name"`
	Port Port   `json:"port"`
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Type=object
	Options map[string]string `json:"options,omitempty"`
}

// Engine is replaced whole.
type Engine struct {
	Power int64 `json:"power"`
	// Rated when the engine was rated.
	Rated *metav1.Time `json:"rated,omitempty"`
}

// VesselStatus is what the controller observed.
type VesselStatus struct {
	Replicas int32  `json:"replicas,omitempty"`
	Selector string `json:"selector,omitempty"`
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true

// VesselList is a list of vessels.
type VesselList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Vessel `json:"items"`
}

// +genclient
// +genclient:nonNamespaced
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster
// +kubebuilder:storageversion

// Harbor is cluster-scoped, with a status only it writes.
type Harbor struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// +optional
	Spec HarborSpec `json:"spec,omitempty"`
}

// HarborSpec is a harbor's size.
type HarborSpec struct {
	// +kubebuilder:validation:Minimum=1
	Berths int `json:"berths"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true

// HarborList is a list of harbors.
type HarborList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Harbor `json:"items"`
}
