// Package jsondecode writes, into each typed client package of a
// clientset, zz_generated.jsondecode.go: a JSON decode function for every
// Go type the group version's kinds reach, without reflection, with the
// semantics of the decoder apimachinery's JSON serializer uses
// (sigs.k8s.io/json's UnmarshalCaseSensitivePreserveInts), and the list
// of the kinds they decode, which the client's setConfigDefaults hands to
// runtime/jsoncodec's NegotiatedSerializer. Everything it adds to the
// package is unexported: the clientset's exported API stays client-gen's.
//
// A value generated code does not decode itself is handed to
// sigs.k8s.io/json at run time (Decoder.Fallback): named pointer types,
// non-empty interfaces, interfaces that already hold a value, channels,
// functions, complex numbers, generic types, anonymous struct types,
// pointers to pointers, slices of named byte types, maps whose keys have
// an UnmarshalText or UnmarshalJSON method or are not strings or
// integers, unexported types of other packages, types whose methods
// cannot be told from the syntax (an embedded interface), and structs
// with a field reached through an unexported embedded struct or with
// ",string" on a type that has an unmarshaler.
package jsondecode

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctrlgen/ctrlgen/generators/gen"
	"github.com/ctrlgen/ctrlgen/internal/goname"
	"github.com/ctrlgen/ctrlgen/internal/model"
	"github.com/ctrlgen/ctrlgen/internal/typegraph"
)

// FileName is the file written into each typed client package.
const FileName = "zz_generated.jsondecode.go"

// KindsVar is the variable the file declares with the kinds it decodes.
const KindsVar = "jsonKinds"

// File returns v's typed client package's decoder file, or nil when v's
// clients decode no JSON with generated code.
func File(p *model.Project, v *model.Version) (*gen.File, error) {
	if !v.JSONDecoders {
		return nil, nil
	}
	dir := filepath.Join(p.OutputDir, strings.TrimPrefix(v.TypedClientPkg, p.OutputPkg+"/"))
	f := gen.NewFile(filepath.Join(dir, FileName), filepath.Base(dir), v.TypedClientPkg)
	e := newEmitter(f, "jsonDecode", shippedFunc, func(pkg string) string {
		if pkg == v.TypesPkg {
			return ""
		}
		return goname.UpperFirst(importAlias(pkg))
	})
	var roots []string
	for _, k := range v.ClientKinds() {
		types := []*typegraph.Type{}
		if len(k.Verbs) > 0 {
			types = append(types, k.Type)
		}
		if k.Has(model.VerbList) {
			// gentype's list client needs it to be a runtime.Object;
			// without the verb it may not be one.
			types = append(types, k.ListType)
		}
		for _, t := range types {
			if t != nil && t.Kind == typegraph.Struct {
				if fn := e.funcFor(t); !slices.Contains(roots, fn) {
					roots = append(roots, fn)
				}
			}
		}
	}
	e.p("// %s are the kinds of %s/%s the typed clients decode with the functions\n", KindsVar, v.Group.Name, v.Name)
	e.p("// below, without reflection, rather than with apimachinery's JSON serializer.\n")
	e.p("var %s = []%sKind{\n", KindsVar, e.rt)
	for _, fn := range roots {
		e.p("%sNewKind(%s),\n", e.rt, fn)
	}
	e.p("}\n\n")
	sch := f.ImportAs(p.ClientsetSchemePkg, "scheme")
	e.p("// The generated informers' watches, which decode with the clientset's\n")
	e.p("// scheme rather than through these clients, find %s by it.\n", KindsVar)
	e.p("func init() { %sRegister(%s.Scheme, %s...) }\n\n", e.rt, sch, KindsVar)
	if err := e.flush(); err != nil {
		return nil, err
	}
	return f, nil
}
