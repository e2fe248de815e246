package typegraph

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/ctrlgen/ctrlgen/internal/loader"
)

// Source provides parsed packages by import path.
type Source interface {
	Lookup(path string) (*loader.Package, error)
}

// Graph resolves named types, each once.
type Graph struct {
	// mu serialises resolution: generators run concurrently and members
	// are resolved on first use.
	mu    sync.Mutex
	src   Source
	fset  *token.FileSet
	named map[Name]*Type
	pkgs  map[string]*pkgIndex
}

// New returns a graph over the packages src provides.
func New(src Source, fset *token.FileSet) *Graph {
	return &Graph{src: src, fset: fset, named: map[Name]*Type{}, pkgs: map[string]*pkgIndex{}}
}

type pkgIndex struct {
	path    string
	types   map[string]typeDecl
	methods map[string]map[string]*Method // receiver type → method → signature
}

type typeDecl struct {
	spec  *ast.TypeSpec
	scope *fileScope
	// doc is the spec's doc comment, or its declaration's when the
	// declaration holds that one spec only.
	doc *ast.CommentGroup
}

// fileScope resolves the names one file uses.
type fileScope struct {
	g       *Graph
	pkg     *pkgIndex
	imports []*ast.ImportSpec
}

// Named returns the type called name in package pkg.
func (g *Graph) Named(pkg, name string) (*Type, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.lookupNamed(pkg, name)
}

func (g *Graph) lookupNamed(pkg, name string) (*Type, error) {
	key := Name{pkg, name}
	if t, ok := g.named[key]; ok {
		return t, nil
	}
	idx, err := g.index(pkg)
	if err != nil {
		return nil, err
	}
	decl, ok := idx.types[name]
	if !ok {
		return nil, fmt.Errorf("type %s not found", key)
	}
	t := &Type{Name: key, Pos: g.fset.Position(decl.spec.Name.Pos()), Comments: commentLines(decl.doc), mu: &g.mu}
	g.named[key] = t
	if decl.spec.Assign.IsValid() {
		target, err := decl.scope.resolve(decl.spec.Type)
		if err != nil {
			return nil, err
		}
		g.named[key] = target
		return target, nil
	}
	t.methods = idx.methods[name]
	if err := decl.scope.define(t, decl.spec); err != nil {
		return nil, fmt.Errorf("%s: %w", t.Pos, err)
	}
	return t, nil
}

// define fills t from its declaration "type T <spec.Type>".
func (s *fileScope) define(t *Type, spec *ast.TypeSpec) error {
	if spec.TypeParams != nil {
		t.Kind, t.Why = Unsupported, "generic type"
		return nil
	}
	switch e := ast.Unparen(spec.Type).(type) {
	case *ast.StructType:
		t.Kind = Struct
		t.resolveMembers = func() ([]Member, error) { return s.members(e) }
		return nil
	case *ast.InterfaceType:
		t.Kind = Interface
		return nil
	}
	u, err := s.resolve(spec.Type)
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
		t.resolveMembers = u.membersLocked
	default:
		t.Kind, t.Elem, t.Key, t.Len, t.Why = u.Kind, u.Elem, u.Key, u.Len, u.Why
	}
	return nil
}

