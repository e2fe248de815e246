// Package applyconfiguration generates apply configurations, the typed
// builders of server-side apply, with the exported API applyconfiguration-gen
// v0.37.2 writes when kube_codegen.sh runs it with --with-applyconfig:
//
//   - <OutputPkg>/applyconfiguration/<group dir>/<version>/<type>.go: a
//     <Type>ApplyConfiguration for every struct reachable from a kind with
//     the apply verb, its constructor, With<Field> setters and, for kinds,
//     Extract<Kind>, Extract<Kind>From and Extract<Kind><Subresource>;
//   - <OutputPkg>/applyconfiguration/utils.go: ForKind and NewTypeConverter;
//   - <OutputPkg>/applyconfiguration/internal/internal.go: Parser, the
//     structured-merge-diff schema of every type the configurations reach.
//
// applyconfiguration-gen takes that schema from an OpenAPI document
// openapi-gen writes, and without one writes no Extract functions and an
// empty schema, with which a field-managed fake cannot apply custom types.
// ctrlgen derives the schema from the Go types it has read (schema.go) and
// always writes both. Types of k8s.io/api and the apimachinery meta types
// use client-go's apply configurations, as applyconfiguration-gen's
// --external-applyconfigurations makes them, and their schema is derived
// into ours from their Go types too.
package applyconfiguration

import (
	"errors"
	"fmt"
	"path"
	"reflect"
	"strings"

	"github.com/ctrlgen/ctrlgen/generators/gen"
	"github.com/ctrlgen/ctrlgen/internal/model"
	"github.com/ctrlgen/ctrlgen/internal/typegraph"
)

// Generator is the "applyconfiguration" generator.
type Generator struct{}

func (Generator) Name() string { return "applyconfiguration" }

// Needs says what the generator asks of a run.
func (Generator) Needs() gen.Needs { return gen.Needs{ApplyConfigurationTypes: true} }

// Owns is true below <OutputPkg>/applyconfiguration, unless the apply
// configurations are another's (--apply-configuration-package): so that
// turning them off removes the ones generated before.
func (Generator) Owns(p *model.Project, path string) bool {
	return !p.ApplyConfigurationsExternal && p.InTree(p.OutputPkg+"/applyconfiguration", path)
}

// Generate returns the apply configurations; none when they are off or
// another's, or when every version's are client-go's (k8s.io/api
// inputs). utils.go and internal.go are written even when no kind has
// the apply verb, as applyconfiguration-gen does, so that the fake
// clientset's NewClientset always has its NewTypeConverter.
func (Generator) Generate(p *model.Project) ([]*gen.File, error) {
	if !model.GeneratesApplyConfigurations(p) {
		return nil, nil
	}
	if p.ApplyConfigurationTypes == nil {
		return nil, errors.New("the model was built without its apply configuration types (builder.Options.NoApplyConfigurationTypes)")
	}
	g := &graph{p: p, ApplyConfigurationTypes: p.ApplyConfigurationTypes}
	var files []*gen.File
	for _, tg := range g.Targets {
		for _, t := range tg.Types {
			f, err := g.newFile(tg.Version.ApplyConfigPkg, strings.ToLower(t.Name.Name)+".go")
			if err != nil {
				return nil, err
			}
			f.Formatted = true
			w := &typeWriter{g: g, f: f, v: tg.Version, t: t, kind: g.Kinds[t.Name]}
			if err := w.write(); err != nil {
				return nil, fmt.Errorf("apply configuration of %s: %w", t.Name, err)
			}
			files = append(files, f)
		}
	}
	utils, err := g.utils()
	if err != nil {
		return nil, err
	}
	internal, err := g.internal()
	if err != nil {
		return nil, err
	}
	return append(files, utils, internal), nil
}

// Packages of client-go and apimachinery the generated code names.
const (
	metaV1Pkg          = "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientGoApplyRoot  = "k8s.io/client-go/applyconfigurations"
	clientGoMetaApply  = clientGoApplyRoot + "/meta/v1"
	runtimePkg         = "k8s.io/apimachinery/pkg/runtime"
	schemaPkg          = "k8s.io/apimachinery/pkg/runtime/schema"
	managedFieldsPkg   = "k8s.io/apimachinery/pkg/util/managedfields"
	smdTypedPkg        = "sigs.k8s.io/structured-merge-diff/v6/typed"
	applyConfigSuffix  = "ApplyConfiguration"
	internalPkgElement = "internal"
)

// graph is what every file needs: which types have apply configurations
// and where, and which are kinds.
type graph struct {
	p *model.Project
	*model.ApplyConfigurationTypes
}

func (g *graph) newFile(importPath, fileName string) (*gen.File, error) {
	dir, err := g.p.DirOf(importPath)
	if err != nil {
		return nil, err
	}
	return gen.NewFile(dir+"/"+fileName, gen.DefaultAlias(path.Base(importPath)), importPath), nil
}

// jsonTags is a field's json tag, as applyconfiguration-gen reads it.
type jsonTags struct {
	name      string
	inline    bool
	omitempty bool
}

// String is the tag applyconfiguration-gen writes: an inline field's is
// empty, which encoding/json reads as inline for an embedded struct.
func (t jsonTags) String() string {
	var tag string
	if !t.inline {
		tag += t.name
	}
	if t.omitempty {
		tag += ",omitempty"
	}
	return tag
}

