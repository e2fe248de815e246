package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// +genclient

// Region uses two types whose deep copies are written by hand.
type Region struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Shape   Polygon  `json:"shape"`
	Corners Points   `json:"corners,omitempty"`
	Outline *Polygon `json:"outline,omitempty"`
}

// RegionList is a list of Regions.
type RegionList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Region `json:"items"`
}

// Polygon has a hand-written DeepCopyInto (deepcopy.go).
type Polygon struct {
	Points []Point `json:"points"`
}

// Point is plain data.
type Point struct {
	X, Y float64
}

// Points has a hand-written DeepCopy only (deepcopy.go).
type Points []Point
