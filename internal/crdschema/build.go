// Package crdschema derives CustomResourceDefinitions from Go API types and
// their kubebuilder markers, with the meaning controller-gen v0.23.0 gives
// them: the same schema for the same types, field by field. It walks the
// declarations of the builder's type graph (typegraph.Graph.Declared),
// with the markers the builder collected there; types from other
// packages (k8s.io/api, apimachinery) are read on demand and walked with
// their own markers, except the few apimachinery types controller-gen
// hard-codes (known.go), whose packages are not read.
package crdschema

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ctrlgen/ctrlgen/internal/loader"
	"github.com/ctrlgen/ctrlgen/internal/markers"
	"github.com/ctrlgen/ctrlgen/internal/model"
	"github.com/ctrlgen/ctrlgen/internal/plural"
	"github.com/ctrlgen/ctrlgen/internal/typegraph"
)

const metav1 = "k8s.io/apimachinery/pkg/apis/meta/v1"

// Options say where the CRDs go and how kinds are pluralised.
type Options struct {
	// Dir is the directory of the manifests: <Dir>/<group>_<plural>.yaml.
	Dir string
	// Plural is a kind's resource name before +kubebuilder:resource:path,
	// the one its typed client uses, so that client and CRD agree; nil
	// means plural.Of with plural.DefaultExceptions, in lower case.
	Plural func(kind string) string
}

