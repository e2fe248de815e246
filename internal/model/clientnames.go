package model

// This file holds what the clientset, lister and informer generators need
// beyond model.go: the per-output selections of kinds and where generated
// packages go.

import (
	"fmt"
	"path/filepath"
	"strings"
)

// DirOf returns the directory of a generated package: OutputDir joined with
// the package's import path relative to OutputPkg.
func (p *Project) DirOf(importPath string) (string, error) {
	if importPath == p.OutputPkg {
		return p.OutputDir, nil
	}
	rel, ok := strings.CutPrefix(importPath, p.OutputPkg+"/")
	if !ok {
		return "", fmt.Errorf("package %s is not under the output package %s", importPath, p.OutputPkg)
	}
	return filepath.Join(p.OutputDir, filepath.FromSlash(rel)), nil
}

// InTree reports whether path lies below the directory of the generated
// package importPath, in it or in a package under it.
func (p *Project) InTree(importPath, path string) bool {
	dir, err := p.DirOf(importPath)
	if err != nil {
		return false
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// WritesTypeFile reports whether path is a file called name in the
// directory of one of the project's writable API packages.
func (p *Project) WritesTypeFile(name, path string) bool {
	if filepath.Base(path) != name {
		return false
	}
	dir := filepath.Dir(path)
	for _, pkg := range p.Packages {
		if !pkg.ReadOnly && filepath.Clean(pkg.Dir) == dir {
			return true
		}
	}
	return false
}

// ClientVersions are the versions that get a typed group client: those
// with at least one kind that gets a typed client, and those asking for
// one without kinds (GroupClient), in model order.
func (p *Project) ClientVersions() []*Version {
	var out []*Version
	for _, g := range p.Groups {
		for _, v := range g.Versions {
			if v.GroupClient || len(v.ClientKinds()) > 0 {
				out = append(out, v)
			}
		}
	}
	return out
}

// InformerGroups are the groups with at least one kind that gets an
// informer.
func (p *Project) InformerGroups() []*Group {
	var out []*Group
	for _, g := range p.Groups {
		if len(g.InformerVersions()) > 0 {
			out = append(out, g)
		}
	}
	return out
}

// InformerVersions are the group's versions with at least one kind that
// gets an informer.
func (g *Group) InformerVersions() []*Version {
	var out []*Version
	for _, v := range g.Versions {
		if len(v.InformerKinds()) > 0 {
			out = append(out, v)
		}
	}
	return out
}

// InformerGroupPkg is the import path of the group's informer package,
// which every version names.
func (g *Group) InformerGroupPkg() string {
	if len(g.Versions) == 0 {
		return ""
	}
	return g.Versions[0].InformerGroupPkg
}

// ClientKinds are the kinds that get a typed client.
func (v *Version) ClientKinds() []*Kind { return v.kinds(func(k *Kind) bool { return k.Client }) }

// ListerKinds are the kinds that get a lister.
func (v *Version) ListerKinds() []*Kind { return v.kinds(func(k *Kind) bool { return k.Lister }) }

// InformerKinds are the kinds that get an informer. An informer lists and
// watches through the typed client and serves a lister, so a kind needs
// both.
func (v *Version) InformerKinds() []*Kind {
	return v.kinds(func(k *Kind) bool { return k.Informer && k.Client && k.Lister })
}

func (v *Version) kinds(keep func(*Kind) bool) []*Kind {
	var out []*Kind
	for _, k := range v.Kinds {
		if keep(k) {
			out = append(out, k)
		}
	}
	return out
}

// HasStatusVerb reports whether the typed client has UpdateStatus: the verb
// is allowed and the kind has a status.
func (k *Kind) HasStatusVerb() bool { return k.HasStatus && k.Has(VerbUpdateStatus) }

// HasListClient reports whether the typed client needs list support: List,
// or DeleteCollection, which gentype implements next to List.
func (k *Kind) HasListClient() bool { return k.Has(VerbList) || k.Has(VerbDeleteCollection) }

// ClientMethods are the extra methods the typed client gets: those whose
// verb is get, list, create, update or patch (the markers allow no others
// but apply). Apply methods are left out, as client-gen leaves them out
// when it generates no apply configurations.
func (k *Kind) ClientMethods() []*Method {
	var out []*Method
	for _, m := range k.Methods {
		switch m.Verb {
		case VerbGet, VerbList, VerbCreate, VerbUpdate, VerbPatch:
			out = append(out, m)
		}
	}
	return out
}

// GeneratesApplyConfigurations reports whether some version's apply
// configurations are this run's to generate, not another's or client-go's.
func GeneratesApplyConfigurations(p *Project) bool {
	if p.ApplyConfigurationsPkg == "" || p.ApplyConfigurationsExternal {
		return false
	}
	for _, pkg := range p.Packages {
		if pkg.Version != nil && strings.HasPrefix(pkg.Version.ApplyConfigPkg, p.ApplyConfigurationsPkg+"/") {
			return true
		}
	}
	return false
}

// HasApply reports whether the typed client has Apply: the verb is
// allowed and apply configurations exist (generated or external).
func (k *Kind) HasApply() bool { return k.Version.ApplyConfigPkg != "" && k.Has(VerbApply) }

// HasApplyStatusVerb reports whether the typed client has ApplyStatus, as
// client-gen decides: apply configurations exist, the verb is allowed and
// the kind has a status. Like client-gen, it does not ask for Apply: a
// kind that skips apply but not applyStatus gets a client that does not
// compile, which builder.kind reports instead.
func (k *Kind) HasApplyStatusVerb() bool {
	return k.Version.ApplyConfigPkg != "" && k.HasStatus && k.Has(VerbApplyStatus)
}

// ApplyMethods are the "+genclient:method=" extras with verb apply, which
// the typed client has only with apply configurations.
func (k *Kind) ApplyMethods() []*Method {
	if k.Version.ApplyConfigPkg == "" {
		return nil
	}
	var out []*Method
	for _, m := range k.Methods {
		if m.Verb == VerbApply {
			out = append(out, m)
		}
	}
	return out
}

// IsSubresource reports whether the method acts on a subresource.
func (m *Method) IsSubresource() bool { return m.Subresource != "" }
