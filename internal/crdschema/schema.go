package crdschema

import (
	"fmt"
	"go/ast"
	"path"
	"slices"
	"strings"

	"github.com/ctrlgen/ctrlgen/internal/markers"
	"github.com/ctrlgen/ctrlgen/internal/model"
)

// schemas builds the schema of each Go type, as controller-gen's first
// pass does: a named type used inside another is a reference (Ref), with
// whatever the use adds (the field's markers and description), resolved
// later by flatten.
type schemas struct {
	x   *index
	raw map[model.TypeRef]*model.Schema
	// flat holds resolved schemas; a nil entry is one being resolved,
	// which a recursive reference sees as empty, as controller-gen does.
	flat map[model.TypeRef]*model.Schema
	errs []error
}

func (s *schemas) errorf(pos fmt.Stringer, format string, args ...any) {
	s.errs = append(s.errs, fmt.Errorf("%s: %s", pos, fmt.Sprintf(format, args...)))
}

type posString string

func (p posString) String() string { return string(p) }

func at(t *typeInfo) fmt.Stringer {
	pos := t.load().pos
	return posString(fmt.Sprintf("%s:%d", pos.Filename, pos.Line))
}

// typeSchema is the schema of a named type, before references are resolved.
func (s *schemas) typeSchema(t *typeInfo) *model.Schema {
	ref := model.TypeRef{Pkg: t.pkg.path, Name: t.name}
	if sc, ok := s.raw[ref]; ok {
		return sc
	}
	s.raw[ref] = &model.Schema{}
	sc := s.infoToSchema(t)
	s.raw[ref] = sc
	return sc
}

func (s *schemas) infoToSchema(t *typeInfo) *model.Schema {
	switch {
	case s.hasMethod(t, "MarshalJSON", map[*typeInfo]bool{}):
		sc := &model.Schema{}
		s.applyMarkers(t.load().markers, sc, at(t), t)
		if sc.Type != "" {
			return sc
		}
	case s.hasMethod(t, "MarshalText", map[*typeInfo]bool{}):
		sc := &model.Schema{Type: "string"}
		s.applyMarkers(t.load().markers, sc, at(t), t)
		if sc.Type != "string" {
			s.errorf(at(t), "%s implements encoding.TextMarshaler but its schema type is %q, not string", t.name, sc.Type)
		}
		return sc
	}
	sc := s.exprSchema(t, t.spec.Type, true)
	sc.Description = t.load().doc
	s.applyMarkers(t.load().markers, sc, at(t), t)
	return sc
}

// hasMethod reports whether t, or a type it embeds, declares the method.
func (s *schemas) hasMethod(t *typeInfo, name string, seen map[*typeInfo]bool) bool {
	if t.pkg.methods[t.name][name] {
		return true
	}
	if seen[t] {
		return false
	}
	seen[t] = true
	for _, f := range t.load().fields {
		if !f.embedded {
			continue
		}
		if et := s.resolveNamed(t, deref(f.expr)); et != nil && s.hasMethod(et, name, seen) {
			return true
		}
	}
	return false
}

func deref(e ast.Expr) ast.Expr {
	if st, ok := e.(*ast.StarExpr); ok {
		return st.X
	}
	return e
}

// resolveNamed finds the declaration an identifier or selector in t's file
// names; nil for builtins and anything else.
func (s *schemas) resolveNamed(t *typeInfo, e ast.Expr) *typeInfo {
	switch e := e.(type) {
	case *ast.Ident:
		return t.pkg.types[e.Name]
	case *ast.SelectorExpr:
		if id, ok := e.X.(*ast.Ident); ok {
			nt, err := s.x.lookupSelector(t.file, id.Name, e.Sel.Name)
			if err == nil {
				return nt
			}
		}
	}
	return nil
}

// exprSchema is typeToSchema: the schema of a type expression appearing
// in t's declaration. top says e is t's own definition.
func (s *schemas) exprSchema(t *typeInfo, e ast.Expr, top bool) *model.Schema {
	switch e := e.(type) {
	case *ast.Ident:
		return s.identSchema(t, e)
	case *ast.SelectorExpr:
		return s.selectorSchema(t, e)
	case *ast.ArrayType:
		return s.arraySchema(t, e)
	case *ast.MapType:
		return s.mapSchema(t, e)
	case *ast.StarExpr:
		return s.exprSchema(t, e.X, false)
	case *ast.StructType:
		if !top {
			s.errorf(at(t), "%s: inline struct types are not supported, use a named type instead", t.name)
			return &model.Schema{Type: "object"}
		}
		return s.structSchema(t)
	case *ast.InterfaceType:
		s.errorf(at(t), "%s: interface type is not supported in CRD schemas; consider using an explicit type or apiextensionsv1.JSON instead", t.name)
		return &model.Schema{}
	}
	s.errorf(at(t), "%s: unsupported type expression %T", t.name, e)
	return &model.Schema{}
}