func (s *fileScope) members(st *ast.StructType) ([]Member, error) {
	var out []Member
	for _, f := range st.Fields.List {
		ft, err := s.resolve(f.Type)
		if err != nil {
			return nil, err
		}
		var tag string
		if f.Tag != nil {
			tag, _ = strconv.Unquote(f.Tag.Value)
		}
		doc := commentLines(f.Doc)
		if len(f.Names) == 0 {
			out = append(out, Member{Name: EmbeddedName(f.Type), Embedded: true, Type: ft, Tag: tag, Comments: doc})
		}
		for _, n := range f.Names {
			out = append(out, Member{Name: n.Name, Type: ft, Tag: tag, Comments: doc})
		}
	}
	return out, nil
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

// resolve resolves a type expression written in the scope's file.
func (s *fileScope) resolve(e ast.Expr) (*Type, error) {
	switch e := e.(type) {
	case *ast.ParenExpr:
		return s.resolve(e.X)
	case *ast.Ident:
		return s.ident(e.Name)
	case *ast.SelectorExpr:
		x, ok := e.X.(*ast.Ident)
		if !ok {
			return nil, fmt.Errorf("unsupported type %s", types.ExprString(e))
		}
		pkg, err := s.importPath(x.Name)
		if err != nil {
			return nil, err
		}
		return s.g.lookupNamed(pkg, e.Sel.Name)
	case *ast.StarExpr:
		return s.composite(Pointer, nil, e.X)
	case *ast.ArrayType:
		if e.Len == nil {
			return s.composite(Slice, nil, e.Elt)
		}
		t, err := s.composite(Array, nil, e.Elt)
		if t != nil {
			t.Len = types.ExprString(e.Len)
		}
		return t, err
	case *ast.MapType:
		return s.composite(Map, e.Key, e.Value)
	case *ast.ChanType:
		return s.composite(Chan, nil, e.Value)
	case *ast.InterfaceType:
		if e.Methods != nil && len(e.Methods.List) > 0 {
			return &Type{Kind: Interface, Why: "interface with methods"}, nil
		}
		return &Type{Kind: Interface}, nil
	case *ast.FuncType:
		return &Type{Kind: Func, Why: "function type"}, nil
	case *ast.StructType:
		m, err := s.members(e)
		return &Type{Kind: Struct, members: m}, err
	}
	return &Type{Kind: Unsupported, Why: "type " + types.ExprString(e)}, nil
}

func (s *fileScope) composite(k Kind, key, elem ast.Expr) (*Type, error) {
	t := &Type{Kind: k}
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

func (s *fileScope) ident(name string) (*Type, error) {
	if _, ok := s.pkg.types[name]; ok {
		return s.g.lookupNamed(s.pkg.path, name)
	}
	if name == "any" {
		return &Type{Kind: Interface}, nil
	}
	if k, ok := builtins[name]; ok {
		return &Type{Name: Name{Name: name}, Kind: k}, nil
	}
	for _, imp := range s.imports {
		if imp.Name != nil && imp.Name.Name == "." {
			if idx, err := s.g.index(importPath(imp)); err == nil {
				if _, ok := idx.types[name]; ok {
					return s.g.lookupNamed(idx.path, name)
				}
			}
		}
	}
	return nil, fmt.Errorf("undefined type %s in %s", name, s.pkg.path)
}

// importPath returns the path of the import the file refers to as name.
func (s *fileScope) importPath(name string) (string, error) {
	var unnamed []string
	for _, imp := range s.imports {
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
		if pkg, err := s.g.src.Lookup(p); err == nil && pkg.Name == name {
			return p, nil
		}
	}
	return "", fmt.Errorf("no import named %s in a file of %s", name, s.pkg.path)
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

// indexedMethods reports whether the methods called name are read: the
// deep-copy ones, and the unmarshalers encoding/json calls.
func indexedMethods(name string) bool {
	return strings.HasPrefix(name, "DeepCopy") || name == "UnmarshalJSON" || name == "UnmarshalText"
}

// index reads the package's type declarations and indexedMethods.
func (g *Graph) index(pkgPath string) (*pkgIndex, error) {
	if idx, ok := g.pkgs[pkgPath]; ok {
		return idx, nil
	}
	pkg, err := g.src.Lookup(pkgPath)
	if err != nil {
		return nil, err
	}
	idx := &pkgIndex{path: pkgPath, types: map[string]typeDecl{}, methods: map[string]map[string]*Method{}}
	for _, f := range pkg.Files {
		scope := &fileScope{g: g, pkg: idx, imports: f.Syntax.Imports}
		for _, d := range f.Syntax.Decls {
			switch d := d.(type) {
			case *ast.GenDecl:
				if d.Tok == token.TYPE {
					for _, s := range d.Specs {
						ts := s.(*ast.TypeSpec)
						doc := ts.Doc
						if doc == nil && len(d.Specs) == 1 {
							doc = d.Doc
						}
						idx.types[ts.Name.Name] = typeDecl{spec: ts, scope: scope, doc: doc}
					}
				}
			case *ast.FuncDecl:
				if d.Recv != nil && indexedMethods(d.Name.Name) {
					scope.addMethod(d)
				}
			}
		}
	}
	g.pkgs[pkgPath] = idx
	return idx, nil
}

func (s *fileScope) addMethod(d *ast.FuncDecl) {
	recv := d.Recv.List[0].Type
	m := &Method{}
	if star, ok := recv.(*ast.StarExpr); ok {
		m.PtrRecv, recv = true, star.X
	}
	id, ok := recv.(*ast.Ident)
	if !ok {
		return // generic receivers are not deep-copied
	}
	m.Params = s.refs(d.Type.Params)
	m.Results = s.refs(d.Type.Results)
	m.Signature = signature(d.Type)
	if s.pkg.methods[id.Name] == nil {
		s.pkg.methods[id.Name] = map[string]*Method{}
	}
	s.pkg.methods[id.Name][d.Name.Name] = m
}

func (s *fileScope) refs(fields *ast.FieldList) []Ref {
	if fields == nil {
		return nil
	}
	var out []Ref
	for _, f := range fields.List {
		r := s.ref(f.Type)
		for range max(1, len(f.Names)) {
			out = append(out, r)
		}
	}
	return out
}

// ref names a signature type without resolving it: enough to compare it
// with the receiver's name.
func (s *fileScope) ref(e ast.Expr) Ref {
	var r Ref
	if star, ok := e.(*ast.StarExpr); ok {
		r.Ptr, e = true, star.X
	}
	switch e := e.(type) {
	case *ast.Ident:
		r.Name = Name{s.pkg.path, e.Name}
		if _, builtin := builtins[e.Name]; builtin {
			r.Name.Pkg = ""
		}
	case *ast.SelectorExpr:
		if x, ok := e.X.(*ast.Ident); ok {
			if p, err := s.importPath(x.Name); err == nil {
				r.Name = Name{p, e.Sel.Name}
			}
		}
	}
	return r
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
