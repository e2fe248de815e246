package typegraph

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/ctrlgen/ctrlgen/internal/loader"
	"github.com/ctrlgen/ctrlgen/internal/markers"
)

// Source provides parsed packages by import path, as loader.Program.
type Source interface {
	// LookupSome returns the package with the given import path; unless
	// it is parsed already, with only the files keep accepts (every file
	// for a nil keep).
	LookupSome(path string, keep func(path string, src []byte) bool) (*loader.Package, error)
	// PackageName returns a package's name, parsing nothing.
	PackageName(path string) (string, error)
}

// Graph resolves named types, each once.
//
// A named type is resolved as far as it is asked for. Named returns it
// and every type it refers to (its elements, key and underlying type,
// and then the types of its members when Members asks for them), the
// shape deep-copy and apply-configuration generators need, reading each
// package they come from in full. Declared resolves no more than the
// type's own declaration, whatever types that refers to being known by
// their names only until Declared is asked for them too, and reads only
// the files of a package that can declare types, constants, marshalers
// or package markers (partialFile): the shape CRD schemas need, which
// stop at some apimachinery types without reading their packages.
type Graph struct {
	// mu serialises resolution: generators run concurrently and members
	// are resolved on first use.
	mu    sync.Mutex
	src   Source
	fset  *token.FileSet
	named map[Name]*Type
	pkgs  map[string]*Package
	// fieldMarkers are the markers of field doc comments read so far.
	fieldMarkers map[*ast.CommentGroup]*collected
}

// New returns a graph over the packages src provides.
func New(src Source, fset *token.FileSet) *Graph {
	return &Graph{src: src, fset: fset, named: map[Name]*Type{}, pkgs: map[string]*Package{},
		fieldMarkers: map[*ast.CommentGroup]*collected{}}
}

// fileScope resolves the names one file uses.
type fileScope struct {
	g     *Graph
	pkg   *Package
	file  *loader.File
	lines *markers.Lazy // made on first use
}

// Named returns the type called name in package pkg, with every type it
// refers to resolved.
func (g *Graph) Named(pkg, name string) (*Type, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.complete(g.ref(pkg, name))
}

// Declared returns the named type n resolved as far as its declaration:
// its kind, position, doc, methods and Definition, but the named types
// these refer to (Elem, Key, Underlying, Definition, Fields) may be known
// by their names only, for Declared to resolve in turn. An alias
// ("type T = U") is a type of its own here, whose Definition is U.
func (g *Graph) Declared(n Name) (*Type, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	t := g.ref(n.Pkg, n.Name)
	if t.named.pending() {
		if err := g.define(t, false); err != nil {
			return nil, err
		}
	}
	if t.err != nil {
		return nil, t.err
	}
	return t, nil
}

// ref returns the named type pkg.name, known by its name only until
// define resolves it.
func (g *Graph) ref(pkg, name string) *Type {
	key := Name{pkg, name}
	if t, ok := g.named[key]; ok {
		return t
	}
	t := &Type{Name: key, named: &named{g: g}}
	g.named[key] = t
	return t
}

// maxAliases bounds a chain of alias declarations, which in invalid code
// may be a cycle.
const maxAliases = 100

// follow resolves t if it is known by its name only, and follows alias
// declarations to the type they name. full says how packages are read
// (see index).
func (g *Graph) follow(t *Type, full bool) (*Type, error) {
	for range maxAliases {
		if t.named != nil && t.named.pending() {
			if err := g.define(t, full); err != nil {
				return nil, err
			}
		}
		if t.err != nil {
			return nil, t.err
		}
		if t.named == nil || !t.named.alias {
			return t, nil
		}
		t = t.named.definition
	}
	return nil, fmt.Errorf("%s: a cycle of alias declarations", t.Pos)
}

// complete resolves t and, through its elements, key and underlying type
// (not its members, resolved when asked for), every type it refers to,
// in packages read in full, with aliases replaced by the types they name.
// It changes no unnamed type, nor the members Fields returns, which
// Declared's readers see as declared: a type that refers to an alias is
// copied, the copy completed.
func (g *Graph) complete(t *Type) (*Type, error) {
	t, err := g.follow(t, true)
	if err != nil || t.completed {
		return t, err
	}
	if t.named == nil {
		return g.completeUnnamed(t) // builtins included
	}
	t.completed = true // before the types it refers to, which may refer to it
	if err := g.completeNamed(t); err != nil {
		t.completed = false
		return nil, err
	}
	return t, nil
}