var builtins = map[string][2]string{
	"bool": {"boolean", ""}, "string": {"string", ""},
	"int": {"integer", ""}, "int8": {"integer", ""}, "int16": {"integer", ""}, "int32": {"integer", "int32"}, "int64": {"integer", "int64"},
	"uint": {"integer", ""}, "uint8": {"integer", ""}, "uint16": {"integer", ""}, "uint32": {"integer", "int32"}, "uint64": {"integer", "int64"},
	"byte": {"integer", ""}, "rune": {"integer", "int32"}, "uintptr": {"integer", ""},
}

func (s *schemas) identSchema(t *typeInfo, id *ast.Ident) *model.Schema {
	if nt := t.pkg.types[id.Name]; nt != nil {
		return s.namedRef(nt, true)
	}
	if b, ok := builtins[id.Name]; ok {
		return &model.Schema{Type: b[0], Format: b[1]}
	}
	switch id.Name {
	case "float32", "float64":
		s.errorf(at(t), "%s: found float, the usage of which is highly discouraged, as support for them varies across languages. Please consider serializing your float as string instead", t.name)
		return &model.Schema{}
	case "any", "error":
		s.errorf(at(t), "%s: interface type %s is not supported in CRD schemas; consider using an explicit type or apiextensionsv1.JSON instead", t.name, id.Name)
		return &model.Schema{}
	}
	s.errorf(at(t), "%s: unknown type %s", t.name, id.Name)
	return &model.Schema{}
}

func (s *schemas) selectorSchema(t *typeInfo, e *ast.SelectorExpr) *model.Schema {
	id, ok := e.X.(*ast.Ident)
	if !ok {
		s.errorf(at(t), "%s: unsupported type expression", t.name)
		return &model.Schema{}
	}
	if ref, ok := knownSelector(t.file, id.Name, e.Sel.Name); ok {
		return &model.Schema{Ref: &ref}
	}
	nt, err := s.x.lookupSelector(t.file, id.Name, e.Sel.Name)
	if err != nil {
		s.errorf(at(t), "%s: %v", t.name, err)
		return &model.Schema{}
	}
	return s.namedRef(nt, false)
}

// knownSelector is the reference pkgName.name makes in file f when it
// names a type knownSchema has, found without reading its package: the
// import is named pkgName or, unnamed, its path ends in pkgName (which
// every known package's name does).
func knownSelector(f *fileInfo, pkgName, name string) (model.TypeRef, bool) {
	ip, ok := f.imports[pkgName]
	if !ok {
		ip, ok = f.guessed[pkgName]
		ok = ok && path.Base(ip) == pkgName
	}
	ref := model.TypeRef{Pkg: ip, Name: name}
	if !ok {
		return ref, false
	}
	_, known := knownSchema(ref)
	return ref, known
}

// underlying is what a chain of named types ends in: the declaration
// whose type expression is not a name, and that expression.
func (s *schemas) underlying(t *typeInfo) (*typeInfo, ast.Expr) {
	for range 32 {
		next := s.resolveNamed(t, t.spec.Type)
		if next == nil {
			break
		}
		t = next
	}
	return t, t.spec.Type
}

