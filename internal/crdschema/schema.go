package crdschema

import (
	"fmt"
	"go/ast"
	"go/token"
	"reflect"
	"slices"
	"strings"

	"github.com/ctrlgen/ctrlgen/internal/markers"
	"github.com/ctrlgen/ctrlgen/internal/model"
	"github.com/ctrlgen/ctrlgen/internal/typegraph"
)

// schemas builds the schema of each Go type, as controller-gen's first
// pass does: a named type used inside another is a reference (Ref), with
// whatever the use adds (the field's markers and description), resolved
// later by flatten. Types are walked as their declarations write them
// (typegraph.Graph.Declared): a type named in a declaration is a use of
// that name, an alias's included.
type schemas struct {
	g    *typegraph.Graph
	fset *token.FileSet
	raw  map[model.TypeRef]*model.Schema
	// flat holds resolved schemas; a nil entry is one being resolved,
	// which a recursive reference sees as empty, as controller-gen does.
	flat map[model.TypeRef]*model.Schema
	errs []error
}

func (s *schemas) errorf(pos fmt.Stringer, format string, args ...any) {
	s.errs = append(s.errs, fmt.Errorf("%s: %s", pos, fmt.Sprintf(format, args...)))
}

// posLine writes a position as errors give it, "file:line", when one
// is written: most schemas have none to write.
type posLine token.Position

func (p posLine) String() string { return fmt.Sprintf("%s:%d", p.Filename, p.Line) }

// at is where the named type t is declared.
func at(t *typegraph.Type) fmt.Stringer { return posLine(t.Pos) }

// fieldAt is where a field is, looked up in the file set only when an
// error is written.
type fieldAt struct {
	fset *token.FileSet
	pos  token.Pos
}

func (f fieldAt) String() string { return posLine(f.fset.Position(f.pos)).String() }

// typeMarkers are the markers of named type t's declaration; the builder
// reported their problems, for the packages it reads.
func (s *schemas) typeMarkers(t *typegraph.Type) markers.Set {
	set, _, _ := s.g.TypeMarkers(t.Name, nil)
	return set
}

// declared is the declaration of the named type a use e refers to; nil
// for builtins and unnamed types, and when it does not resolve.
func (s *schemas) declared(e *typegraph.Type) *typegraph.Type {
	if !isDeclared(e) {
		return nil
	}
	t, err := s.g.Declared(e.Name)
	if err != nil {
		return nil
	}
	return t
}

// isDeclared reports whether e is a use of a declared type: named, and
// not a builtin.
func isDeclared(e *typegraph.Type) bool { return e.Name.Pkg != "" }

// isBuiltin reports whether e is the builtin type called name.
func isBuiltin(e *typegraph.Type, name string) bool { return e.Name == typegraph.Name{Name: name} }

// fields are the fields of t's declaration when it declares a struct,
// "type T struct{...}", and none otherwise (not those of "type T U").
func fields(t *typegraph.Type) []typegraph.Member {
	if t.Definition() != t || t.Kind != typegraph.Struct {
		return nil
	}
	f, _ := t.Fields()
	return f
}

// typeSchema is the schema of a named type, before references are resolved.
func (s *schemas) typeSchema(t *typegraph.Type) *model.Schema {
	ref := model.TypeRef{Pkg: t.Name.Pkg, Name: t.Name.Name}
	if sc, ok := s.raw[ref]; ok {
		return sc
	}
	s.raw[ref] = &model.Schema{}
	sc := s.infoToSchema(t)
	s.raw[ref] = sc
	return sc
}

func (s *schemas) infoToSchema(t *typegraph.Type) *model.Schema {
	m := s.typeMarkers(t)
	switch {
	case s.hasMethod(t, "MarshalJSON", map[*typegraph.Type]bool{}):
		sc := &model.Schema{}
		s.applyMarkers(m, sc, at(t), t)
		if sc.Type != "" {
			return sc
		}
	case s.hasMethod(t, "MarshalText", map[*typegraph.Type]bool{}):
		sc := &model.Schema{Type: "string"}
		s.applyMarkers(m, sc, at(t), t)
		if sc.Type != "string" {
			s.errorf(at(t), "%s implements encoding.TextMarshaler but its schema type is %q, not string", t.Name.Name, sc.Type)
		}
		return sc
	}
	sc := s.typeToSchema(t, t.Definition(), true)
	sc.Description = extractDoc(t.Doc)
	s.applyMarkers(m, sc, at(t), t)
	return sc
}

// hasMethod reports whether t, or a type it embeds, declares the method.
func (s *schemas) hasMethod(t *typegraph.Type, name string, seen map[*typegraph.Type]bool) bool {
	if t.Method(name) != nil {
		return true
	}
	if seen[t] {
		return false
	}
	seen[t] = true
	for _, f := range fields(t) {
		if !f.Embedded {
			continue
		}
		if et := s.declared(deref(f.Type)); et != nil && s.hasMethod(et, name, seen) {
			return true
		}
	}
	return false
}

