// Package apisurface compares the exported Go API of two generated trees
// made from the same input: code-generator's and ctrlgen's. Packages are
// matched by their path relative to the tree's root, and every type that
// mentions a package of the tree is written with the tree's import path
// replaced by $TREE, so that two trees of different module paths or
// directories compare.
//
// Per package it compares the package name and every exported
// identifier: types with their kind and, for defined types and aliases,
// their underlying or aliased type; the exported fields of struct types,
// with types and tags; the method sets of interfaces and of the other
// defined types (value and pointer receivers, promoted methods included),
// with signatures; funcs with signatures; consts and vars with types (and
// consts with values). Methods of unexported types are not compared:
// they are reachable only through the exported interfaces they satisfy,
// and those are. Nor are fields promoted from an embedded unexported
// struct (generated code has none). Parameter names are not part of the API and are left
// out of every signature; aliases are resolved, so `any` and
// `interface{}` are one type, as are byte and uint8.
package apisurface

import (
	"fmt"
	"go/types"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"
)

// Placeholder stands for a tree's import path in types.
const Placeholder = "$TREE"

// An API is the exported API of the packages loaded from one tree.
type API struct {
	// Root is the tree's directory, Prefix its import path.
	Root, Prefix string
	// Packages are keyed by path relative to Root, "." for Root itself.
	Packages map[string]*Package
}

// A Package is one package's exported API.
type Package struct {
	Path string // relative to the tree's root
	Name string
	// Decls maps each exported identifier to its description: "T" for a
	// type, "T.M" for a field or method of T, "F" for a func, var or
	// const. A description is Go-like and self-contained, e.g.
	// "method (*T).Get(context.Context, string) (*$TREE/apis/v1.Foo, error)".
	Decls map[string]string
	// Errors are the package's load and type-check errors: a package
	// that does not compile has no reliable API.
	Errors []string
}

// identifiers counts p's exported package-level identifiers.
func (p *Package) identifiers() int {
	n := 0
	for k := range p.Decls {
		if k != "package" && !strings.Contains(k, ".") {
			n++
		}
	}
	return n
}

// Load loads the packages matching patterns (relative to root, such as
// "./pkg/generated/...") with go/packages in root, which must be inside a
// module, and returns their exported API.
func Load(root string, patterns ...string) (*API, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedTypes | packages.NeedModule,
		Dir:  root,
		Env:  append(os.Environ(), "GOWORK=off"),
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, err
	}
	api := &API{Root: root, Packages: map[string]*Package{}}
	for _, p := range pkgs {
		if p.Module == nil || p.Module.Dir == "" {
			if len(p.Errors) > 0 {
				return nil, fmt.Errorf("%s: %v", p.PkgPath, p.Errors[0])
			}
			return nil, fmt.Errorf("%s: not in a module", p.PkgPath)
		}
		rel, err := filepath.Rel(p.Module.Dir, root)
		if err != nil || strings.HasPrefix(rel, "..") {
			return nil, fmt.Errorf("%s is not inside module %s (%s)", root, p.Module.Path, p.Module.Dir)
		}
		api.Prefix = path.Join(p.Module.Path, filepath.ToSlash(rel))
		break
	}
	if api.Prefix == "" {
		return nil, fmt.Errorf("%s: no packages match %s", root, strings.Join(patterns, " "))
	}
	for _, p := range pkgs {
		rel, ok := relPath(api.Prefix, p.PkgPath)
		if !ok {
			return nil, fmt.Errorf("%s: package %s is outside the tree %s", root, p.PkgPath, api.Prefix)
		}
		pkg := &Package{Path: rel, Name: p.Name, Decls: map[string]string{}}
		// Type errors first: the go command's own error for a package
		// that does not compile repeats them less readably.
		errs := slices.Clone(p.Errors)
		slices.SortStableFunc(errs, func(a, b packages.Error) int {
			return cmpBool(a.Kind != packages.TypeError, b.Kind != packages.TypeError)
		})
		for _, e := range errs {
			pkg.Errors = append(pkg.Errors, strings.ReplaceAll(e.Error(), root+string(filepath.Separator), ""))
		}
		if p.Types != nil {
			describe(pkg, p.Types, api.Prefix)
		}
		api.Packages[rel] = pkg
	}
	return api, nil
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// relPath is pkgPath relative to prefix, "." for prefix itself.
func relPath(prefix, pkgPath string) (string, bool) {
	if pkgPath == prefix {
		return ".", true
	}
	rel, ok := strings.CutPrefix(pkgPath, prefix+"/")
	return rel, ok
}