// lookupJSONTags reads m's json tag; false for a field without one or
// one that JSON skips.
func lookupJSONTags(m typegraph.Member) (jsonTags, bool) {
	tag, ok := reflect.StructTag(m.Tag).Lookup("json")
	if !ok || tag == "-" {
		return jsonTags{}, false
	}
	name, opts, _ := strings.Cut(tag, ",")
	t := jsonTags{name: name, inline: m.Embedded && name == "", omitempty: hasOption(opts, "omitempty")}
	if t.name == "" {
		t.name = m.Name
	}
	return t, true
}

func hasOption(opts, name string) bool {
	for _, o := range strings.Split(opts, ",") {
		if o == name {
			return true
		}
	}
	return false
}

// alias is the import alias for a package the apply configurations name:
// <parent><version> for API packages ("metav1", "corev1"), with
// "applyconfigurations" in front for client-go's apply configurations
// and "applyconfiguration" for ours, so that the three meta/v1 packages a
// file may need never collide.
func (g *graph) alias(pkg string) string {
	switch {
	case strings.HasPrefix(pkg, clientGoApplyRoot+"/"):
		return "applyconfigurations" + versionedAlias(pkg)
	case strings.HasPrefix(pkg, g.p.ApplyConfigurationsPkg+"/"):
		return "applyconfiguration" + versionedAlias(pkg)
	}
	return versionedAlias(pkg)
}

func versionedAlias(pkg string) string {
	parent, base := path.Split(pkg)
	if parent == "" || !strings.HasPrefix(base, "v") || len(base) < 2 || base[1] < '0' || base[1] > '9' {
		return gen.DefaultAlias(pkg)
	}
	return gen.DefaultAlias(strings.TrimSuffix(parent, "/")) + base
}

func (g *graph) qualify(f *gen.File) func(pkg string) string {
	return func(pkg string) string { return f.ImportAs(pkg, g.alias(pkg)) }
}

// raw writes t as Go source in f.
func (g *graph) raw(f *gen.File, t *typegraph.Type) string { return t.Print(g.qualify(f)) }

// ident writes the name of a declared identifier in f.
func (g *graph) ident(f *gen.File, pkg, name string) string {
	if q := g.qualify(f)(pkg); q != "" {
		return q + "." + name
	}
	return name
}

// isApplyConfig reports whether t is a struct with an apply
// configuration, or a pointer to one.
func (g *graph) isApplyConfig(t *typegraph.Type) bool {
	switch t.Kind {
	case typegraph.Struct:
		_, ok := g.Pkg[t.Name]
		return ok && t.IsNamed()
	case typegraph.Pointer:
		return g.isApplyConfig(t.Elem)
	}
	return false
}

// acType is the type an apply configuration has for a field of type t,
// as applyconfiguration-gen's applyConfigForType: structs with apply
// configurations are replaced by them, in maps and slices too, and
// pointers are dropped (the field itself is one).
type acType struct {
	// text is the type as Go source; elem, for maps and slices, the
	// element's; name the type's own name (a struct's, without package).
	text, name string
	elem       *acType
	pointer    bool
}

func (g *graph) acTypeOf(f *gen.File, t *typegraph.Type) *acType {
	switch t.Kind {
	case typegraph.Struct:
		if pkg, ok := g.Pkg[t.Name]; ok && t.IsNamed() {
			name := t.Name.Name + applyConfigSuffix
			return &acType{text: g.ident(f, pkg, name), name: name}
		}
	case typegraph.Map:
		if _, ok := g.Pkg[t.Elem.Name]; ok && t.Elem.IsNamed() {
			elem := g.acTypeOf(f, t.Elem)
			return &acType{text: "map[" + g.acTypeOf(f, t.Key).text + "]" + elem.text, elem: elem}
		}
	case typegraph.Slice:
		if _, ok := g.Pkg[t.Elem.Name]; ok && t.Elem.IsNamed() {
			elem := g.acTypeOf(f, t.Elem)
			return &acType{text: "[]" + elem.text, elem: elem}
		}
	case typegraph.Pointer:
		return g.acTypeOf(f, t.Elem)
	}
	return g.goTypeOf(f, t)
}

// goTypeOf is the type t keeps where no apply configuration replaces it:
// t itself, less its pointers.
func (g *graph) goTypeOf(f *gen.File, t *typegraph.Type) *acType {
	t = deref(t)
	a := &acType{text: g.raw(f, t), name: t.Name.Name}
	if t.Kind == typegraph.Map || t.Kind == typegraph.Slice {
		a.elem = &acType{text: g.raw(f, t.Elem), name: t.Elem.Name.Name}
	}
	return a
}

// ptr is the pointer to a: the parameter type of a With function for
// an apply configuration.
func (a *acType) ptr() *acType {
	return &acType{text: "*" + a.text, name: a.name, elem: a, pointer: true}
}

// target is what a pointer points to; a itself otherwise.
func (a *acType) target() *acType {
	if a.pointer {
		return a.elem
	}
	return a
}

// commentsWithoutMarkers returns comment lines as "// " lines, without
// the "+" marker lines, as applyconfiguration-gen copies them.
func commentsWithoutMarkers(lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "+") {
			continue
		}
		b.WriteString("// " + l + "\n")
	}
	return b.String()
}

// apiVersion is the kind's group/version, "v1" in the core group.
func apiVersion(v *model.Version) string {
	if v.Group.Name == "" {
		return v.Name
	}
	return v.Group.Name + "/" + v.Name
}