func (g *Graph) completeNamed(t *Type) error {
	if p := t.named.pkg; !p.full {
		if _, err := g.index(p.Path, true); err != nil {
			return err
		}
	}
	for _, f := range []**Type{&t.Elem, &t.Key, &t.Underlying} {
		if *f == nil {
			continue
		}
		c, err := g.complete(*f)
		if err != nil {
			return err
		}
		if c != *f {
			*f = c
		}
	}
	return nil
}

func (g *Graph) completeUnnamed(t *Type) (*Type, error) {
	var refs [3]*Type
	changed := false
	for i, r := range [3]*Type{t.Elem, t.Key, t.Underlying} {
		if r == nil {
			continue
		}
		c, err := g.complete(r)
		if err != nil {
			return nil, err
		}
		refs[i], changed = c, changed || c != r
	}
	members := t.members
	if t.Kind == Struct {
		m, err := g.completeMembers(t.members)
		if err != nil {
			return nil, err
		}
		members, changed = m, changed || !sameMembers(m, t.members)
	}
	if !changed {
		t.completed = true
		return t, nil
	}
	c := *t
	c.Elem, c.Key, c.Underlying, c.members, c.completed = refs[0], refs[1], refs[2], members, true
	return &c, nil
}

// completeMembers completes the members' types: members itself when
// that changes none, a copy otherwise.
func (g *Graph) completeMembers(members []Member) ([]Member, error) {
	var out []Member
	for i, m := range members {
		c, err := g.complete(m.Type)
		if err != nil {
			return nil, err
		}
		if c != m.Type && out == nil {
			out = slices.Clone(members)
		}
		if out != nil {
			out[i].Type = c
		}
	}
	if out == nil {
		return members, nil
	}
	return out, nil
}

// sameMembers reports whether a and b are the same slice.
func sameMembers(a, b []Member) bool { return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0]) }

// define resolves the named type t from its declaration.
func (g *Graph) define(t *Type, full bool) error {
	p, err := g.index(t.Name.Pkg, full)
	if err != nil {
		return err
	}
	decl := p.types[t.Name.Name]
	if decl == nil && !p.full {
		if p, err = g.index(t.Name.Pkg, true); err != nil {
			return err
		}
		decl = p.types[t.Name.Name]
	}
	if decl == nil {
		return fmt.Errorf("type %s not found", t.Name)
	}
	n := t.named
	n.pkg = p // no longer pending
	t.Pos = g.fset.Position(decl.spec.Name.Pos())
	t.Comments = commentLines(decl.gengoDoc())
	t.Doc = decl.goDoc()
	if decl.spec.Assign.IsValid() {
		n.alias = true
		n.definition, t.err = decl.scope.resolve(decl.spec.Type)
		return t.err
	}
	if err := decl.scope.define(t, decl.spec, full); err != nil {
		t.err = fmt.Errorf("%s: %w", t.Pos, err)
		return t.err
	}
	return nil
}

// gengoDoc is the comment gengo reads a type's markers from: the spec's,
// or its declaration's when the declaration holds that one spec only.
func (d *typeDecl) gengoDoc() *ast.CommentGroup {
	if d.spec.Doc == nil && len(d.gen.Specs) == 1 {
		return d.gen.Doc
	}
	return d.spec.Doc
}

// goDoc is the type's doc comment as go/doc has it: the spec's, or its
// declaration's when the declaration is not parenthesised.
func (d *typeDecl) goDoc() *ast.CommentGroup {
	if d.spec.Doc == nil && d.gen.Lparen == token.NoPos {
		return d.gen.Doc
	}
	return d.spec.Doc
}

