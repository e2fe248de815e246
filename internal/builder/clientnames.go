package builder

import (
	"go/token"
	"strings"

	"github.com/ctrlgen/ctrlgen/internal/goname"
	"github.com/ctrlgen/ctrlgen/internal/model"
)

// DeriveClientNames fills the model fields marked "filled by
// DeriveClientNames" from those the builder has already set. It may be
// called again.
func DeriveClientNames(p *model.Project) {
	for _, g := range p.Groups {
		g.APIPath = "/apis"
		if g.Name == "" {
			g.APIPath = "/api"
		}
		for _, v := range g.Versions {
			v.ClientsetField = goname.LowerFirst(v.GroupVersionGoName)
			v.TypedClientAlias = "typed" + v.TypesAlias
			v.TypedClientFakeAlias = "fake" + v.TypesAlias
			v.ListerAlias = "listers" + v.TypesAlias
			v.ApplyConfigAlias = "applyconfiguration" + v.TypesAlias
			for _, k := range v.Kinds {
				k.FileName = strings.ToLower(k.Name)
				k.LowerPluralGoName = goname.LowerFirst(k.PluralGoName)
				k.VarName = varName(k.Name)
				k.QualifiedResource = strings.TrimSuffix(k.Plural+"."+v.Name+"."+g.Name, ".")
				for _, m := range k.Methods {
					m.InputVar = varName(m.Input.Name)
				}
			}
		}
	}
}

// reservedVarNames are the import aliases and local names of generated
// client methods: a parameter of that name would shadow them.
var reservedVarNames = map[string]bool{
	// import aliases
	"context": true, "time": true, "metav1": true, "types": true, "watch": true,
	"scheme": true, "gentype": true, "testing": true, "fakeclient": true,
	// names in method bodies
	"c": true, "ctx": true, "opts": true, "options": true, "name": true, "result": true,
	"err": true, "pt": true, "data": true, "subresources": true, "timeout": true,
}

// varName is a parameter name for an object of type typeName: the type
// with a lower-case first letter, suffixed when that would be a keyword,
// a predeclared identifier or a name the generated code uses.
func varName(typeName string) string {
	s := goname.LowerFirst(typeName)
	if token.IsKeyword(s) || reservedVarNames[s] || predeclaredNames[s] {
		s += "Obj"
	}
	return s
}

var predeclaredNames = map[string]bool{
	"any": true, "bool": true, "byte": true, "error": true, "string": true, "int": true,
	"len": true, "cap": true, "new": true, "make": true, "append": true, "copy": true,
	"nil": true, "true": true, "false": true, "close": true, "delete": true, "panic": true,
	"recover": true, "print": true, "println": true, "complex": true, "real": true,
	"imag": true, "clear": true, "min": true, "max": true, "iota": true, "rune": true,
	"uint": true, "float64": true, "float32": true, "int64": true, "int32": true,
}
