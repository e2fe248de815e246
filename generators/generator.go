// Package generators turns a model.Project into in-memory files. Each
// generator is pure: it reads the model and returns files; the caller
// formats, compares and writes them.
package generators

import (
	"github.com/ctrlgen/ctrlgen/generators/gen"
	"github.com/ctrlgen/ctrlgen/internal/model"
)

// Generator produces one kind of output for a whole project.
type Generator interface {
	// Name is what --generators selects it by: deepcopy, register,
	// clientset (with its fake and scheme), lister, informer, controller,
	// crd, rbac.
	Name() string
	Generate(p *model.Project) ([]*gen.File, error)
	// Owns reports whether a file at path (absolute) is one this
	// generator writes for p, so that a run of only some generators
	// removes their stale files and leaves the others' alone.
	Owns(p *model.Project, path string) bool
	// Needs says what the generator asks of a run beyond the model every
	// generator reads.
	Needs() gen.Needs
}
