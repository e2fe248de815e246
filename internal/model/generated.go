package model

import "github.com/ctrlgen/ctrlgen/internal/typegraph"

// Register is what a package's zz_generated.register.go declares: the
// register-gen identifiers the package does not declare itself.
type Register struct {
	GroupName          bool // const GroupName
	GroupVersion       bool // var GroupVersion (a metav1.GroupVersion)
	SchemeGroupVersion bool // var SchemeGroupVersion (a schema.GroupVersion)
	Resource           bool // func Resource(string) schema.GroupResource
	// SchemeBuilder covers SchemeBuilder, localSchemeBuilder, AddToScheme,
	// the init that registers addKnownTypes, and addKnownTypes, which
	// only make sense together.
	SchemeBuilder bool
	// Install is register-gen's new name for AddToScheme, declared with
	// SchemeBuilder unless the package has one.
	Install bool
	// Types are what addKnownTypes registers: the types that embed
	// TypeMeta, sorted.
	Types []string
}

// DeepCopy is a package's deep-copy configuration, read from
// "+k8s:deepcopy-gen" (or kubebuilder's "+kubebuilder:object:generate").
type DeepCopy struct {
	// All is "+k8s:deepcopy-gen=package": every copyable type gets deep-copy
	// functions unless it opts out.
	All bool
	// Types are the package's type declarations, sorted by name.
	Types []*DeepCopyType
}

// Selects reports whether the package's markers ask for t's deep-copy
// functions: every type under "=package" unless it opts out, otherwise
// the types that opt in. Whether t can have them is the generator's call.
func (dc *DeepCopy) Selects(t *DeepCopyType) bool {
	if dc.All {
		return t.Enabled == nil || *t.Enabled
	}
	return t.Enabled != nil && *t.Enabled
}

// DeepCopyType is one type declaration and its deep-copy markers.
type DeepCopyType struct {
	Type *typegraph.Type
	// Enabled is the type's own "+k8s:deepcopy-gen=true|false"; nil when
	// it has none.
	Enabled *bool
	// Interfaces get a DeepCopy<Name> method each, sorted by full name:
	// from "+k8s:deepcopy-gen:interfaces=", and runtime.Object for
	// "+kubebuilder:object:root" types, +genclient kinds and their lists.
	Interfaces []*typegraph.Type
	// NonPointerInterfaces puts those methods on the value receiver.
	NonPointerInterfaces bool
}
