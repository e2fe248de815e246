// Package controller generates a package per +ctrlgen:controller kind,
// in the shape of kube-controller-manager's controllers (the
// DeploymentController, the ReplicationManager) with the loop delegated
// to runtime/controller:
//
//   - zz_generated.controller.go, rewritten every run: the Controller
//     struct (clientset, listers of the kind and of the kinds it owns,
//     event recorder), New over a generated SharedInformerFactory, Init
//     for runtime/manager, and Run, Name and HasSynced. An owned built-in
//     kind (k8s.io/api) that the run does not generate is watched through
//     the informers the ctrlgen module ships (kube/informers), on
//     client-go's kubernetes.Interface, which New and the Controller
//     then take as well (kubeClient, kubeFactory);
//   - reconcile.go, written once for the user to edit: a working
//     Reconcile (and Finalize with a finalizer). It is written only while
//     the package declares no Reconcile, and never overwritten or removed.
//
// Which options the wiring sets (status write-back, observedGeneration,
// finalizer, Deleted, owned kinds) is decided by the builder, in
// model.Controller.
package controller

import (
	"path/filepath"

	"github.com/ctrlgen/ctrlgen/generators/gen"
	"github.com/ctrlgen/ctrlgen/generators/tmpl"
	"github.com/ctrlgen/ctrlgen/internal/model"
)

const (
	// WiringFile is rewritten on every run.
	WiringFile = "zz_generated.controller.go"
	// UserFile is written once, for the user to edit.
	UserFile = "reconcile.go"
)

// Generator is the "controller" generator.
type Generator struct{}

func (Generator) Name() string { return "controller" }

// Needs says what the generator asks of a run.
func (Generator) Needs() gen.Needs { return gen.Needs{DeepCopies: true} }

// Owns is true for the wiring of a package in the controllers directory;
// reconcile.go is the user's and never removed.
func (Generator) Owns(p *model.Project, path string) bool {
	return filepath.Base(path) == WiringFile && p.ControllersDir != "" &&
		filepath.Dir(filepath.Dir(path)) == filepath.Clean(p.ControllersDir)
}

// Generate returns the files of every controller package.
func (Generator) Generate(p *model.Project) ([]*gen.File, error) {
	s := tmpl.NewSet(p)
	for _, k := range p.ControllerKinds() {
		c := k.Controller
		data := tmpl.Data{P: p, G: k.Version.Group, V: k.Version, K: k}
		s.AddFile(gen.NewFile(filepath.Join(c.Dir, WiringFile), c.PkgName, c.Pkg), "controller/zz_generated.controller.go.tmpl", data)
		if c.WritesUserFile() {
			f := gen.NewFile(filepath.Join(c.Dir, UserFile), c.PkgName, c.Pkg)
			f.Generated = false
			s.AddFile(f, "controller/reconcile.go.tmpl", data)
		}
	}
	return s.Files()
}