// describe fills pkg.Decls from the exported scope of tp.
func describe(pkg *Package, tp *types.Package, prefix string) {
	w := &writer{self: tp.Path(), prefix: prefix}
	pkg.Decls["package"] = "package " + tp.Name()
	scope := tp.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		switch obj := obj.(type) {
		case *types.Const:
			pkg.Decls[name] = "const " + name + " " + w.typ(obj.Type()) + " = " + obj.Val().ExactString()
		case *types.Var:
			pkg.Decls[name] = "var " + name + " " + w.typ(obj.Type())
		case *types.Func:
			sig := obj.Type().(*types.Signature)
			pkg.Decls[name] = "func " + name + w.typeParams(sig.TypeParams()) + w.signature(sig)
		case *types.TypeName:
			w.typeDecls(pkg.Decls, obj)
		}
	}
}

// typeDecls describes the type obj, its exported fields and its methods.
// An alias of a defined type gets that type's fields and methods under
// its own name, so that an alias and a defined type compare member by
// member.
func (w *writer) typeDecls(decls map[string]string, obj *types.TypeName) {
	name := obj.Name()
	if alias, ok := obj.Type().(*types.Alias); ok {
		decls[name] = "type " + name + w.typeParams(alias.TypeParams()) + " = " + w.typ(alias.Rhs())
		if named, ok := types.Unalias(alias).(*types.Named); ok {
			w.members(decls, name, named)
		}
		return
	}
	named, ok := obj.Type().(*types.Named)
	if !ok { // a predeclared type cannot be declared in a package
		decls[name] = "type " + name + " " + w.typ(obj.Type())
		return
	}
	head := "type " + name + w.typeParams(named.TypeParams())
	switch u := named.Underlying().(type) {
	case *types.Struct:
		decls[name] = head + " struct"
	case *types.Interface:
		decls[name] = head + " interface"
		if !u.IsMethodSet() {
			decls[name] += " " + w.typ(u)
		}
	default:
		decls[name] = head + " " + w.typ(u)
	}
	w.members(decls, name, named)
}

// members describes the exported fields and methods of named as those of
// name: for an interface its method set; otherwise its struct fields and
// the method set of *named, which holds named's and *named's methods,
// promoted ones included.
func (w *writer) members(decls map[string]string, name string, named *types.Named) {
	switch u := named.Underlying().(type) {
	case *types.Interface:
		for i := range u.NumMethods() {
			m := u.Method(i)
			if m.Exported() {
				decls[name+"."+m.Name()] = "method " + name + "." + m.Name() + w.signature(m.Type().(*types.Signature))
			}
		}
		return
	case *types.Struct:
		for i := range u.NumFields() {
			f := u.Field(i)
			if !f.Exported() {
				continue
			}
			d := "field " + name + "." + f.Name() + " " + w.typ(f.Type())
			if f.Embedded() {
				d += " (embedded)"
			}
			if tag := u.Tag(i); tag != "" {
				d += " `" + tag + "`"
			}
			decls[name+"."+f.Name()] = d
		}
	}
	values := types.NewMethodSet(named)
	ptrs := types.NewMethodSet(types.NewPointer(named))
	for i := range ptrs.Len() {
		m := ptrs.At(i).Obj().(*types.Func)
		if !m.Exported() {
			continue
		}
		recv := "(*" + name + ")"
		if values.Lookup(m.Pkg(), m.Name()) != nil {
			recv = name
		}
		decls[name+"."+m.Name()] = "method " + recv + "." + m.Name() + w.signature(m.Type().(*types.Signature))
	}
}

