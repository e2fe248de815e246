// Package crdschema derives CustomResourceDefinitions from Go API types and
// their kubebuilder markers, with the meaning controller-gen v0.23.0 gives
// them: the same schema for the same types, field by field. It reads the
// syntax trees the loader parsed; types from other packages (k8s.io/api,
// apimachinery) are parsed on demand and walked with their own markers,
// except the few apimachinery types controller-gen hard-codes (known.go).
package crdschema

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/token"
	"path"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/ctrlgen/ctrlgen/internal/loader"
	"github.com/ctrlgen/ctrlgen/internal/markers"
)

// index holds the packages read so far, by import path.
type index struct {
	prog *loader.Program
	mu   sync.Mutex
	pkgs map[string]*pkgInfo
}

type pkgInfo struct {
	path, name string
	types      map[string]*typeInfo
	markers    markers.Set
	// methods are the method names declared on each type, either receiver.
	methods map[string]map[string]bool
	// consts are the string constants of each named type, for +k8s:enum.
	consts map[string][]string
}

type fileInfo struct {
	imports map[string]string // local name → import path, for named imports
	guessed map[string]string // likely package name → import path, for the others
	paths   []string          // every import path, to resolve a name the guess misses
	markers *markers.Lazy
}

// typeInfo is one type declaration. Its position, doc, markers and fields
// are read the first time they are asked for (load): a package such as
// k8s.io/api/core/v1 declares hundreds of types, and a CRD uses a few.
type typeInfo struct {
	pkg  *pkgInfo
	name string
	spec *ast.TypeSpec
	file *fileInfo
	decl *ast.GenDecl

	loaded  bool
	pos     token.Position
	doc     string
	markers markers.Set
	fields  []*fieldInfo // of a struct type
}

func (t *typeInfo) load() *typeInfo {
	if t.loaded {
		return t
	}
	t.loaded = true
	fset := t.file.markers.Fset()
	t.pos = fset.Position(t.spec.Name.Pos())
	t.markers, _ = markers.All.Collect(t.file.markers.Type(t.spec), markers.TargetType)
	docs := t.spec.Doc
	if docs == nil && t.decl.Lparen == token.NoPos {
		docs = t.decl.Doc
	}
	t.doc = extractDoc(docs)
	if st, ok := t.spec.Type.(*ast.StructType); ok {
		t.fields = fields(fset, st, t.file.markers)
	}
	return t
}

type fieldInfo struct {
	name     string // "" for an embedded field
	tag      reflect.StructTag
	hasTag   bool
	doc      string
	markers  markers.Set
	expr     ast.Expr
	pos      token.Position
	embedded bool
}

func (x *index) pkg(importPath string) (*pkgInfo, error) {
	x.mu.Lock()
	p, ok := x.pkgs[importPath]
	x.mu.Unlock()
	if ok {
		return p, nil
	}
	lp, err := x.prog.LookupSome(importPath, mayMatter)
	if err != nil {
		return nil, err
	}
	p = x.read(lp)
	x.mu.Lock()
	x.pkgs[importPath] = p
	x.mu.Unlock()
	return p, nil
}

// mayMatter reports whether a file can hold what read indexes: a type or
// constant declaration, a (Un)MarshalJSON or MarshalText method, or
// package markers (doc.go, or a "+" in a comment above the package
// clause, "// +groupName=" and kubebuilder's "//+groupName=" alike). The
// others (deep-copy functions, swagger docs, ...) are not parsed.
func mayMatter(path string, src []byte) bool {
	if filepath.Base(path) == "doc.go" || loader.HasLine(src, "type") || loader.HasLine(src, "const") ||
		bytes.Contains(src, []byte("MarshalJSON")) || bytes.Contains(src, []byte("MarshalText")) {
		return true
	}
	header, _, found := bytes.Cut(src, []byte("\npackage "))
	return found && bytes.Contains(header, []byte("+"))
}

