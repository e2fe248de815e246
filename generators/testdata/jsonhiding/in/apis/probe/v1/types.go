package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// +genclient

// Probe is shaped as prometheus-operator's ProbeSpec: fields of embedded
// structs that encoding/json hides behind others of the same name.
type Probe struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              ProbeSpec `json:"spec"`
}

// ProbeSpec has an Authorization of its own, which hides HTTPConfig's.
type ProbeSpec struct {
	// +optional
	Authorization *Authorization `json:"authorization,omitempty"`
	HTTPConfig    `json:",inline"`
	Left          `json:",inline"`
	Right         `json:",inline"`
}

// HTTPConfig embeds a struct with an Authorization of its own.
type HTTPConfig struct {
	HTTPConfigWithoutTLS `json:",inline"`
	// +optional
	TLS *string `json:"tls,omitempty"`
}

// HTTPConfigWithoutTLS is two levels down.
type HTTPConfigWithoutTLS struct {
	// +optional
	Authorization *Authorization `json:"authorization,omitempty"`
	// +optional
	FollowRedirects *bool `json:"followRedirects,omitempty"`
}

// Left and Right both have a Host at the same depth: Left's is tagged
// with the name, Right's is not, and loses.
type Left struct {
	// +optional
	Port int32 `json:"port,omitempty"`
	// +optional
	Host string `json:"Host,omitempty"`
}

// Right is Left's twin.
type Right struct {
	// +optional
	Host string
}

// Authorization is a credential.
type Authorization struct {
	Type string `json:"type"`
}

// ProbeList is a list of Probes.
type ProbeList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Probe `json:"items"`
}
