package builder

import (
	"sort"
	"strings"

	"github.com/ctrlgen/ctrlgen/internal/markers"
	"github.com/ctrlgen/ctrlgen/internal/model"
	"github.com/ctrlgen/ctrlgen/internal/typegraph"
)

var runtimeObject = markers.TypeName{Pkg: "k8s.io/apimachinery/pkg/runtime", Name: "Object"}

// deepCopy reads a writable package's deep-copy markers. As deepcopy-gen,
// a package takes part when it says "+k8s:deepcopy-gen=package" or a type
// says "=true"; kubebuilder's "+kubebuilder:object:generate" is read as
// the same marker.
func (b *builder) deepCopy(a *apiPackage) *model.DeepCopy {
	all, pkgSet := either(b, a.markers, markers.DeepCopyPackage, markers.ObjectGenerate, func(v markers.DeepCopyPackageValue) bool { return v.Enabled })
	if pkgSet && !all {
		return nil
	}
	active := all
	enabled := map[string]*bool{}
	for _, t := range a.types {
		on, set := either(b, t.markers, markers.DeepCopyType, markers.ObjectGenerate, func(v bool) bool { return v })
		if set {
			enabled[t.spec.Name.Name] = &on
			active = active || on
		}
	}
	if !active {
		return nil
	}
	kinds := map[string]bool{}
	for _, t := range a.types {
		if markers.GenClient.Has(t.markers) {
			kinds[t.spec.Name.Name], kinds[t.spec.Name.Name+"List"] = true, true
		}
	}
	dc := &model.DeepCopy{All: all}
	for _, t := range a.types {
		if t.spec.Assign.IsValid() {
			continue // an alias's type gets its copy functions where it is declared
		}
		name := t.spec.Name.Name
		typ, err := b.graph.Named(a.src.Path, name)
		if err != nil {
			b.errs = append(b.errs, err)
			continue
		}
		dt := &model.DeepCopyType{Type: typ, Enabled: enabled[name]}
		dt.NonPointerInterfaces, _ = markers.DeepCopyNonPointer.Get(t.markers)
		var intfs []markers.TypeName
		for _, v := range markers.DeepCopyInterfaces.All(t.markers) {
			intfs = append(intfs, v.V...)
		}
		if root, _ := markers.ObjectRoot.Get(t.markers); root || kinds[name] {
			intfs = append(intfs, runtimeObject)
		}
		dt.Interfaces = b.interfaces(intfs)
		dc.Types = append(dc.Types, dt)
	}
	return dc
}

// either reads a marker that has a kubebuilder twin, reporting a
// conflict between the two.
func either[T any](b *builder, s markers.Set, k8s *markers.Definition[T], kb *markers.Definition[bool], on func(T) bool) (bool, bool) {
	v, set := k8s.Get(s)
	kbOn, kbSet := kb.Get(s)
	switch {
	case set && kbSet && on(v) != kbOn:
		b.errorf(kb.Pos(s), "+%s contradicts +%s at %s", kb.Name(), k8s.Name(), k8s.Pos(s))
	case kbSet:
		return kbOn, true
	}
	return set && on(v), set
}

// interfaces resolves DeepCopy<Interface> targets, without duplicates,
// sorted by full name as deepcopy-gen sorts them.
func (b *builder) interfaces(names []markers.TypeName) []*typegraph.Type {
	seen := map[markers.TypeName]bool{}
	var out []*typegraph.Type
	for _, n := range names {
		if seen[n] {
			continue
		}
		seen[n] = true
		t, err := b.graph.Named(n.Pkg, n.Name)
		if err != nil {
			b.errs = append(b.errs, err)
			continue
		}
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// prefetch lists, in one `go list`, every package that the writable
// packages taking part in deep copies import: their types are what the
// copy functions have to look at.
func (b *builder) prefetch(apis []*apiPackage) error {
	var paths []string
	for _, a := range apis {
		if a.src.ReadOnly || !mentionsDeepCopy(a) {
			continue
		}
		for _, f := range a.src.Files {
			for _, imp := range f.Syntax.Imports {
				paths = append(paths, strings.Trim(imp.Path.Value, "\"`"))
			}
		}
	}
	if len(paths) == 0 {
		return nil
	}
	return b.prog.Prefetch(append(paths, runtimeObject.Pkg))
}

func mentionsDeepCopy(a *apiPackage) bool {
	if markers.DeepCopyPackage.Has(a.markers) || markers.ObjectGenerate.Has(a.markers) {
		return true
	}
	for _, t := range a.types {
		if markers.DeepCopyType.Has(t.markers) || markers.ObjectGenerate.Has(t.markers) {
			return true
		}
	}
	return false
}