// read indexes a package's types, fields, methods and markers. Marker
// problems are the builder's to report, for the packages it reads; here
// only what parses counts.
func (x *index) read(lp *loader.Package) *pkgInfo {
	p := &pkgInfo{path: lp.Path, name: lp.Name, types: map[string]*typeInfo{},
		methods: map[string]map[string]bool{}, consts: map[string][]string{}}
	fset := x.prog.Fset
	var pkgLines []markers.Line
	for _, f := range lp.Files {
		fi := &fileInfo{imports: map[string]string{}, guessed: map[string]string{}}
		for _, imp := range f.Syntax.Imports {
			ip, _ := strconv.Unquote(imp.Path.Value)
			if imp.Name != nil {
				fi.imports[imp.Name.Name] = ip
				continue
			}
			fi.paths = append(fi.paths, ip)
			fi.guessed[guessName(ip)] = ip
		}
		fi.markers = markers.NewLazy(fset, f.Syntax, f.IsDoc())
		pkgLines = append(pkgLines, fi.markers.Package()...)
		for _, d := range f.Syntax.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv != nil && len(d.Recv.List) == 1 {
					if name := receiverName(d.Recv.List[0].Type); name != "" {
						if p.methods[name] == nil {
							p.methods[name] = map[string]bool{}
						}
						p.methods[name][d.Name.Name] = true
					}
				}
			case *ast.GenDecl:
				switch d.Tok {
				case token.TYPE:
					for _, s := range d.Specs {
						ts := s.(*ast.TypeSpec)
						p.types[ts.Name.Name] = &typeInfo{pkg: p, name: ts.Name.Name, spec: ts, file: fi, decl: d}
					}
				case token.CONST:
					p.readConsts(d)
				}
			}
		}
	}
	p.markers, _ = markers.All.Collect(pkgLines, markers.TargetPackage)
	return p
}

func fields(fset *token.FileSet, st *ast.StructType, lines *markers.Lazy) []*fieldInfo {
	var out []*fieldInfo
	for _, f := range st.Fields.List {
		tag := ""
		if f.Tag != nil {
			tag, _ = strconv.Unquote(f.Tag.Value)
		}
		fi := &fieldInfo{tag: reflect.StructTag(tag), doc: extractDoc(f.Doc),
			expr: f.Type, pos: fset.Position(f.Pos())}
		fi.markers, _ = markers.All.Collect(lines.Field(f), markers.TargetField)
		_, fi.hasTag = fi.tag.Lookup("json")
		if len(f.Names) == 0 {
			fi.embedded = true
			out = append(out, fi)
			continue
		}
		for _, n := range f.Names {
			c := *fi
			c.name = n.Name
			out = append(out, &c)
		}
	}
	return out
}

// readConsts records the string constants declared with an explicit
// named type, for +k8s:enum.
func (p *pkgInfo) readConsts(d *ast.GenDecl) {
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

func receiverName(e ast.Expr) string {
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.IndexExpr:
		return receiverName(e.X)
	}
	return ""
}

// guessName is the package name an import path most likely has: its last
// element without a major-version suffix or a ".vN"/"go-" decoration.
func guessName(p string) string {
	base := path.Base(p)
	if len(base) > 1 && base[0] == 'v' && strings.Trim(base[1:], "0123456789") == "" {
		base = path.Base(path.Dir(p))
	}
	if i := strings.Index(base, ".v"); i > 0 {
		base = base[:i]
	}
	base = strings.TrimPrefix(base, "go-")
	return strings.ReplaceAll(base, "-", "_")
}

// lookupSelector resolves pkgName.Name in file f.
func (x *index) lookupSelector(f *fileInfo, pkgName, name string) (*typeInfo, error) {
	if ip, ok := f.imports[pkgName]; ok {
		p, err := x.pkg(ip)
		if err != nil {
			return nil, err
		}
		return typeIn(p, name)
	}
	if ip, ok := f.guessed[pkgName]; ok {
		if p, err := x.pkg(ip); err == nil && p.name == pkgName {
			return typeIn(p, name)
		}
	}
	for _, ip := range f.paths {
		p, err := x.pkg(ip)
		if err == nil && p.name == pkgName {
			return typeIn(p, name)
		}
	}
	return nil, fmt.Errorf("no imported package named %s", pkgName)
}

func typeIn(p *pkgInfo, name string) (*typeInfo, error) {
	if t := p.types[name]; t != nil {
		return t, nil
	}
	return nil, fmt.Errorf("unknown type %s.%s", p.path, name)
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
