package model

import (
	"go/token"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// This file holds what the controller generator needs: a kind's
// "+ctrlgen:controller" configuration, and the names and decisions the
// builder derives for it once every kind of the run is known
// (builder/controller.go).

// Controller is a kind's "+ctrlgen:controller" configuration.
type Controller struct {
	// Owns are the kinds the controller watches through owner references,
	// in marker order.
	Owns []*Owned
	// Finalizer is the finalizer the controller adds; may be empty.
	Finalizer string
	// Expectations, from +ctrlgen:controller:expectations, puts Reconcile
	// off until the owned objects it created or deleted are observed.
	Expectations bool
	// StatusApply, from +ctrlgen:controller:statusApply, writes status by
	// server-side apply instead of UpdateStatus; StatusApplyPos is where
	// the marker is.
	StatusApply    bool
	StatusApplyPos token.Position
	// UpdateFilters, from +ctrlgen:controller:filter= and a hand-written
	// FilterUpdate method, decide which updates of the kind are
	// reconciled: those any of them passes (runtime/controller's
	// Options.UpdateFilter).
	UpdateFilters []UpdateFilter
	// SkipOwnStatusWrites, from +ctrlgen:controller:filter=ownStatusWrites,
	// drops the update the controller's own status write made;
	// FilterPos is where the marker is.
	SkipOwnStatusWrites bool
	FilterPos           token.Position
	// Pos is where the +ctrlgen:controller marker is.
	Pos token.Position

	// The rest is filled by the builder after the markers are read.

	// Name is what the controller is called by the manager (--controllers),
	// in its queue, metrics, logs and events: the package name, "mydemo".
	Name string
	// Pkg is the import path of the controller's package,
	// <ControllersPkg>/<lower-case kind>; PkgName its name; Dir its directory.
	Pkg     string
	PkgName string
	Dir     string

	// ListerField is the Controller struct's field holding the kind's
	// lister: "mydemoLister".
	ListerField string

	// StatusWriteBack is true when the controller writes status back
	// through the status subresource: the kind has a status, the
	// updateStatus verb, a status subresource (for kubebuilder kinds,
	// +kubebuilder:subresource:status) and a Status field of a named
	// struct type.
	StatusWriteBack bool
	// StatusDeepCopyInto is true when the Status field's type has (or this
	// run gives it) a DeepCopyInto method; otherwise the status is copied
	// through the kind's DeepCopy.
	StatusDeepCopyInto bool
	// ObservedGeneration is true when the Status struct has a field
	// "ObservedGeneration int64" (promoted fields count), which the
	// controller then sets after each successful Reconcile.
	ObservedGeneration bool
	// ObservedGenerationPath is its JSON path, ["status",
	// "observedGeneration"], which a status apply always sends.
	ObservedGenerationPath []string
	// APIVersion is the kind's, "crddemo.k8s.io/v1", which a status apply
	// sets on the objects it reads and sends.
	APIVersion string

	// What the hand-written files of the package (every .go file in Dir
	// but tests and ctrlgen's own) define on *Controller.
	HasReconcile bool
	HasFinalize  bool
	// HasDeleted wires the user's Deleted(ctx, key) method, called for keys
	// whose object is gone.
	HasDeleted bool
	// HasFilterUpdate adds the user's FilterUpdate(old, obj) method to
	// UpdateFilters.
	HasFilterUpdate bool

	// Kube is set when the controller owns a built-in kind from the tree
	// the ctrlgen module ships (Owned.Builtin): the controller then also
	// takes that tree's clientset, and its informer factory when one of
	// them is cached whole.
	Kube *Kube
	// Metadata is set when an owned kind is cached as metadata alone
	// (Owned.MetadataOnly): the controller then takes a metadata
	// informer factory.
	Metadata bool
}

// UpdateFilter is one filter of a controller's updates: a function of
// runtime/controller, "GenerationChanged", or the user's FilterUpdate.
type UpdateFilter struct {
	Func string
	User bool
}

// Kube names the informers the ctrlgen module ships for k8s.io/api and
// the clientset they take.
type Kube struct {
	ClientsetPkg string // "k8s.io/client-go/kubernetes"
	InformersPkg string // "github.com/ctrlgen/ctrlgen/runtime/kube/informers"
	// Factory is true when a built-in owned kind is cached whole, through
	// an informer of InformersPkg.
	Factory bool
}

// Owned is one "+ctrlgen:controller:owns=" kind.
type Owned struct {
	// GVK is what the marker names.
	GVK schema.GroupVersionKind
	// Pos is where the marker is.
	Pos token.Position
	// Kind is the owned kind, found among the run's kinds, so that it has
	// an informer in the same generated factory; or else, Builtin, a
	// kind of k8s.io/api, with its informer in the factory the ctrlgen
	// module ships (Controller.Kube).
	Kind    *Kind
	Builtin bool
	// ListerField is the Controller struct's field holding the owned
	// kind's lister, "configMapLister"; InformerVar the variable New keeps
	// its informer in, "configMaps".
	ListerField string
	InformerVar string
	// Self is true when the kind owns objects of its own kind: the
	// controller's own lister and informer then serve.
	Self bool
	// MetadataOnly, from owns=…,metadataOnly, caches the objects'
	// metadata alone (metav1.PartialObjectMetadata) through the metadata
	// client; ListerField is then a metadatalister.Lister.
	MetadataOnly bool

	// AdoptPath is adopt='s path of the owner's label selector field,
	// "spec.selector"; empty when the controller adopts nothing.
	AdoptPath string
	// Adopt is set by the builder when AdoptPath resolves.
	Adopt *Adopt
}

// Adopt is how a controller claims the objects of an owned kind by its
// label selector, as kube-controller-manager's ControllerRefManager does.
type Adopt struct {
	// Selector is the Go expression of the selector field on "obj",
	// "obj.Spec.Selector"; SelectorPointer is true when it is a
	// *metav1.LabelSelector rather than a metav1.LabelSelector.
	Selector        string
	SelectorPointer bool
	// Field is the Controller struct's field holding the adoption,
	// "configMapAdoption"; ClaimMethod the generated method that claims
	// the owned objects, "ClaimConfigMaps".
	Field       string
	ClaimMethod string
}

// ControllerKinds are the kinds with a controller, in model order.
func (p *Project) ControllerKinds() []*Kind {
	var out []*Kind
	for _, g := range p.Groups {
		for _, v := range g.Versions {
			out = append(out, v.kinds(func(k *Kind) bool { return k.Controller != nil })...)
		}
	}
	return out
}

// WritesUserFile reports whether the run writes the controller's
// hand-edited file: only while the package has no Reconcile of its own, so
// that a user who moved Reconcile to another file never gets a second one.
func (c *Controller) WritesUserFile() bool { return !c.HasReconcile }
