// Package clientset generates the clientset (clientset/versioned unless
// --clientset-name or --versioned-name say otherwise): the typed clients of
// every group version, their fakes and the clientset's scheme, with the
// exported API of client-gen v0.37 (less the Apply methods).
//
// Typed clients embed client-go's gentype clients, as client-gen's do:
// the standard verbs are one generic implementation, maintained upstream,
// and each generated file holds only the interface, a constructor and the
// "+genclient:method=" extras.
package clientset

import (
	"github.com/ctrlgen/ctrlgen/generators/gen"
	"github.com/ctrlgen/ctrlgen/generators/jsondecode"
	"github.com/ctrlgen/ctrlgen/generators/tmpl"
	"github.com/ctrlgen/ctrlgen/internal/model"
)

// Generator is the "clientset" generator.
type Generator struct{}

func (Generator) Name() string { return "clientset" }

// Needs says what the generator asks of a run.
func (Generator) Needs() gen.Needs { return gen.Needs{} }

// Owns is true below the clientset's directory, unless the clientset is
// another's (--versioned-clientset-package).
func (Generator) Owns(p *model.Project, path string) bool {
	return !p.ClientsetExternal && p.InTree(p.ClientsetPkg, path)
}

// Generate returns the clientset's files; none when no kind has a client,
// or when the run uses another clientset (--versioned-clientset-package).
func (Generator) Generate(p *model.Project) ([]*gen.File, error) {
	versions := p.ClientVersions()
	if len(versions) == 0 || p.ClientsetExternal {
		return nil, nil
	}
	s := tmpl.NewSet(p)
	top := tmpl.Data{P: p}
	s.Add(p.ClientsetPkg, "clientset.go", "clientset/clientset.go.tmpl", top)
	s.Add(p.ClientsetSchemePkg, "register.go", "clientset/scheme/register.go.tmpl", top)
	s.Add(p.ClientsetFakePkg, "clientset_generated.go", "clientset/fake/clientset_generated.go.tmpl", top)
	s.Add(p.ClientsetFakePkg, "register.go", "clientset/fake/register.go.tmpl", top)
	for _, v := range versions {
		gv := tmpl.Data{P: p, G: v.Group, V: v}
		groupFile := v.Group.PackageName + "_client.go"
		s.Add(v.TypedClientPkg, groupFile, "clientset/typed/client.go.tmpl", gv)
		s.Add(v.TypedClientPkg, "generated_expansion.go", "clientset/typed/generated_expansion.go.tmpl", gv)
		s.Add(v.TypedClientFakePkg, "fake_"+groupFile, "clientset/typed/fake/client.go.tmpl", gv)
		for _, k := range v.ClientKinds() {
			kd := tmpl.Data{P: p, G: v.Group, V: v, K: k}
			s.Add(v.TypedClientPkg, k.FileName+".go", "clientset/typed/kind.go.tmpl", kd)
			s.Add(v.TypedClientFakePkg, "fake_"+k.FileName+".go", "clientset/typed/fake/kind.go.tmpl", kd)
		}
	}
	// client-gen's package comments, word for word; last, so that a kind
	// named Doc gets the comment on its doc.go.
	s.AddDoc(p.ClientsetSchemePkg, "This package contains the scheme of the automatically generated clientset.")
	s.AddDoc(p.ClientsetFakePkg, "This package has the automatically generated fake clientset.")
	for _, v := range versions {
		s.AddDoc(v.TypedClientPkg, "This package has the automatically generated typed clients.")
		s.AddDoc(v.TypedClientFakePkg, "Package fake has the automatically generated clients.")
	}
	files, err := s.Files()
	if err != nil {
		return nil, err
	}
	for _, v := range versions {
		f, err := jsondecode.File(p, v)
		if err != nil {
			return nil, err
		}
		if f != nil {
			files = append(files, f)
		}
	}
	return files, nil
}