func deref(e *typegraph.Type) *typegraph.Type {
	if e.Kind == typegraph.Pointer && !e.IsNamed() {
		return e.Elem
	}
	return e
}

// typeToSchema is the schema of a type e written in t's declaration; top
// says e is t's own definition.
func (s *schemas) typeToSchema(t, e *typegraph.Type, top bool) *model.Schema {
	switch {
	case top && e == t:
		switch t.Kind {
		case typegraph.Struct:
			return s.structSchema(t)
		case typegraph.Interface:
			s.errorf(at(t), "%s: interface type is not supported in CRD schemas; consider using an explicit type or apiextensionsv1.JSON instead", t.Name.Name)
			return &model.Schema{}
		}
		s.errorf(at(t), "%s: unsupported type expression: %s", t.Name.Name, t.Why)
		return &model.Schema{}
	case isDeclared(e):
		return s.namedRef(t, e)
	case e.IsNamed():
		return s.builtinSchema(t, e.Name.Name)
	}
	switch e.Kind {
	case typegraph.Slice, typegraph.Array:
		return s.arraySchema(t, e)
	case typegraph.Map:
		return s.mapSchema(t, e)
	case typegraph.Pointer:
		return s.typeToSchema(t, e.Elem, false)
	case typegraph.Struct:
		s.errorf(at(t), "%s: inline struct types are not supported, use a named type instead", t.Name.Name)
		return &model.Schema{Type: "object"}
	case typegraph.Interface:
		if id, ok := e.Expr.(*ast.Ident); ok {
			return s.builtinSchema(t, id.Name) // any
		}
		s.errorf(at(t), "%s: interface type is not supported in CRD schemas; consider using an explicit type or apiextensionsv1.JSON instead", t.Name.Name)
		return &model.Schema{}
	}
	if e.Expr == nil {
		// A field whose type did not resolve.
		s.errorf(at(t), "%s: %s", t.Name.Name, e.Why)
		return &model.Schema{}
	}
	s.errorf(at(t), "%s: unsupported type expression %T", t.Name.Name, e.Expr)
	return &model.Schema{}
}

var builtins = map[string][2]string{
	"bool": {"boolean", ""}, "string": {"string", ""},
	"int": {"integer", ""}, "int8": {"integer", ""}, "int16": {"integer", ""}, "int32": {"integer", "int32"}, "int64": {"integer", "int64"},
	"uint": {"integer", ""}, "uint8": {"integer", ""}, "uint16": {"integer", ""}, "uint32": {"integer", "int32"}, "uint64": {"integer", "int64"},
	"byte": {"integer", ""}, "rune": {"integer", "int32"}, "uintptr": {"integer", ""},
}

func (s *schemas) builtinSchema(t *typegraph.Type, name string) *model.Schema {
	if b, ok := builtins[name]; ok {
		return &model.Schema{Type: b[0], Format: b[1]}
	}
	switch name {
	case "float32", "float64":
		s.errorf(at(t), "%s: found float, the usage of which is highly discouraged, as support for them varies across languages. Please consider serializing your float as string instead", t.Name.Name)
		return &model.Schema{}
	case "any", "error":
		s.errorf(at(t), "%s: interface type %s is not supported in CRD schemas; consider using an explicit type or apiextensionsv1.JSON instead", t.Name.Name, name)
		return &model.Schema{}
	}
	s.errorf(at(t), "%s: unknown type %s", t.Name.Name, name)
	return &model.Schema{}
}

// underlying is what a chain of named types ends in: the last
// declaration, whose definition is not a declared type, and that
// definition.
func (s *schemas) underlying(t *typegraph.Type) (*typegraph.Type, *typegraph.Type) {
	for range 32 {
		d := t.Definition()
		if d == t || !isDeclared(d) {
			break
		}
		next := s.declared(d)
		if next == nil {
			break
		}
		t = next
	}
	return t, t.Definition()
}

// namedRef is the schema of a use of the named type e in t's
// declaration: a reference, plus the type when controller-gen spells it
// out at the use (slices, maps and, for types of the same package,
// builtins). The types known.go has are not looked at.
func (s *schemas) namedRef(t, e *typegraph.Type) *model.Schema {
	ref := model.TypeRef{Pkg: e.Name.Pkg, Name: e.Name.Name}
	sc := &model.Schema{Ref: &ref}
	if _, known := knownSchema(ref); known {
		return sc
	}
	nt, err := s.g.Declared(e.Name)
	if err != nil {
		s.errorf(at(t), "%s: %v", t.Name.Name, err)
		return &model.Schema{}
	}
	local := e.Name.Pkg == t.Name.Pkg
	ut, u := s.underlying(nt)
	switch {
	case u == ut:
		if u.Kind == typegraph.Interface {
			s.errorf(at(nt), "cannot generate schema for %s; interface type is not supported in CRD schemas, consider using an explicit type or apiextensionsv1.JSON instead", nt.Name.Name)
			return &model.Schema{}
		}
	case isDeclared(u):
	case u.IsNamed(), u.Kind == typegraph.Interface && isIdent(u.Expr):
		// A builtin, "any" among them.
		if local {
			named := s.typeSchema(nt)
			sc.Type, sc.Format = named.Type, named.Format
		}
	case u.Kind == typegraph.Slice:
		sc.Type = "array"
	case u.Kind == typegraph.Map:
		sc.Type = "object"
	case u.Kind == typegraph.Interface:
		s.errorf(at(nt), "cannot generate schema for %s; interface type is not supported in CRD schemas, consider using an explicit type or apiextensionsv1.JSON instead", nt.Name.Name)
		return &model.Schema{}
	}
	return sc
}

