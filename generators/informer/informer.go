// Package informer generates informers/externalversions: the
// SharedInformerFactory, its group and version accessors, a typed
// informer per kind over runtime/cache, ForResource and the
// internalinterfaces package. The factory's mechanics are
// runtime/informers.Factory, which the generated factory embeds.
package informer

import (
	"github.com/ctrlgen/ctrlgen/generators/gen"
	"github.com/ctrlgen/ctrlgen/generators/tmpl"
	"github.com/ctrlgen/ctrlgen/internal/model"
)

// Generator is the "informer" generator.
type Generator struct{}

func (Generator) Name() string { return "informer" }

// Needs says what the generator asks of a run.
func (Generator) Needs() gen.Needs { return gen.Needs{} }

// Owns is true below informers/externalversions.
func (Generator) Owns(p *model.Project, path string) bool {
	return p.InTree(p.InformersPkg, path)
}

// Generate returns the factory's files; none when no kind has an informer.
func (Generator) Generate(p *model.Project) ([]*gen.File, error) {
	groups := p.InformerGroups()
	if len(groups) == 0 {
		return nil, nil
	}
	s := tmpl.NewSet(p)
	top := tmpl.Data{P: p}
	s.Add(p.InformersPkg, "factory.go", "informers/factory.go.tmpl", top)
	s.Add(p.InformersPkg, "generic.go", "informers/generic.go.tmpl", top)
	s.Add(p.InternalInterfacesPkg, "factory_interfaces.go", "informers/internalinterfaces/factory_interfaces.go.tmpl", top)
	for _, g := range groups {
		s.Add(g.InformerGroupPkg(), "interface.go", "informers/group/interface.go.tmpl", tmpl.Data{P: p, G: g})
		for _, v := range g.InformerVersions() {
			s.Add(v.InformerPkg, "interface.go", "informers/version/interface.go.tmpl", tmpl.Data{P: p, G: g, V: v})
			for _, k := range v.InformerKinds() {
				s.Add(v.InformerPkg, k.FileName+".go", "informers/version/kind.go.tmpl", tmpl.Data{P: p, G: g, V: v, K: k})
			}
		}
	}
	return s.Files()
}