// writer writes types as Go does, with packages by import path: none for
// the package described (self), Placeholder for the tree's prefix. It
// leaves out parameter names and resolves aliases.
type writer struct {
	self, prefix string
}

func (w *writer) qualify(pkg *types.Package) string {
	switch {
	case pkg == nil || pkg.Path() == w.self:
		return ""
	case pkg.Path() == w.prefix:
		return Placeholder + "."
	case strings.HasPrefix(pkg.Path(), w.prefix+"/"):
		return Placeholder + pkg.Path()[len(w.prefix):] + "."
	}
	return pkg.Path() + "."
}

func (w *writer) typ(t types.Type) string {
	var b strings.Builder
	w.write(&b, t)
	return b.String()
}

func (w *writer) write(b *strings.Builder, t types.Type) {
	switch t := t.(type) {
	case *types.Alias:
		w.write(b, types.Unalias(t))
	case *types.Basic:
		if t.Kind() == types.UnsafePointer {
			b.WriteString("unsafe.Pointer")
		} else {
			b.WriteString(types.Typ[t.Kind()].Name()) // byte → uint8, rune → int32
		}
	case *types.Pointer:
		b.WriteString("*")
		w.write(b, t.Elem())
	case *types.Slice:
		b.WriteString("[]")
		w.write(b, t.Elem())
	case *types.Array:
		fmt.Fprintf(b, "[%d]", t.Len())
		w.write(b, t.Elem())
	case *types.Map:
		b.WriteString("map[")
		w.write(b, t.Key())
		b.WriteString("]")
		w.write(b, t.Elem())
	case *types.Chan:
		switch t.Dir() {
		case types.SendRecv:
			b.WriteString("chan ")
		case types.SendOnly:
			b.WriteString("chan<- ")
		case types.RecvOnly:
			b.WriteString("<-chan ")
		}
		if c, ok := t.Elem().(*types.Chan); ok && c.Dir() == types.RecvOnly {
			b.WriteString("(")
			w.write(b, t.Elem())
			b.WriteString(")")
		} else {
			w.write(b, t.Elem())
		}
	case *types.Signature:
		b.WriteString("func")
		b.WriteString(w.signature(t))
	case *types.Struct:
		b.WriteString("struct{")
		for i := range t.NumFields() {
			if i > 0 {
				b.WriteString("; ")
			}
			f := t.Field(i)
			if !f.Embedded() {
				b.WriteString(f.Name())
				b.WriteString(" ")
			}
			w.write(b, f.Type())
			if tag := t.Tag(i); tag != "" {
				fmt.Fprintf(b, " %q", tag)
			}
		}
		b.WriteString("}")
	case *types.Interface:
		var parts []string
		for i := range t.NumMethods() {
			m := t.Method(i)
			name := m.Name()
			if !m.Exported() {
				name = w.qualify(m.Pkg()) + name
			}
			parts = append(parts, name+w.signature(m.Type().(*types.Signature)))
		}
		for i := range t.NumEmbeddeds() {
			if _, ok := t.EmbeddedType(i).Underlying().(*types.Interface); !ok {
				parts = append(parts, w.typ(t.EmbeddedType(i)))
			}
		}
		if t.IsComparable() && !t.IsMethodSet() && len(parts) == 0 {
			parts = append(parts, "comparable")
		}
		sort.Strings(parts)
		b.WriteString("interface{" + strings.Join(parts, "; ") + "}")
	case *types.Union:
		for i := range t.Len() {
			if i > 0 {
				b.WriteString(" | ")
			}
			if t.Term(i).Tilde() {
				b.WriteString("~")
			}
			w.write(b, t.Term(i).Type())
		}
	case *types.Named:
		obj := t.Obj()
		b.WriteString(w.qualify(obj.Pkg()))
		b.WriteString(obj.Name())
		if args := t.TypeArgs(); args.Len() > 0 {
			b.WriteString("[")
			for i := range args.Len() {
				if i > 0 {
					b.WriteString(", ")
				}
				w.write(b, args.At(i))
			}
			b.WriteString("]")
		}
	case *types.TypeParam:
		b.WriteString(t.Obj().Name())
	case *types.Tuple:
		w.tuple(b, t, false)
	default:
		b.WriteString(t.String())
	}
}

