package builder

import (
	"go/ast"
	"go/token"
	"slices"
	"sort"

	"github.com/ctrlgen/ctrlgen/internal/loader"
	"github.com/ctrlgen/ctrlgen/internal/markers"
	"github.com/ctrlgen/ctrlgen/internal/model"
)

// declared returns the package-level names the package's files declare
// (ctrlgen's own outputs are not among the files).
func declared(p *loader.Package) map[string]bool {
	names := map[string]bool{}
	for _, f := range p.Files {
		for _, d := range f.Syntax.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					names[d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						names[s.Name.Name] = true
					case *ast.ValueSpec:
						for _, n := range s.Names {
							names[n.Name] = true
						}
					}
				}
			}
		}
	}
	return names
}

// register decides what zz_generated.register.go declares, as register-gen
// would: for a package with +groupName (unless +k8s:register-gen=false)
// and types that embed TypeMeta. A package that declares none of it gets
// register-gen's file. Only what the package lacks is declared, so a
// kubebuilder package (GroupVersion, SchemeBuilder and AddToScheme in
// groupversion_info.go) gets the GroupName, SchemeGroupVersion and
// Resource that generated clients and listers use.
func (b *builder) register(a *apiPackage, decls map[string]bool, hasRegister bool) *model.Register {
	if on, set := markers.RegisterGen.Get(a.markers); hasRegister || set && !on {
		return nil
	}
	r := &model.Register{
		GroupName:          !decls["GroupName"],
		GroupVersion:       !decls["GroupVersion"],
		SchemeGroupVersion: !decls["SchemeGroupVersion"],
		Resource:           !decls["Resource"],
		SchemeBuilder:      !decls["SchemeBuilder"] && !decls["localSchemeBuilder"] && !decls["AddToScheme"] && !decls["addKnownTypes"],
	}
	r.Install = r.SchemeBuilder && !decls["Install"]
	// register-gen registers every type whose underlying struct embeds
	// TypeMeta, "type Gateway v1.Gateway" included; not aliases, which
	// are registered where their type is declared.
	for _, t := range a.types {
		if t.spec.Assign.IsValid() || !token.IsExported(t.spec.Name.Name) {
			continue
		}
		fields, _, err := b.fields(a, t)
		if err != nil {
			b.errorf(b.prog.Fset.Position(t.spec.Name.Pos()), "%s: %v", t.spec.Name.Name, err)
			continue
		}
		if slices.Contains(fields, field{name: "TypeMeta", embedded: true}) {
			r.Types = append(r.Types, t.spec.Name.Name)
		}
	}
	sort.Strings(r.Types)
	if len(r.Types) == 0 {
		return nil
	}
	return r
}
