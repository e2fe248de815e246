// Package v1 stands in for knative.dev/pkg/apis/duck/v1: a package of
// another module, with no apply configurations of its own, whose structs
// the kinds embed as they are.
package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Condition is one condition of a resource.
type Condition struct {
	Type   string `json:"type"`
	Status string `json:"status"`
	// +optional
	Message string `json:"message,omitempty"`
}

// Conditions is a named slice, as knative's.
type Conditions []Condition

// Status is knative's duckv1.Status, embedded inline in every status:
// its fields get With functions of the status that embeds it.
type Status struct {
	// ObservedGeneration is a builtin, not a pointer.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Conditions is a named slice.
	// +optional
	Conditions Conditions `json:"conditions,omitempty"`
	// Annotations is a map.
	// +optional
	Annotations map[string]string `json:"annotations,omitempty"`
	// Selector and Owners have client-go's apply configurations, which
	// a Status, holding Go values, cannot hold.
	// +optional
	Selector *metav1.LabelSelector `json:"selector,omitempty"`
	// +optional
	Owners []metav1.OwnerReference `json:"owners,omitempty"`
	// Addressable is embedded in the embedded struct.
	Addressable `json:",inline"`
}

// Addressable is where a resource is reached.
type Addressable struct {
	// +optional
	Hostname *string `json:"hostname,omitempty"`
	// +optional
	Port int32 `json:"port,omitempty"`
}

// Destination is embedded under a name, as a pointer in the apply
// configuration.
type Destination struct {
	Host string `json:"host"`
	// +optional
	Hosts []string `json:"hosts,omitempty"`
}

// DeepCopyInto copies s into out.
func (s *Status) DeepCopyInto(out *Status) {
	*out = *s
	out.Conditions = append(Conditions(nil), s.Conditions...)
	if s.Annotations != nil {
		out.Annotations = make(map[string]string, len(s.Annotations))
		for k, v := range s.Annotations {
			out.Annotations[k] = v
		}
	}
	out.Selector = s.Selector.DeepCopy()
	if s.Owners != nil {
		out.Owners = make([]metav1.OwnerReference, len(s.Owners))
		for i := range s.Owners {
			s.Owners[i].DeepCopyInto(&out.Owners[i])
		}
	}
	s.Addressable.DeepCopyInto(&out.Addressable)
}

// DeepCopyInto copies a into out.
func (a *Addressable) DeepCopyInto(out *Addressable) {
	*out = *a
	if a.Hostname != nil {
		h := *a.Hostname
		out.Hostname = &h
	}
}

// DeepCopyInto copies d into out.
func (d *Destination) DeepCopyInto(out *Destination) {
	*out = *d
	out.Hosts = append([]string(nil), d.Hosts...)
}

// DeepCopy copies a.
func (a *Addressable) DeepCopy() *Addressable {
	if a == nil {
		return nil
	}
	out := new(Addressable)
	a.DeepCopyInto(out)
	return out
}