// signature is sig's parameters and results, without names.
func (w *writer) signature(sig *types.Signature) string {
	var b strings.Builder
	w.tuple(&b, sig.Params(), sig.Variadic())
	switch res := sig.Results(); res.Len() {
	case 0:
	case 1:
		b.WriteString(" ")
		w.write(&b, res.At(0).Type())
	default:
		b.WriteString(" ")
		w.tuple(&b, res, false)
	}
	return b.String()
}

func (w *writer) tuple(b *strings.Builder, t *types.Tuple, variadic bool) {
	b.WriteString("(")
	for i := range t.Len() {
		if i > 0 {
			b.WriteString(", ")
		}
		if variadic && i == t.Len()-1 {
			b.WriteString("...")
			w.write(b, t.At(i).Type().(*types.Slice).Elem())
		} else {
			w.write(b, t.At(i).Type())
		}
	}
	b.WriteString(")")
}

func (w *writer) typeParams(tps *types.TypeParamList) string {
	if tps.Len() == 0 {
		return ""
	}
	var parts []string
	for i := range tps.Len() {
		tp := tps.At(i)
		parts = append(parts, tp.Obj().Name()+" "+w.typ(tp.Constraint()))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// A Kind is how ctrlgen's tree differs from code-generator's.
type Kind int

const (
	Missing Kind = iota // code-generator's tree has it, ctrlgen's does not
	Extra               // ctrlgen's tree has it, code-generator's does not: an addition
	Changed             // both have it, described differently
	Broken              // the package does not load or type-check in one of the trees
)

func (k Kind) String() string {
	return [...]string{"missing in ctrlgen", "extra in ctrlgen", "changed", "broken"}[k]
}

// A Diff is one difference in one package.
type Diff struct {
	Package string // path relative to the tree root
	// Key is the identifier ("T", "T.M", "F"), "package" for the
	// package itself (its name, or the whole package when it is missing
	// or extra), or "errors".
	Key  Key
	Kind Kind
	// Codegen and Ctrlgen are the two descriptions; "" where absent.
	Codegen, Ctrlgen string
}

// A Key names an identifier in a package: "T", "T.M", "F", or "package".
type Key = string

// Compare compares ctrlgen's API with code-generator's, package by package,
// and returns the differences sorted by package and key.
func Compare(codegen, ctrlgen *API) []Diff {
	var diffs []Diff
	paths := map[string]bool{}
	for p := range codegen.Packages {
		paths[p] = true
	}
	for p := range ctrlgen.Packages {
		paths[p] = true
	}
	for p := range paths {
		cg, cl := codegen.Packages[p], ctrlgen.Packages[p]
		switch {
		case cl == nil:
			diffs = append(diffs, Diff{Package: p, Key: "package", Kind: Missing,
				Codegen: fmt.Sprintf("package %s (%d exported identifiers)", cg.Name, cg.identifiers())})
			continue
		case cg == nil:
			diffs = append(diffs, Diff{Package: p, Key: "package", Kind: Extra,
				Ctrlgen: fmt.Sprintf("package %s (%d exported identifiers)", cl.Name, cl.identifiers())})
			continue
		}
		if len(cg.Errors) > 0 || len(cl.Errors) > 0 {
			diffs = append(diffs, Diff{Package: p, Key: "errors", Kind: Broken,
				Codegen: summary(cg.Errors), Ctrlgen: summary(cl.Errors)})
		}
		keys := map[string]bool{}
		for k := range cg.Decls {
			keys[k] = true
		}
		for k := range cl.Decls {
			keys[k] = true
		}
		// A type one tree lacks is one difference, its members counted
		// in it rather than listed.
		members := func(decls map[string]string, typ string) string {
			n := 0
			for k := range decls {
				if strings.HasPrefix(k, typ+".") {
					n++
				}
			}
			if n == 0 {
				return ""
			}
			return fmt.Sprintf(" (and its %d exported fields and methods)", n)
		}
		for k := range keys {
			a, inCg := cg.Decls[k]
			b, inCl := cl.Decls[k]
			if typ, _, ok := strings.Cut(k, "."); ok {
				_, typInCg := cg.Decls[typ]
				_, typInCl := cl.Decls[typ]
				if typInCg != typInCl {
					continue
				}
			}
			switch {
			case !inCl:
				diffs = append(diffs, Diff{Package: p, Key: k, Kind: Missing, Codegen: a + members(cg.Decls, k)})
			case !inCg:
				diffs = append(diffs, Diff{Package: p, Key: k, Kind: Extra, Ctrlgen: b + members(cl.Decls, k)})
			case a != b:
				diffs = append(diffs, Diff{Package: p, Key: k, Kind: Changed, Codegen: a, Ctrlgen: b})
			}
		}
	}
	slices.SortFunc(diffs, func(a, b Diff) int {
		if c := strings.Compare(a.Package, b.Package); c != 0 {
			return c
		}
		return compareKeys(a.Key, b.Key)
	})
	return diffs
}

// summary is the first of errs on one line, and how many more there are.
func summary(errs []string) string {
	if len(errs) == 0 {
		return ""
	}
	s := strings.Join(strings.Fields(errs[0]), " ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	if len(errs) > 1 {
		s += fmt.Sprintf(" (and %d more errors)", len(errs)-1)
	}
	return s
}

// compareKeys orders "package" and "errors" first, then a type before its
// members.
func compareKeys(a, b string) int {
	rank := func(k string) int {
		switch k {
		case "package":
			return 0
		case "errors":
			return 1
		}
		return 2
	}
	if c := rank(a) - rank(b); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

// Line is d as report lines: "- A" for a missing identifier (A is
// code-generator's description), "+ B" for an extra one (B ctrlgen's),
// "~ code-generator: A" and "ctrlgen: B" on the next line for a changed
// one, and "! does not compile" with both trees' errors for a broken
// package.
func (d Diff) Line() string {
	switch d.Kind {
	case Missing:
		return "- " + d.Codegen
	case Extra:
		return "+ " + d.Ctrlgen
	case Changed:
		return "~ code-generator: " + d.Codegen + "\n           ctrlgen: " + d.Ctrlgen
	}
	none := func(s string) string {
		if s == "" {
			return "ok"
		}
		return s
	}
	return "! does not compile:\n    code-generator: " + none(d.Codegen) + "\n           ctrlgen: " + none(d.Ctrlgen)
}

// Report writes diffs grouped by package: a heading per package with its
// counts, then one entry per difference, at most perPackage of them
// (0: all), and at most maxLines lines in all (0: no limit), saying how
// many it left out.
func Report(diffs []Diff, perPackage, maxLines int) string {
	var b strings.Builder
	lines, omitted, omittedPkgs := 0, 0, 0
	for i := 0; i < len(diffs); {
		j := i
		for j < len(diffs) && diffs[j].Package == diffs[i].Package {
			j++
		}
		group := diffs[i:j]
		i = j
		if maxLines > 0 && lines >= maxLines {
			omitted += len(group)
			omittedPkgs++
			continue
		}
		var counts [4]int
		for _, d := range group {
			counts[d.Kind]++
		}
		var parts []string
		for k, n := range counts {
			if n > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", n, Kind(k)))
			}
		}
		fmt.Fprintf(&b, "%s: %s\n", group[0].Package, strings.Join(parts, ", "))
		lines++
		for n, d := range group {
			if (perPackage > 0 && n >= perPackage) || (maxLines > 0 && lines >= maxLines) {
				fmt.Fprintf(&b, "    … and %d more in this package\n", len(group)-n)
				lines++
				break
			}
			l := d.Line()
			b.WriteString("    " + strings.ReplaceAll(l, "\n", "\n    ") + "\n")
			lines += strings.Count(l, "\n") + 1
		}
	}
	if omitted > 0 {
		fmt.Fprintf(&b, "… and %d more differences in %d more packages\n", omitted, omittedPkgs)
	}
	return b.String()
}