// define fills t from its declaration "type T <spec.Type>".
func (s *fileScope) define(t *Type, spec *ast.TypeSpec, full bool) error {
	t.named.definition = t
	if spec.TypeParams != nil {
		t.Kind, t.Why = Unsupported, "generic type"
		return nil
	}
	switch e := ast.Unparen(spec.Type).(type) {
	case *ast.StructType:
		t.Kind = Struct
		t.resolveMembers = func() ([]Member, error) { return s.members(e), nil }
		return nil
	case *ast.InterfaceType:
		t.Kind = Interface
		return nil
	}
	d, err := s.resolve(spec.Type)
	if err != nil {
		return err
	}
	t.named.definition = d
	u, err := s.g.follow(d, full)
	if err != nil {
		return err
	}
	switch {
	case u.Kind == Builtin, !u.IsNamed() && (u.Kind == Map || u.Kind == Slice):
		t.Kind, t.Underlying = Alias, u
	case u.Kind == Alias:
		t.Kind, t.Underlying = Alias, u.Underlying
	case u.Kind == Struct:
		t.Kind = Struct
		t.resolveMembers = func() ([]Member, error) { return u.membersLocked(false) }
	default:
		t.Kind, t.Elem, t.Key, t.Len, t.Why = u.Kind, u.Elem, u.Key, u.Len, u.Why
	}
	return nil
}

// members resolves a struct's fields. A field whose type does not
// resolve gets an Unsupported type that says why: Members reports it,
// Fields leaves it to the reader.
func (s *fileScope) members(st *ast.StructType) []Member {
	var out []Member
	for _, f := range st.Fields.List {
		ft, err := s.resolve(f.Type)
		if err != nil {
			ft = &Type{Kind: Unsupported, Why: err.Error(), err: err}
		}
		var tag string
		if f.Tag != nil {
			tag, _ = strconv.Unquote(f.Tag.Value)
		}
		m := Member{Type: ft, Tag: tag, Comments: commentLines(f.Doc), Doc: f.Doc, Pos: f.Pos()}
		if len(f.Names) == 0 {
			m.Name, m.Embedded = EmbeddedName(f.Type), true
			out = append(out, m)
		}
		for _, n := range f.Names {
			m.Name = n.Name
			out = append(out, m)
		}
	}
	return out
}

// EmbeddedName is the field name of an embedded field of type e: the
// type's name, without pointer, package or type arguments.
func EmbeddedName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return EmbeddedName(e.X)
	case *ast.SelectorExpr:
		return e.Sel.Name
	case *ast.Ident:
		return e.Name
	case *ast.IndexExpr:
		return EmbeddedName(e.X)
	case *ast.IndexListExpr:
		return EmbeddedName(e.X)
	}
	return ""
}

// resolve resolves a type expression written in the scope's file; the
// named types it uses are known by their names only (see ref).
func (s *fileScope) resolve(e ast.Expr) (*Type, error) {
	switch e := e.(type) {
	case *ast.ParenExpr:
		return s.resolve(e.X)
	case *ast.Ident:
		return s.ident(e)
	case *ast.SelectorExpr:
		x, ok := e.X.(*ast.Ident)
		if !ok {
			return nil, fmt.Errorf("unsupported type %s", types.ExprString(e))
		}
		pkg, err := s.importPath(x.Name)
		if err != nil {
			return nil, err
		}
		return s.g.ref(pkg, e.Sel.Name), nil
	case *ast.StarExpr:
		return s.composite(e, Pointer, nil, e.X)
	case *ast.ArrayType:
		if e.Len == nil {
			return s.composite(e, Slice, nil, e.Elt)
		}
		t, err := s.composite(e, Array, nil, e.Elt)
		if t != nil {
			t.Len = types.ExprString(e.Len)
		}
		return t, err
	case *ast.MapType:
		return s.composite(e, Map, e.Key, e.Value)
	case *ast.ChanType:
		return s.composite(e, Chan, nil, e.Value)
	case *ast.InterfaceType:
		if e.Methods != nil && len(e.Methods.List) > 0 {
			return &Type{Kind: Interface, Why: "interface with methods", Expr: e}, nil
		}
		return &Type{Kind: Interface, Expr: e}, nil
	case *ast.FuncType:
		return &Type{Kind: Func, Why: "function type", Expr: e}, nil
	case *ast.StructType:
		return &Type{Kind: Struct, members: s.members(e), Expr: e}, nil
	}
	return &Type{Kind: Unsupported, Why: "type " + types.ExprString(e), Expr: e}, nil
}

