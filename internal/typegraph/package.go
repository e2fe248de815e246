package typegraph

import (
	"bytes"
	"go/ast"
	"go/token"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/ctrlgen/ctrlgen/internal/loader"
)

// Package is a package's declarations, as far as the graph has read it.
type Package struct {
	Path, Name string

	g *Graph
	// full says every file is read, not only those partialFile accepts.
	full    bool
	read    map[*loader.File]bool
	scopes  []*fileScope
	types   map[string]*typeDecl
	methods map[string]map[string]*Method // receiver type → method → signature
	// consts are the string constants declared with each named type.
	consts  map[string][]string
	markers *collected
}

type typeDecl struct {
	spec    *ast.TypeSpec
	gen     *ast.GenDecl
	scope   *fileScope
	markers *collected
}

// indexedMethods reports whether the methods called name are read: the
// deep-copy ones, the unmarshalers encoding/json calls, and the
// marshalers that give a CRD schema its shape.
func indexedMethods(name string) bool {
	return strings.HasPrefix(name, "DeepCopy") || name == "UnmarshalJSON" || name == "UnmarshalText" ||
		name == "MarshalJSON" || name == "MarshalText" || name == "Hub" || name == "ConvertTo" || name == "ConvertFrom"
}

// partialFile reports whether a file can hold what Declared and the
// marker and constant readers need: a type or constant declaration, a
// MarshalJSON or MarshalText method, or package markers (doc.go, or a
// "+" in a comment above the package clause, "// +groupName=" and
// kubebuilder's "//+groupName=" alike). The others (deep-copy functions,
// swagger docs, ...) are read when a package is read in full.
func partialFile(path string, src []byte) bool {
	if filepath.Base(path) == "doc.go" || loader.HasLine(src, "type") || loader.HasLine(src, "const") ||
		bytes.Contains(src, []byte("MarshalJSON")) || bytes.Contains(src, []byte("MarshalText")) {
		return true
	}
	header, _, found := bytes.Cut(src, []byte("\npackage "))
	return found && bytes.Contains(header, []byte("+"))
}

// index returns the package pkgPath as the graph has read it: with full,
// every file of it; otherwise at least those partialFile accepts.
func (g *Graph) index(pkgPath string, full bool) (*Package, error) {
	p := g.pkgs[pkgPath]
	if p != nil && (p.full || !full) {
		return p, nil
	}
	var keep func(string, []byte) bool
	if !full {
		keep = partialFile
	}
	lp, err := g.src.LookupSome(pkgPath, keep)
	if err != nil {
		return nil, err
	}
	if p == nil {
		p = g.newPackage(lp)
	}
	p.add(lp.Files)
	p.full = full
	return p, nil
}

// Add reads the declarations of a package loaded already, such as an
// input package: its files as they are (a read-only input's, without the
// deep-copy files the loader defers), without asking the loader.
func (g *Graph) Add(lp *loader.Package) *Package {
	g.mu.Lock()
	defer g.mu.Unlock()
	p := g.pkgs[lp.Path]
	if p == nil {
		p = g.newPackage(lp)
	}
	p.add(lp.Files)
	return p
}

// Package returns the package at path, read as Declared reads packages.
func (g *Graph) Package(path string) (*Package, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.index(path, false)
}

func (g *Graph) newPackage(lp *loader.Package) *Package {
	p := &Package{Path: lp.Path, Name: lp.Name, g: g, read: map[*loader.File]bool{}, types: map[string]*typeDecl{},
		methods: map[string]map[string]*Method{}, consts: map[string][]string{}}
	g.pkgs[lp.Path] = p
	return p
}

// add reads the type and constant declarations and indexedMethods of the
// files not read yet.
func (p *Package) add(files []*loader.File) {
	for _, f := range files {
		if p.read[f] {
			continue
		}
		p.read[f] = true
		scope := &fileScope{g: p.g, pkg: p, file: f}
		p.scopes = append(p.scopes, scope)
		for _, d := range f.Syntax.Decls {
			switch d := d.(type) {
			case *ast.GenDecl:
				switch d.Tok {
				case token.TYPE:
					for _, s := range d.Specs {
						ts := s.(*ast.TypeSpec)
						p.types[ts.Name.Name] = &typeDecl{spec: ts, gen: d, scope: scope}
					}
				case token.CONST:
					p.addConsts(d)
				}
			case *ast.FuncDecl:
				if d.Recv != nil && indexedMethods(d.Name.Name) {
					scope.addMethod(d)
				}
			}
		}
	}
}

// addConsts records the string constants declared with an explicit
// named type, for +k8s:enum.
func (p *Package) addConsts(d *ast.GenDecl) {
	for _, s := range d.Specs {
		vs := s.(*ast.ValueSpec)
		id, ok := vs.Type.(*ast.Ident)
		if !ok {
			continue
		}
		for i := range vs.Names {
			if i >= len(vs.Values) {
				break
			}
			if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if v, err := strconv.Unquote(lit.Value); err == nil {
					p.consts[id.Name] = append(p.consts[id.Name], v)
				}
			}
		}
	}
}

// Consts returns the string constants declared with the named type
// called name, in the order of their declarations: "const A Phase = "a"".
func (p *Package) Consts(name string) []string {
	p.g.mu.Lock()
	defer p.g.mu.Unlock()
	return p.consts[name]
}

// Declared is Graph.Declared of the package's type called name.
func (p *Package) Declared(name string) (*Type, error) { return p.g.Declared(Name{p.Path, name}) }

// HasType reports whether the package declares a type called name.
func (p *Package) HasType(name string) bool {
	p.g.mu.Lock()
	defer p.g.mu.Unlock()
	return p.types[name] != nil
}

// StructTypes returns the names of the types the package declares as a
// struct, "type T struct{...}", sorted.
func (p *Package) StructTypes() []string {
	p.g.mu.Lock()
	defer p.g.mu.Unlock()
	var out []string
	for name, d := range p.types {
		if _, ok := ast.Unparen(d.spec.Type).(*ast.StructType); ok && !d.spec.Assign.IsValid() && d.spec.TypeParams == nil {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
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
		r := s.sigRef(f.Type)
		for range max(1, len(f.Names)) {
			out = append(out, r)
		}
	}
	return out
}

// sigRef names a signature type without resolving it: enough to compare it
// with the receiver's name.
func (s *fileScope) sigRef(e ast.Expr) Ref {
	var r Ref
	if star, ok := e.(*ast.StarExpr); ok {
		r.Ptr, e = true, star.X
	}
	switch e := e.(type) {
	case *ast.Ident:
		r.Name = Name{s.pkg.Path, e.Name}
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