func isIdent(e ast.Expr) bool {
	_, ok := e.(*ast.Ident)
	return ok
}

func (s *schemas) arraySchema(t, a *typegraph.Type) *model.Schema {
	if a.Kind == typegraph.Slice && isBuiltin(a.Elem, "byte") {
		return &model.Schema{Type: "string", Format: "byte"}
	}
	return &model.Schema{Type: "array", Items: s.typeToSchema(t, a.Elem, false)}
}

func (s *schemas) mapSchema(t, m *typegraph.Type) *model.Schema {
	if !s.stringKey(t, m.Key) {
		s.errorf(at(t), "%s: map keys must be strings or implement encoding.TextMarshaler", t.Name.Name)
		return &model.Schema{}
	}
	v := m.Elem
	switch {
	case v.IsNamed(), v.Expr == nil, isIdent(v.Expr), v.Kind == typegraph.Slice, v.Kind == typegraph.Array, v.Kind == typegraph.Pointer, v.Kind == typegraph.Map:
	default:
		s.errorf(at(t), "%s: not a supported map value type: %T", t.Name.Name, v.Expr)
		return &model.Schema{}
	}
	return &model.Schema{Type: "object", AdditionalProperties: s.typeToSchema(t, v, false)}
}

func (s *schemas) stringKey(t, key *typegraph.Type) bool {
	if key.Name.Name == "string" && (key.Name.Pkg == "" || key.Name.Pkg == t.Name.Pkg) {
		return true // as written: "string", which a type of t's package may be called
	}
	nt := s.declared(key)
	if nt == nil {
		return false
	}
	if s.hasMethod(nt, "MarshalText", map[*typegraph.Type]bool{}) {
		return true
	}
	_, u := s.underlying(nt)
	return isBuiltin(u, "string")
}

func (s *schemas) structSchema(t *typegraph.Type) *model.Schema {
	props := &model.Schema{Type: "object", Properties: map[string]*model.Schema{}}
	oneOf := map[string]bool{}
	for _, d := range []*markers.Definition[[]string]{markers.AtMostOneOf, markers.ExactlyOneOf, markers.AtLeastOneOf} {
		for _, v := range d.All(s.typeMarkers(t)) {
			for _, f := range v.V {
				oneOf[f] = true
			}
		}
	}
	pkgMarkers, _, _ := s.g.PackageMarkers(t.Name.Pkg)
	defaultOptional := markers.ValidationOptional.Has(pkgMarkers)
	var immutable []string
	for _, f := range fields(t) {
		fpos := fieldAt{s.fset, f.Pos}
		tag := reflect.StructTag(f.Tag)
		json, hasTag := tag.Lookup("json")
		if !hasTag {
			name := f.Name
			if f.Embedded {
				name = ""
			}
			s.errorf(fpos, "encountered struct field %q without JSON tag in type %q", name, t.Name.Name)
			continue
		}
		opts := strings.Split(json, ",")
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
		m, _ := s.g.FieldMarkers(f.Doc, nil)
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
			ps = s.typeToSchema(t, f.Type, false)
		}
		ps.Description = extractDoc(f.Doc)
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

// extractDoc turns a doc comment into a description as controller-tools'
// extractDoc does: marker lines out, lines kept, a TODO line dropped and
// everything from a "---" line on cut, outside fenced code blocks.
func extractDoc(g *ast.CommentGroup) string {
	if g == nil {
		return ""
	}
	var kept ast.CommentGroup
	asterisk := false
	for _, c := range g.List {
		if isMarkerComment(c.Text) {
			continue
		}
		if strings.HasPrefix(c.Text, "/*") {
			asterisk = true
		}
		kept.List = append(kept.List, c)
	}
	lines := strings.Split(kept.Text(), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	out := make([]string, 0, len(lines))
	inCode := false
	for _, line := range lines {
		if asterisk {
			line = strings.TrimSpace(line)
		}
		if strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~") {
			inCode = !inCode
		}
		if !inCode {
			if strings.HasPrefix(line, "TODO") {
				continue
			}
			if strings.HasPrefix(line, "---") {
				break
			}
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

func isMarkerComment(c string) bool {
	if !strings.HasPrefix(c, "//") {
		return false
	}
	s := strings.TrimSpace(c[2:])
	return s != "" && s[0] == '+'
}
