package builder

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/ctrlgen/ctrlgen/internal/model"
	"github.com/ctrlgen/ctrlgen/internal/typegraph"
)

const (
	metaV1Pkg  = "k8s.io/apimachinery/pkg/apis/meta/v1"
	runtimePkg = "k8s.io/apimachinery/pkg/runtime"
)

// applyConfigurationTypes finds, as applyconfiguration-gen does, the
// types that get apply configurations: every struct reachable from a kind
// with an apply verb, and the input types of apply methods. Those of
// this run's versions are generated; those of k8s.io/api use client-go's
// where it has one, the meta/v1 ones and --external-applyconfigurations
// the package named.
func (b *builder) applyConfigurationTypes(p *model.Project) (*model.ApplyConfigurationTypes, error) {
	a := &model.ApplyConfigurationTypes{Pkg: map[typegraph.Name]string{}, Kinds: map[typegraph.Name]*model.Kind{}}
	for _, externals := range []map[model.TypeRef]string{model.MetaApplyConfigurations, b.opts.ExternalApplyConfigurations} {
		for t, pkg := range externals {
			a.Pkg[typegraph.Name{Pkg: t.Pkg, Name: t.Name}] = pkg
		}
	}
	inputs := map[string]*model.Version{}
	for _, pkg := range p.Packages {
		if pkg.Version == nil || pkg.Version.ApplyConfigPkg == "" {
			continue
		}
		if strings.HasPrefix(pkg.Version.ApplyConfigPkg, p.ApplyConfigurationsPkg+"/") {
			inputs[pkg.Path] = pkg.Version
		} // else client-go's, whose kinds the schema still describes
		for _, k := range pkg.Version.Kinds {
			if k.Type == nil {
				continue
			}
			a.Kinds[k.Type.Name] = k
			// As applyconfiguration-gen, whatever +genclient:noVerbs says.
			if k.DeclaredVerbs[model.VerbApply] || k.DeclaredVerbs[model.VerbApplyStatus] {
				a.Roots = append(a.Roots, k)
			}
		}
	}
	reachable := map[*typegraph.Type]bool{}
	var order []*typegraph.Type
	var walk func(t *typegraph.Type) error
	walk = func(t *typegraph.Type) error {
		if t == nil || reachable[t] {
			return nil
		}
		reachable[t] = true
		order = append(order, t)
		for _, next := range []*typegraph.Type{t.Elem, t.Underlying, t.Key} {
			if err := walk(next); err != nil {
				return err
			}
		}
		if t.Kind != typegraph.Struct {
			return nil
		}
		members, err := t.Members()
		if err != nil {
			return fmt.Errorf("%s: %w", t.Name, err)
		}
		for _, m := range members {
			if err := walk(m.Type); err != nil {
				return err
			}
		}
		return nil
	}
	for _, k := range a.Roots {
		if err := walk(k.Type); err != nil {
			return nil, err
		}
	}
	// As applyconfiguration-gen: an apply method's input type, such as
	// apps/v1's ApplyScale's autoscaling/v1.Scale, is a root too, whether
	// the kind has Apply or not; one named without its package
	// (apps/v1beta2's input=Scale) is reached by its name alone, the
	// kind's fields standing in for its own (so apps/v1beta2's
	// ScaleApplyConfiguration has a ScaleSpec, not a
	// ScaleSpecApplyConfiguration).
	for _, pkg := range p.Packages {
		if pkg.Version == nil || pkg.Version.ApplyConfigPkg == "" {
			continue
		}
		for _, k := range pkg.Version.Kinds {
			for _, m := range k.Methods {
				switch {
				case m.InputType == nil:
				case m.InputByName:
					if !reachable[m.InputType] {
						reachable[m.InputType] = true
						order = append(order, m.InputType)
					}
					if err := walk(k.Type); err != nil {
						return nil, err
					}
				default:
					if err := walk(m.InputType); err != nil {
						return nil, err
					}
				}
			}
		}
	}
	byVersion := map[*model.Version]*model.ApplyConfigurationTarget{}
	for _, t := range order {
		if !t.IsNamed() || t.Name.Pkg == "" {
			continue
		}
		needs, err := requiresApplyConfiguration(t)
		if err != nil {
			return nil, err
		}
		if !needs {
			continue
		}
		if v, ok := inputs[t.Name.Pkg]; ok {
			if k := a.Kinds[t.Name]; k != nil {
				if has, err := t.Embeds(metaV1Pkg, "ObjectMeta"); err != nil || !has {
					if err != nil {
						return nil, err
					}
					continue // as applyconfiguration-gen: a kind without ObjectMeta gets none
				}
			}
			a.Pkg[t.Name] = v.ApplyConfigPkg
			tg := byVersion[v]
			if tg == nil {
				tg = &model.ApplyConfigurationTarget{Version: v}
				byVersion[v] = tg
				a.Targets = append(a.Targets, tg)
			}
			tg.Types = append(tg.Types, t)
			continue
		}
		if rest, ok := strings.CutPrefix(t.Name.Pkg, "k8s.io/api/"); ok && b.opts.ExternalApplyConfigurations == nil && b.clientGoApplyConfiguration(t.Name.Pkg, t.Name.Name) {
			a.Pkg[t.Name] = clientGoApplyConfigurations + "/" + rest
		}
	}
	for _, tg := range a.Targets {
		sort.Slice(tg.Types, func(i, j int) bool {
			return strings.ToLower(tg.Types[i].Name.Name) < strings.ToLower(tg.Types[j].Name.Name)
		})
	}
	sort.Slice(a.Targets, func(i, j int) bool { return a.Targets[i].Version.ApplyConfigPkg < a.Targets[j].Version.ApplyConfigPkg })
	return a, nil
}

// requiresApplyConfiguration is applyconfiguration-gen's rule: a struct
// with a JSON field, other than runtime.RawExtension and runtime.Unknown.
func requiresApplyConfiguration(t *typegraph.Type) (bool, error) {
	t = t.Resolved()
	if t.Kind != typegraph.Struct {
		return false, nil
	}
	if t.Name.Pkg == runtimePkg && (t.Name.Name == "RawExtension" || t.Name.Name == "Unknown") {
		return false, nil
	}
	members, err := t.Members()
	if err != nil {
		return false, err
	}
	for _, m := range members {
		if tag, ok := reflect.StructTag(m.Tag).Lookup("json"); ok && tag != "-" {
			return true, nil
		}
	}
	return false, nil
}