// namedRef is the schema of a use of the named type nt: a reference, plus
// the type when controller-gen spells it out at the use (slices, maps
// and, for types of the same package, builtins).
func (s *schemas) namedRef(nt *typeInfo, local bool) *model.Schema {
	ref := model.TypeRef{Pkg: nt.pkg.path, Name: nt.name}
	sc := &model.Schema{Ref: &ref}
	if _, known := knownSchema(ref); known {
		return sc
	}
	ut, u := s.underlying(nt)
	switch u := u.(type) {
	case *ast.ArrayType:
		if u.Len == nil {
			sc.Type = "array"
		}
	case *ast.MapType:
		sc.Type = "object"
	case *ast.Ident:
		if local && ut.pkg.types[u.Name] == nil {
			named := s.typeSchema(nt)
			sc.Type, sc.Format = named.Type, named.Format
		}
	case *ast.InterfaceType:
		s.errorf(at(nt), "cannot generate schema for %s; interface type is not supported in CRD schemas, consider using an explicit type or apiextensionsv1.JSON instead", nt.name)
		return &model.Schema{}
	}
	return sc
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

func (s *schemas) arraySchema(t *typeInfo, a *ast.ArrayType) *model.Schema {
	if a.Len == nil && isIdent(a.Elt, "byte") && t.pkg.types["byte"] == nil {
		return &model.Schema{Type: "string", Format: "byte"}
	}
	return &model.Schema{Type: "array", Items: s.exprSchema(t, a.Elt, false)}
}

func (s *schemas) mapSchema(t *typeInfo, m *ast.MapType) *model.Schema {
	if !s.stringKey(t, m.Key) {
		s.errorf(at(t), "%s: map keys must be strings or implement encoding.TextMarshaler", t.name)
		return &model.Schema{}
	}
	var val *model.Schema
	switch v := m.Value.(type) {
	case *ast.Ident, *ast.SelectorExpr, *ast.ArrayType, *ast.StarExpr, *ast.MapType:
		val = s.exprSchema(t, v, false)
	default:
		s.errorf(at(t), "%s: not a supported map value type: %T", t.name, m.Value)
		return &model.Schema{}
	}
	return &model.Schema{Type: "object", AdditionalProperties: val}
}

func (s *schemas) stringKey(t *typeInfo, key ast.Expr) bool {
	if isIdent(key, "string") {
		return true
	}
	nt := s.resolveNamed(t, key)
	if nt == nil {
		return false
	}
	if s.hasMethod(nt, "MarshalText", map[*typeInfo]bool{}) {
		return true
	}
	ut, u := s.underlying(nt)
	id, ok := u.(*ast.Ident)
	return ok && id.Name == "string" && ut.pkg.types["string"] == nil
}

func (s *schemas) structSchema(t *typeInfo) *model.Schema {
	props := &model.Schema{Type: "object", Properties: map[string]*model.Schema{}}
	oneOf := map[string]bool{}
	for _, d := range []*markers.Definition[[]string]{markers.AtMostOneOf, markers.ExactlyOneOf, markers.AtLeastOneOf} {
		for _, v := range d.All(t.load().markers) {
			for _, f := range v.V {
				oneOf[f] = true
			}
		}
	}
	defaultOptional := markers.ValidationOptional.Has(t.pkg.markers)
	var immutable []string
	for _, f := range t.load().fields {
		fpos := posString(fmt.Sprintf("%s:%d", f.pos.Filename, f.pos.Line))
		if !f.hasTag {
			s.errorf(fpos, "encountered struct field %q without JSON tag in type %q", f.name, t.name)
			continue
		}
		opts := strings.Split(f.tag.Get("json"), ",")
		if len(opts) == 1 && opts[0] == "-" {
			continue
		}
		inline, omitEmpty := false, false
		for _, o := range opts[1:] {
			switch o {
			case "inline":
				inline = true
			case "omitempty", "omitzero":
				omitEmpty = true
			}
		}
		name := opts[0]
		inline = inline || name == ""
		m := f.markers
		required := false
		switch {
		case markers.ValidationOptional.Has(m):
		case markers.ValidationRequired.Has(m):
			required = true
		case markers.Optional.Has(m), markers.K8sOptional.Has(m):
		case markers.Required.Has(m), markers.K8sRequired.Has(m):
			required = true
		case !defaultOptional:
			if !inline && !omitEmpty {
				if oneOf[name] {
					s.errorf(fpos, "field %s is part of OneOf constraint and must have omitempty or omitzero tag", name)
					return props
				}
				props.Required = append(props.Required, name)
			}
		}
		if required {
			if oneOf[name] {
				s.errorf(fpos, "field %s is part of OneOf constraint and cannot be marked as required", name)
				return props
			}
			props.Required = append(props.Required, name)
		}
		var ps *model.Schema
		if markers.Schemaless.Has(m) {
			ps = &model.Schema{}
		} else {
			ps = s.exprSchema(t, f.expr, false)
		}
		ps.Description = f.doc
		s.applyMarkers(m, ps, fpos, nil)
		if inline {
			props.AllOf = append(props.AllOf, ps)
			continue
		}
		if markers.Immutable.Has(m) {
			immutable = append(immutable, name)
		}
		props.Properties[name] = ps
	}
	slices.Sort(props.Required)
	for _, name := range immutable {
		if slices.Contains(props.Required, name) {
			continue
		}
		props.XValidations = append(props.XValidations, model.ValidationRule{
			Rule:    fmt.Sprintf("!has(oldSelf.%s) || has(self.%s)", name, name),
			Message: fmt.Sprintf("field %s is immutable once set", name),
		})
	}
	return props
}
