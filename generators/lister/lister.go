// Package lister generates listers/<group>/<version>: a typed lister per
// kind over an informer's cache.Indexer, with lister-gen's exported API.
// The listing itself is runtime/listers.ResourceIndexer.
package lister

import (
	"github.com/ctrlgen/ctrlgen/generators/gen"
	"github.com/ctrlgen/ctrlgen/generators/tmpl"
	"github.com/ctrlgen/ctrlgen/internal/model"
)

// Generator is the "lister" generator.
type Generator struct{}

func (Generator) Name() string { return "lister" }

// Needs says what the generator asks of a run.
func (Generator) Needs() gen.Needs { return gen.Needs{} }

// Owns is true below listers/.
func (Generator) Owns(p *model.Project, path string) bool {
	return p.InTree(p.ListersPkg, path)
}

// Generate returns a file per kind with a lister and an expansion file per
// version that has any.
func (Generator) Generate(p *model.Project) ([]*gen.File, error) {
	s := tmpl.NewSet(p)
	for _, g := range p.Groups {
		for _, v := range g.Versions {
			kinds := v.ListerKinds()
			for _, k := range kinds {
				s.Add(v.ListerPkg, k.FileName+".go", "listers/kind.go.tmpl", tmpl.Data{P: p, G: g, V: v, K: k})
			}
			if len(kinds) > 0 {
				s.Add(v.ListerPkg, "expansion_generated.go", "listers/expansion_generated.go.tmpl", tmpl.Data{P: p, G: g, V: v})
			}
		}
	}
	return s.Files()
}
