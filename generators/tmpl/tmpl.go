// Package tmpl renders the embedded templates (package templates) into
// gen.Files.
//
// Templates are parsed once, as one set named by their path in
// templates.FS, so a template may call a {{define}} of another. A render
// clones the set and binds these functions to the file being written, so
// that every import is recorded where it is used and unused imports never
// appear:
//
//	std KEY            qualifier of a well-known package, e.g. std "metav1"
//	imp PATH [ALIAS]   qualifier of PATH, imported as ALIAS when free
//	kind K             the kind's Go type, qualified: "crddemov1.Mydemo"
//	list K             the kind's list type, qualified
//	ref R K            a model.TypeRef, qualified; an empty Pkg is K's package
//	dict K V ...       a map, to pass several values to a {{template}}
package tmpl

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"text/template"

	"github.com/ctrlgen/ctrlgen/generators/gen"
	"github.com/ctrlgen/ctrlgen/internal/model"
	"github.com/ctrlgen/ctrlgen/templates"
)

// Std are the packages templates name by key with std; the key is the
// alias asked for.
var Std = map[string]string{
	"context":       "context",
	"fmt":           "fmt",
	"http":          "net/http",
	"reflect":       "reflect",
	"time":          "time",
	"metav1":        "k8s.io/apimachinery/pkg/apis/meta/v1",
	"runtime":       "k8s.io/apimachinery/pkg/runtime",
	"schema":        "k8s.io/apimachinery/pkg/runtime/schema",
	"serializer":    "k8s.io/apimachinery/pkg/runtime/serializer",
	"utilruntime":   "k8s.io/apimachinery/pkg/util/runtime",
	"types":         "k8s.io/apimachinery/pkg/types",
	"watch":         "k8s.io/apimachinery/pkg/watch",
	"labels":        "k8s.io/apimachinery/pkg/labels",
	"rest":          "k8s.io/client-go/rest",
	"discovery":     "k8s.io/client-go/discovery",
	"fakediscovery": "k8s.io/client-go/discovery/fake",
	"flowcontrol":   "k8s.io/client-go/util/flowcontrol",
	"gentype":       "k8s.io/client-go/gentype",
	"testing":       "k8s.io/client-go/testing",
	"cache":         "k8s.io/client-go/tools/cache",
	"ctrlcache":     "github.com/ctrlgen/ctrlgen/runtime/cache",
	"listers":       "github.com/ctrlgen/ctrlgen/runtime/listers",
	"informers":     "github.com/ctrlgen/ctrlgen/runtime/informers",
	"fakeclient":    "github.com/ctrlgen/ctrlgen/runtime/fakeclient",
	"controller":    "github.com/ctrlgen/ctrlgen/runtime/controller",
	"manager":       "github.com/ctrlgen/ctrlgen/runtime/manager",
	"admission":     "github.com/ctrlgen/ctrlgen/runtime/webhook/admission",
	"field":         "k8s.io/apimachinery/pkg/util/validation/field",
	"equality":      "k8s.io/apimachinery/pkg/api/equality",
	"record":        "k8s.io/client-go/tools/record",
	"klog":          "k8s.io/klog/v2",
	"apply":         "k8s.io/client-go/util/apply",
	"json":          "encoding/json",
	"managedfields": "k8s.io/apimachinery/pkg/util/managedfields",
	"typed":         "sigs.k8s.io/structured-merge-diff/v6/typed",
}

var (
	parseOnce sync.Once
	parsed    *template.Template
	parseErr  error
)

// stubs declare the functions at parse time; Render binds real ones.
var stubs = template.FuncMap{
	"std":         func(string) string { return "" },
	"imp":         func(string, ...string) string { return "" },
	"kind":        func(*model.Kind) string { return "" },
	"list":        func(*model.Kind) string { return "" },
	"ref":         func(model.TypeRef, *model.Kind) string { return "" },
	"applyconfig": func(*model.Kind) string { return "" },
	"acref":       func(model.TypeRef) string { return "" },
	"dict":        dict,
}

func parseAll() (*template.Template, error) {
	parseOnce.Do(func() {
		set := template.New("").Funcs(stubs).Option("missingkey=error")
		var names []string
		parseErr = fs.WalkDir(templates.FS, ".", func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".tmpl") {
				names = append(names, p)
			}
			return err
		})
		sort.Strings(names)
		for _, name := range names {
			if parseErr != nil {
				break
			}
			var src []byte
			if src, parseErr = fs.ReadFile(templates.FS, name); parseErr == nil {
				_, parseErr = set.New(name).Parse(string(src))
			}
		}
		parsed = set
	})
	return parsed, parseErr
}

// Render executes the template called name (its path in templates.FS) with
// data and appends the result to f's body.
func Render(f *gen.File, name string, data any) error {
	set, err := parseAll()
	if err != nil {
		return fmt.Errorf("templates: %w", err)
	}
	set, err = set.Clone()
	if err != nil {
		return err
	}
	set.Funcs(funcsFor(f))
	var b bytes.Buffer
	if err := set.ExecuteTemplate(&b, name, data); err != nil {
		return fmt.Errorf("%s: %w", f.Path, err)
	}
	_, err = f.Write(b.Bytes())
	return err
}