// Build returns the CRD of every root kind in the packages roots (import
// paths, loaded in prog, their types resolved in g), sorted by file: of
// every type that embeds metav1.TypeMeta and metav1.ObjectMeta in a
// package with +groupName.
func Build(prog *loader.Program, g *typegraph.Graph, roots []string, opts Options) ([]*model.CRD, error) {
	if err := prefetchImports(prog, roots); err != nil {
		return nil, err
	}
	s := &schemas{g: g, fset: prog.Fset, raw: map[model.TypeRef]*model.Schema{}, flat: map[model.TypeRef]*model.Schema{}}
	type version struct {
		name string
		t    *typegraph.Type
	}
	type apiPackage struct {
		p              *typegraph.Package
		group, version string
	}
	var pkgs []apiPackage
	for _, path := range roots {
		p, err := g.Package(path)
		if err != nil {
			return nil, err
		}
		pm, _, err := g.PackageMarkers(path)
		if err != nil {
			return nil, err
		}
		group, ok := markers.GroupName.Get(pm)
		if !ok || markers.Skip.Has(pm) {
			continue
		}
		ver := p.Name
		if v, ok := markers.VersionName.Get(pm); ok {
			ver = v
		}
		pkgs = append(pkgs, apiPackage{p, group, ver})
	}
	// As controller-gen: a kind is a type that embeds metav1.TypeMeta and
	// metav1.ObjectMeta, and its versions are the group's packages that
	// declare a type of that name (such as gateway-api's
	// "type Gateway v1.Gateway" in v1beta1).
	kinds := map[[2]string][]version{} // {group, kind}
	for _, a := range pkgs {
		for _, name := range a.p.StructTypes() {
			if isRootKind(g, typegraph.Name{Pkg: a.p.Path, Name: name}) {
				kinds[[2]string{a.group, name}] = nil
			}
		}
	}
	for k := range kinds {
		for _, a := range pkgs {
			if a.group != k[0] || !a.p.HasType(k[1]) {
				continue
			}
			t, err := g.Declared(typegraph.Name{Pkg: a.p.Path, Name: k[1]})
			if err != nil {
				s.errs = append(s.errs, err)
				continue
			}
			kinds[k] = append(kinds[k], version{a.version, t})
		}
	}
	keys := make([][2]string, 0, len(kinds))
	for k := range kinds {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i][1]+"."+keys[i][0] < keys[j][1]+"."+keys[j][0] })
	var out []*model.CRD
	for _, k := range keys {
		vs := kinds[k]
		sort.SliceStable(vs, func(i, j int) bool { return vs[i].name < vs[j].name })
		crd := newCRD(k[0], k[1], opts, s.typeMarkers(vs[0].t))
		for _, v := range vs {
			var errs []error
			root := flattenAllOf(s.resolved(model.TypeRef{Pkg: v.t.Name.Pkg, Name: v.t.Name.Name}), &errs)
			for _, e := range errs {
				s.errorf(at(v.t), "%s: %v", v.t.Name.Name, e)
			}
			if _, ok := root.Properties["metadata"]; ok {
				r := *root
				r.Properties = maps.Clone(root.Properties)
				r.Properties["metadata"] = &model.Schema{Type: "object"}
				root = &r
			}
			for _, e := range structural(root) {
				s.errorf(at(v.t), "the schema of %s %s is not structural, the apiserver would reject it: %v", v.name, v.t.Name.Name, e)
			}
			crd.Spec.Versions = append(crd.Spec.Versions, model.CRDVersion{
				Name: v.name, Served: true,
				Schema: &model.CRDValidation{OpenAPIV3Schema: root},
			})
		}
		for _, v := range vs {
			s.errs = append(s.errs, applyCRDMarkers(crd, v.name, v.t, s.typeMarkers(v.t))...)
		}
		crd.Metadata.Name = crd.Spec.Names.Plural + "." + crd.Spec.Group
		crd.Path = filepath.Join(opts.Dir, crd.Spec.Group+"_"+crd.Spec.Names.Plural+".yaml")
		if len(crd.Spec.Versions) == 0 {
			continue
		}
		if len(crd.Spec.Versions) == 1 {
			crd.Spec.Versions[0].Storage = true
		}
		storage, served := 0, false
		for _, v := range crd.Spec.Versions {
			if v.Storage {
				storage++
			}
			served = served || v.Served
		}
		switch {
		case storage == 0:
			s.errorf(at(vs[0].t), "CRD for %s.%s has no storage version: mark one version's type +kubebuilder:storageversion", k[1], k[0])
		case storage > 1:
			s.errorf(at(vs[0].t), "CRD for %s.%s has %d storage versions; +kubebuilder:storageversion must mark one", k[1], k[0], storage)
		case !served:
			s.errorf(at(vs[0].t), "CRD for %s.%s serves no version", k[1], k[0])
		}
		out = append(out, crd)
	}
	if len(s.errs) > 0 {
		return nil, errors.Join(dedupe(s.errs)...)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// prefetchImports tells prog which packages the schemas will look into
// first: those the roots import.
func prefetchImports(prog *loader.Program, roots []string) error {
	var paths []string
	for _, r := range prog.Roots {
		if !slices.Contains(roots, r.Path) {
			continue
		}
		for _, f := range r.Files {
			for _, imp := range f.Syntax.Imports {
				if p, err := strconv.Unquote(imp.Path.Value); err == nil {
					paths = append(paths, p)
				}
			}
		}
	}
	return prog.Prefetch(paths)
}

func dedupe(errs []error) []error {
	seen := map[string]bool{}
	var out []error
	for _, e := range errs {
		if !seen[e.Error()] {
			seen[e.Error()] = true
			out = append(out, e)
		}
	}
	return out
}

// isRootKind says whether the struct type n is a kind a CRD is made for:
// a Kubernetes object, embedding metav1.TypeMeta and metav1.ObjectMeta.
// Such types are the ones marked +kubebuilder:object:root, +genclient or
// +ctrlgen:controller (list types embed metav1.ListMeta); controller-gen
// asks for no marker, and neither does ctrlgen.
func isRootKind(g *typegraph.Graph, n typegraph.Name) bool {
	t, err := g.Declared(n)
	if err != nil {
		return false
	}
	var typeMeta, objectMeta bool
	for _, f := range fields(t) {
		if !f.Embedded || f.Type.Name.Pkg != metav1 {
			continue
		}
		typeMeta = typeMeta || f.Type.Name.Name == "TypeMeta"
		objectMeta = objectMeta || f.Type.Name.Name == "ObjectMeta"
	}
	return typeMeta && objectMeta
}

func newCRD(group, kind string, opts Options, m markers.Set) *model.CRD {
	var pl string
	if opts.Plural != nil {
		pl = opts.Plural(kind)
	} else {
		pl = strings.ToLower(plural.Of(kind, plural.DefaultExceptions))
	}
	if name, ok := markers.ResourceName.Get(m); ok {
		pl = name
	}
	scope := "Namespaced"
	if markers.NonNamespaced.Has(m) {
		scope = "Cluster"
	}
	return &model.CRD{
		APIVersion: "apiextensions.k8s.io/v1",
		Kind:       "CustomResourceDefinition",
		Spec: model.CRDSpec{
			Group: group,
			Names: model.CRDNames{Kind: kind, ListKind: kind + "List", Plural: pl, Singular: strings.ToLower(kind)},
			Scope: scope,
		},
	}
}

// applyCRDMarkers applies a version's type markers to the CRD, as
// controller-gen's ApplyToCRD: names and scope from +kubebuilder:resource
// (the last version's win), everything else to the version.
func applyCRDMarkers(crd *model.CRD, version string, t *typegraph.Type, m markers.Set) []error {
	var v *model.CRDVersion
	for i := range crd.Spec.Versions {
		if crd.Spec.Versions[i].Name == version {
			v = &crd.Spec.Versions[i]
		}
	}
	if v == nil {
		return nil
	}
	var errs []error
	if r, ok := markers.Resource.Get(m); ok {
		if r.Path != "" {
			crd.Spec.Names.Plural = r.Path
		}
		if r.Singular != "" {
			crd.Spec.Names.Singular = r.Singular
		}
		crd.Spec.Names.ShortNames = r.ShortName
		crd.Spec.Names.Categories = r.Categories
		crd.Spec.Scope = "Namespaced"
		if r.Scope != "" {
			crd.Spec.Scope = r.Scope
		}
	}
	subresources := func() *model.Subresources {
		if v.Subresources == nil {
			v.Subresources = &model.Subresources{}
		}
		return v.Subresources
	}
	if markers.StatusSubresource.Has(m) {
		subresources().Status = &struct{}{}
	}
	if sc, ok := markers.ScaleSubresource.Get(m); ok {
		subresources().Scale = &model.ScaleSubresource{SpecReplicasPath: sc.SpecPath, StatusReplicasPath: sc.StatusPath, LabelSelectorPath: sc.SelectorPath}
	}
	for _, c := range markers.PrintColumnMarker.All(m) {
		subresources()
		v.AdditionalPrinterColumns = append(v.AdditionalPrinterColumns, model.PrinterColumn{
			Name: c.V.Name, Type: c.V.Type, JSONPath: c.V.JSONPath, Description: c.V.Description, Format: c.V.Format, Priority: c.V.Priority})
	}
	for _, f := range markers.SelectableField.All(m) {
		v.SelectableFields = append(v.SelectableFields, model.SelectableField{JSONPath: f.V})
	}
	if markers.StorageVersion.Has(m) {
		v.Storage = true
	}
	if markers.UnservedVersion.Has(m) {
		v.Served = false
	}
	if w, ok := markers.DeprecatedVersion.Get(m); ok {
		v.Deprecated = true
		v.DeprecationWarning = w
	}
	for _, md := range markers.Metadata.All(m) {
		for _, a := range md.V.Annotations {
			k, val, _ := strings.Cut(a, "=")
			if crd.Metadata.Annotations == nil {
				crd.Metadata.Annotations = map[string]string{}
			}
			crd.Metadata.Annotations[k] = val
		}
		for _, l := range md.V.Labels {
			k, val, _ := strings.Cut(l, "=")
			if crd.Metadata.Labels == nil {
				crd.Metadata.Labels = map[string]string{}
			}
			crd.Metadata.Labels[k] = val
		}
	}
	if markers.SkipVersion.Has(m) {
		if len(crd.Spec.Versions) == 1 {
			errs = append(errs, fmt.Errorf("%s: +kubebuilder:skipversion: cannot skip the only version", at(t)))
		}
		kept := crd.Spec.Versions[:0]
		for _, cv := range crd.Spec.Versions {
			if cv.Name != version {
				kept = append(kept, cv)
			}
		}
		crd.Spec.Versions = kept
	}
	return errs
}