func (s *fileScope) composite(e ast.Expr, k Kind, key, elem ast.Expr) (*Type, error) {
	t := &Type{Kind: k, Expr: e}
	var err error
	if key != nil {
		if t.Key, err = s.resolve(key); err != nil {
			return nil, err
		}
	}
	if t.Elem, err = s.resolve(elem); err != nil {
		return nil, err
	}
	return t, nil
}

var builtins = map[string]Kind{
	"bool": Builtin, "string": Builtin, "byte": Builtin, "rune": Builtin, "uintptr": Builtin,
	"int": Builtin, "int8": Builtin, "int16": Builtin, "int32": Builtin, "int64": Builtin,
	"uint": Builtin, "uint8": Builtin, "uint16": Builtin, "uint32": Builtin, "uint64": Builtin,
	"float32": Builtin, "float64": Builtin, "complex64": Builtin, "complex128": Builtin,
	"error": Interface,
}

func (s *fileScope) ident(id *ast.Ident) (*Type, error) {
	name := id.Name
	if _, ok := s.pkg.types[name]; ok {
		return s.g.ref(s.pkg.Path, name), nil
	}
	if name == "any" {
		return &Type{Kind: Interface, Expr: id}, nil
	}
	if k, ok := builtins[name]; ok {
		return &Type{Name: Name{Name: name}, Kind: k, Expr: id}, nil
	}
	for _, imp := range s.file.Syntax.Imports {
		if imp.Name != nil && imp.Name.Name == "." {
			if p, err := s.g.index(importPath(imp), false); err == nil {
				if _, ok := p.types[name]; ok {
					return s.g.ref(p.Path, name), nil
				}
			}
		}
	}
	if !s.pkg.full {
		// A file partialFile left out may declare it, in code gofmt
		// would not leave so.
		if p, err := s.g.index(s.pkg.Path, true); err == nil {
			if _, ok := p.types[name]; ok {
				return s.g.ref(p.Path, name), nil
			}
		}
	}
	return nil, fmt.Errorf("undefined type %s in %s", name, s.pkg.Path)
}

// importPath returns the path of the import the file refers to as name.
func (s *fileScope) importPath(name string) (string, error) {
	var unnamed []string
	for _, imp := range s.file.Syntax.Imports {
		p := importPath(imp)
		switch {
		case imp.Name != nil && imp.Name.Name == name:
			return p, nil
		case imp.Name == nil && guessName(p) == name:
			return p, nil
		case imp.Name == nil:
			unnamed = append(unnamed, p)
		}
	}
	for _, p := range unnamed {
		if n, err := s.g.src.PackageName(p); err == nil && n == name {
			return p, nil
		}
	}
	return "", fmt.Errorf("no import named %s in a file of %s", name, s.pkg.Path)
}

func importPath(imp *ast.ImportSpec) string {
	return strings.Trim(imp.Path.Value, "\"`")
}

var majorVersion = regexp.MustCompile(`^v[0-9]+$`)

// guessName is the package name an import path conventionally has.
func guessName(p string) string {
	base := path.Base(p)
	if majorVersion.MatchString(base) && path.Dir(p) != "." {
		base = path.Base(path.Dir(p))
	}
	base, _, _ = strings.Cut(base, ".")
	return base
}

// signature writes a function type's parameter and result types, without
// names: "([]byte) error".
func signature(ft *ast.FuncType) string {
	list := func(fields *ast.FieldList) string {
		if fields == nil {
			return ""
		}
		var types_ []string
		for _, f := range fields.List {
			for range max(1, len(f.Names)) {
				types_ = append(types_, types.ExprString(f.Type))
			}
		}
		return strings.Join(types_, ", ")
	}
	sig := "(" + list(ft.Params) + ")"
	if r := list(ft.Results); r != "" {
		sig += " " + r
	}
	return sig
}

// commentLines returns a comment group's lines without their comment
// markers, as gengo's CommentLines.
func commentLines(g *ast.CommentGroup) []string {
	if g == nil {
		return nil
	}
	return strings.Split(strings.TrimSuffix(g.Text(), "\n"), "\n")
}