func funcsFor(f *gen.File) template.FuncMap {
	typesOf := func(k *model.Kind) string {
		return f.ImportAs(k.Version.TypesPkg, k.Version.TypesAlias)
	}
	qualify := func(q, name string) string {
		if q == "" {
			return name
		}
		return q + "." + name
	}
	return template.FuncMap{
		"std": func(key string) (string, error) {
			p, ok := Std[key]
			if !ok {
				return "", fmt.Errorf("std: unknown package key %q", key)
			}
			return f.ImportAs(p, key), nil
		},
		"imp": func(path string, alias ...string) string {
			if len(alias) > 0 {
				return f.ImportAs(path, alias[0])
			}
			return f.Import(path)
		},
		"kind": func(k *model.Kind) string { return qualify(typesOf(k), k.Name) },
		"list": func(k *model.Kind) string { return qualify(typesOf(k), k.ListName) },
		"ref": func(r model.TypeRef, k *model.Kind) string {
			if r.Pkg == "" || r.Pkg == k.Version.TypesPkg {
				return qualify(typesOf(k), r.Name)
			}
			return qualify(f.ImportAs(r.Pkg, versionedAlias(r.Pkg)), r.Name)
		},
		"applyconfig": func(k *model.Kind) string {
			return qualify(f.ImportAs(k.Version.ApplyConfigPkg, k.Version.ApplyConfigAlias), k.Name+"ApplyConfiguration")
		},
		"acref": func(r model.TypeRef) string {
			return qualify(f.ImportAs(r.Pkg, "applyconfiguration"+versionedAlias(r.Pkg)), r.Name)
		},
		"dict": dict,
	}
}

// versionedAlias is the alias client-gen gives an API package:
// "autoscalingv1" for k8s.io/api/autoscaling/v1; "" (the default) for a
// path that does not end in a version.
func versionedAlias(importPath string) string {
	parent, base := path.Split(importPath)
	if !isVersion(base) || parent == "" {
		return ""
	}
	return gen.DefaultAlias(strings.TrimSuffix(parent, "/")) + base
}

// isVersion matches kube versions: v1, v2beta1, v1alpha3.
func isVersion(s string) bool {
	rest, ok := strings.CutPrefix(s, "v")
	if !ok {
		return false
	}
	digits := func(s string) (string, bool) {
		i := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return s[i:], i > 0
	}
	rest, ok = digits(rest)
	if !ok {
		return false
	}
	if rest == "" {
		return true
	}
	for _, stage := range []string{"alpha", "beta"} {
		if r, ok := strings.CutPrefix(rest, stage); ok {
			r, ok = digits(r)
			return ok && r == ""
		}
	}
	return false
}

// Data is what a template is executed with: the node it is about and the
// nodes above it.
type Data struct {
	P *model.Project
	G *model.Group
	V *model.Version
	K *model.Kind
}

func dict(kv ...any) (map[string]any, error) {
	if len(kv)%2 != 0 {
		return nil, fmt.Errorf("dict: odd number of arguments")
	}
	m := make(map[string]any, len(kv)/2)
	for i := 0; i < len(kv); i += 2 {
		k, ok := kv[i].(string)
		if !ok {
			return nil, fmt.Errorf("dict: key %v is not a string", kv[i])
		}
		m[k] = kv[i+1]
	}
	return m, nil
}

// Set renders the files of one generator. It keeps the first error, so
// that a generator can add every file and check once, in Files.
type Set struct {
	p     *model.Project
	files []*gen.File
	err   error
}

// NewSet returns an empty set for p; it fails at once when the names
// builder.DeriveClientNames fills are missing.
func NewSet(p *model.Project) *Set {
	s := &Set{p: p}
	for _, g := range p.Groups {
		if g.APIPath == "" {
			s.err = fmt.Errorf("model: group %q has no client names: builder.DeriveClientNames was not called", g.Name)
		}
	}
	return s
}

// Add renders the template called name with data into a new file called
// fileName in the generated package importPath.
func (s *Set) Add(importPath, fileName, name string, data Data) {
	if f := s.newFile(importPath, fileName); f != nil {
		s.AddFile(f, name, data)
	}
}

// AddDoc gives the generated package importPath the package comment doc,
// in doc.go. When the set already has a doc.go there (a kind named Doc),
// the comment goes on it, as gengo merges two generators' files of one
// name; call AddDoc after the package's other files.
func (s *Set) AddDoc(importPath, doc string) {
	f := s.newFile(importPath, "doc.go")
	if f == nil {
		return
	}
	for _, existing := range s.files {
		if existing.Path == f.Path {
			existing.Doc = doc
			return
		}
	}
	f.Doc = doc
	s.files = append(s.files, f)
}

// newFile returns an empty file called fileName in the generated package
// importPath, or nil after an error.
func (s *Set) newFile(importPath, fileName string) *gen.File {
	if s.err != nil {
		return nil
	}
	dir, err := s.p.DirOf(importPath)
	if err != nil {
		s.err = err
		return nil
	}
	return gen.NewFile(filepath.Join(dir, fileName), packageClause(importPath), importPath)
}

// packageClause is the name of a generated package: its directory's, up
// to the first dot, as informer-gen names a group's package after its
// directory ("networking.x-k8s.io" → "networking"), less what a Go name
// cannot hold.
func packageClause(importPath string) string {
	name, _, _ := strings.Cut(path.Base(importPath), ".")
	return gen.DefaultAlias(name)
}

// AddFile renders the template called name with data into f, a file
// made by the caller (outside the output packages, or not Generated).
func (s *Set) AddFile(f *gen.File, name string, data Data) {
	if s.err != nil {
		return
	}
	if s.err = Render(f, name, data); s.err == nil {
		s.files = append(s.files, f)
	}
}

// Files returns the files added, or the first error.
func (s *Set) Files() ([]*gen.File, error) {
	if s.err != nil {
		return nil, s.err
	}
	return s.files, nil
}
