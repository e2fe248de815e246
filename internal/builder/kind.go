package builder

import (
	"fmt"
	"go/ast"
	"go/token"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/ctrlgen/ctrlgen/internal/goname"
	"github.com/ctrlgen/ctrlgen/internal/markers"
	"github.com/ctrlgen/ctrlgen/internal/model"
	"github.com/ctrlgen/ctrlgen/internal/plural"
	"github.com/ctrlgen/ctrlgen/internal/typegraph"
)

// kind builds the Kind of a +genclient type, following client-gen,
// lister-gen and informer-gen, and the kubebuilder markers a kubebuilder
// project already has.
func (b *builder) kind(a *apiPackage, t *apiType, v *model.Version) *model.Kind {
	m := t.markers
	name := t.spec.Name.Name
	pos := b.prog.Fset.Position(t.spec.Name.Pos())
	fields, isStruct, err := b.fields(a, t)
	switch {
	case err != nil:
		b.errorf(pos, "+genclient type %s: %v", name, err)
		return nil
	case !isStruct:
		b.errorf(pos, "+genclient type %s is not a struct", name)
		return nil
	}
	typ, err := b.graph.Named(a.src.Path, name)
	if err != nil {
		b.errorf(pos, "+genclient type %s: %v", name, err)
		return nil
	}
	k := &model.Kind{
		Type:          typ,
		Version:       v,
		Name:          name,
		ListName:      name + "List",
		LowerName:     goname.LowerFirst(name),
		LowerCaseName: strings.ToLower(name),
		Source:        fmt.Sprintf("%s:%d", pos.Filename, pos.Line),
	}
	res, _ := markers.Resource.Get(m)
	k.Namespaced = !markers.NonNamespaced.Has(m)
	switch {
	case res.Scope == "Namespaced" && !k.Namespaced:
		b.errorf(pos, "%s has both +genclient:nonNamespaced and +kubebuilder:resource:scope=Namespaced", name)
	case res.Scope == "Cluster":
		k.Namespaced = false
	}
	// client-gen gives UpdateStatus to every kind with a Status field but
	// +genclient:noStatus, whatever the kubebuilder markers say; a
	// kubebuilder kind without +kubebuilder:subresource:status has no
	// status subresource, which only the controller needs to know.
	k.HasStatus = hasField(fields, "Status") && !markers.NoStatus.Has(m)
	kubebuilder := markers.ObjectRoot.Has(m) || markers.Resource.Has(m) || markers.StatusSubresource.Has(m)
	k.NoStatusSubresource = kubebuilder && !markers.StatusSubresource.Has(m)
	// lister-gen reads the verbs without +genclient:noVerbs, so client-go
	// has listers for noVerbs kinds such as policy/v1 Eviction; so do we.
	declared := b.declaredVerbs(m)
	k.Verbs, k.DeclaredVerbs = declared, declared
	if markers.NoVerbs.Has(m) {
		k.Verbs = map[model.Verb]bool{}
	}
	if _, ok := a.byName[k.ListName]; !ok && (k.Has(model.VerbList) || k.Has(model.VerbDeleteCollection)) {
		b.errorf(pos, "%s has the list verbs but no %s type in its package", name, k.ListName)
	} else if ok {
		k.ListType, _ = b.graph.Named(a.src.Path, k.ListName)
	}
	k.Methods = b.methods(m, a, k)
	if v.ApplyConfigPkg != "" && k.Has(model.VerbApplyStatus) && k.HasStatus && !k.Has(model.VerbApply) {
		b.errorf(pos, "%s keeps the applyStatus verb but skips apply: its client would have ApplyStatus without the apply support it needs; skip applyStatus too (+genclient:skipVerbs=apply,applyStatus)", name)
	}
	k.Plural, k.PluralGoName = b.plural(m, pos, name, res.Path, builtinAPIModules[a.src.Module])
	enabled := func(d *markers.Definition[bool]) bool {
		pkgOn, pkgSet := d.Get(a.markers)
		typeOn, typeSet := d.Get(m)
		return (!pkgSet || pkgOn) && (!typeSet || typeOn)
	}
	k.Client = enabled(markers.ClientGen)
	k.Lister = enabled(markers.ListerGen) && declared[model.VerbGet] && declared[model.VerbList]
	k.Informer = enabled(markers.InformerGen) && k.Lister && k.Has(model.VerbWatch)
	k.Controller = b.controller(m, pos)
	k.Webhook = b.kindWebhook(m, k)
	k.StorageVersion = markers.StorageVersion.Has(m)
	return k
}

// field is a struct field as code-generator sees it: an embedded field
// is named after its type.
type field struct {
	name     string
	embedded bool
}

func hasField(fields []field, name string) bool {
	return slices.ContainsFunc(fields, func(f field) bool { return f.name == name })
}

// fields returns the fields of t's underlying type and whether that is a
// struct. A struct literal is read from the declaration; any other type
// through the type graph, so that "type Gateway v1.Gateway" (how
// gateway-api declares its v1beta1 kinds) has v1.Gateway's fields, as
// code-generator's go/types view of it has. The graph is not asked about
// struct literals: it would parse every package their fields come from.
func (b *builder) fields(a *apiPackage, t *apiType) ([]field, bool, error) {
	if st, ok := t.spec.Type.(*ast.StructType); ok && !t.spec.Assign.IsValid() {
		var out []field
		for _, f := range st.Fields.List {
			if len(f.Names) == 0 {
				out = append(out, field{name: typegraph.EmbeddedName(f.Type), embedded: true})
			}
			for _, n := range f.Names {
				out = append(out, field{name: n.Name})
			}
		}
		return out, true, nil
	}
	typ, err := b.graph.Named(a.src.Path, t.spec.Name.Name)
	if err != nil {
		return nil, false, err
	}
	if typ.Kind != typegraph.Struct {
		return nil, false, nil
	}
	members, err := typ.Members()
	if err != nil {
		return nil, false, err
	}
	out := make([]field, len(members))
	for i, m := range members {
		out[i] = field{name: m.Name, embedded: m.Embedded}
	}
	return out, true, nil
}

// verbs applies client-gen's rules: readonly means get, list and watch;
// onlyVerbs (with readonly's) replaces skipVerbs; noVerbs means none.
// declaredVerbs are the verbs that onlyVerbs, readonly and skipVerbs
// leave; noVerbs is the caller's to apply.
func (b *builder) declaredVerbs(m markers.Set) map[model.Verb]bool {
	skip, _ := markers.SkipVerbs.Get(m)
	only, hasOnly := markers.OnlyVerbs.Get(m)
	if markers.Readonly.Has(m) {
		only, hasOnly = append([]string{"get", "list", "watch"}, only...), true
	}
	verbs := map[model.Verb]bool{}
	for _, v := range markers.Verbs {
		verbs[model.Verb(v)] = !hasOnly
	}
	for _, v := range only {
		verbs[model.Verb(v)] = true
	}
	for _, v := range skip {
		if hasOnly && verbs[model.Verb(v)] {
			b.errorf(markers.SkipVerbs.Pos(m), "verb %q is both allowed (+genclient:onlyVerbs or +genclient:readonly) and skipped (+genclient:skipVerbs)", v)
		}
		verbs[model.Verb(v)] = false
	}
	for v, on := range verbs {
		if !on {
			delete(verbs, v)
		}
	}
	return verbs
}

// verbMethods are the methods the standard verbs give a typed client.
var verbMethods = map[string]model.Verb{
	"Create": model.VerbCreate, "Update": model.VerbUpdate, "UpdateStatus": model.VerbUpdateStatus,
	"Delete": model.VerbDelete, "DeleteCollection": model.VerbDeleteCollection, "Get": model.VerbGet,
	"List": model.VerbList, "Watch": model.VerbWatch, "Patch": model.VerbPatch,
	"Apply": model.VerbApply, "ApplyStatus": model.VerbApplyStatus,
}

func (b *builder) methods(m markers.Set, a *apiPackage, k *model.Kind) []*model.Method {
	var out []*model.Method
	seen := map[string]bool{}
	for _, mv := range markers.Method.All(m) {
		spec := mv.V
		if verb, ok := verbMethods[spec.Name]; ok && k.Has(verb) || seen[spec.Name] {
			b.errorf(mv.Pos, "%s already has a method %s", k.Name, spec.Name)
			continue
		}
		seen[spec.Name] = true
		method := &model.Method{
			Name:        spec.Name,
			Verb:        model.Verb(spec.Verb),
			Subresource: spec.Subresource,
			Input:       b.typeRef(mv.Pos, a, k.Name, spec.Input),
			Result:      b.typeRef(mv.Pos, a, k.Name, spec.Result),
		}
		if method.Verb == model.VerbApply && k.Version.ApplyConfigPkg != "" {
			method.InputApplyConfig = b.applyConfigOf(method.Input)
			typ, err := b.graph.Named(method.Input.Pkg, method.Input.Name)
			if err != nil {
				b.errorf(mv.Pos, "input of %s: %v", spec.Name, err)
			}
			method.InputType = typ
			method.InputByName = spec.Input.Name != "" && spec.Input.Pkg == ""
		}
		out = append(out, method)
	}
	return out
}

// applyConfigOf names the apply configuration of t, where client-gen
// looks for it: in the apply configurations' tree, under t's group
// directory and version. Generated apply configurations use client-go's
// for k8s.io/api types (unless --external-applyconfigurations says
// otherwise), and so does an apply method taking one.
func (b *builder) applyConfigOf(t model.TypeRef) model.TypeRef {
	name := t.Name + "ApplyConfiguration"
	if rest, ok := strings.CutPrefix(t.Pkg, "k8s.io/api/"); ok && b.opts.ApplyConfigurationPkg == "" && b.opts.ExternalApplyConfigurations == nil {
		return model.TypeRef{Pkg: "k8s.io/client-go/applyconfigurations/" + rest, Name: name}
	}
	root := b.opts.ApplyConfigurationPkg
	if root == "" {
		root = b.opts.OutputPkg + "/applyconfiguration"
	}
	return model.TypeRef{Pkg: root + "/" + strings.ToLower(path.Base(path.Dir(t.Pkg))) + "/" + path.Base(t.Pkg), Name: name}
}

// typeRef resolves a method's input or result type: the kind itself when
// not given, a type of the kind's package when unqualified.
func (b *builder) typeRef(pos token.Position, a *apiPackage, kind string, tn markers.TypeName) model.TypeRef {
	switch {
	case tn.Name == "":
		return model.TypeRef{Pkg: a.src.Path, Name: kind}
	case tn.Pkg == "":
		if _, ok := a.byName[tn.Name]; !ok {
			b.errorf(pos, "type %s not found in package %s", tn.Name, a.src.Path)
		}
		return model.TypeRef{Pkg: a.src.Path, Name: tn.Name}
	}
	if _, err := b.graph.Named(tn.Pkg, tn.Name); err != nil {
		b.errorf(pos, "%v", err)
	}
	return model.TypeRef{Pkg: tn.Pkg, Name: tn.Name}
}

// plural returns the resource name and its Go form, as client-gen names
// them. The Go form is the pluralised kind: --plural-exceptions when given,
// else plural.DefaultExceptions (client-gen's flag default), and
// DefaultExceptions always for the kube-apiserver's own APIs, as
// Kubernetes generates client-go. The resource name is the same unless
// +resourceName or +kubebuilder:resource:path names it; those change the
// REST path only, as +resourceName does in client-gen.
func (b *builder) plural(m markers.Set, pos token.Position, kind, path string, builtin bool) (string, string) {
	goPlural := b.goPlural(kind, builtin)
	resource, hasName := markers.ResourceName.Get(m)
	switch {
	case hasName && path != "" && path != resource:
		b.errorf(pos, "%s has +resourceName=%s but +kubebuilder:resource:path=%s", kind, resource, path)
	case !hasName:
		resource = path
	}
	if resource == "" {
		resource = strings.ToLower(goPlural)
	}
	return resource, goPlural
}

// goPlural is kind's plural with the run's exceptions, or, for a kind of
// k8s.io/api, with the default ones too: "Endpoints".
func (b *builder) goPlural(kind string, builtin bool) string {
	exceptions := b.opts.PluralExceptions
	if exceptions == nil || builtin {
		exceptions = maps.Clone(plural.DefaultExceptions)
		maps.Copy(exceptions, b.opts.PluralExceptions)
	}
	return goname.UpperFirst(plural.Of(kind, exceptions))
}

func (b *builder) controller(m markers.Set, pos token.Position) *model.Controller {
	if !markers.Controller.Has(m) {
		if markers.ControllerOwns.Has(m) || markers.ControllerFinalizer.Has(m) || markers.ControllerExpectations.Has(m) || markers.ControllerStatusApply.Has(m) || markers.ControllerFilter.Has(m) {
			b.errorf(pos, "+ctrlgen:controller:owns, :finalizer, :expectations, :statusApply and :filter need +ctrlgen:controller")
		}
		return nil
	}
	c := &model.Controller{Pos: markers.Controller.Pos(m)}
	c.Finalizer, _ = markers.ControllerFinalizer.Get(m)
	for _, o := range markers.ControllerOwns.All(m) {
		c.Owns = append(c.Owns, &model.Owned{GVK: o.V.GroupVersionKind, AdoptPath: o.V.Adopt, MetadataOnly: o.V.MetadataOnly, Pos: o.Pos})
	}
	c.Expectations = markers.ControllerExpectations.Has(m)
	if markers.ControllerStatusApply.Has(m) {
		c.StatusApply, c.StatusApplyPos = true, markers.ControllerStatusApply.Pos(m)
	}
	if filters, ok := markers.ControllerFilter.Get(m); ok {
		c.FilterPos = markers.ControllerFilter.Pos(m)
		for _, f := range filters {
			switch f {
			case "ownStatusWrites":
				c.SkipOwnStatusWrites = true
			default: // generationChanged → GenerationChanged
				c.UpdateFilters = append(c.UpdateFilters, model.UpdateFilter{Func: strings.ToUpper(f[:1]) + f[1:]})
			}
		}
	}
	if c.Expectations && len(c.Owns) == 0 {
		b.errorf(markers.ControllerExpectations.Pos(m), "+ctrlgen:controller:expectations needs a +ctrlgen:controller:owns=<group>/<version>.<Kind>: expectations are met by observing owned objects")
	}
	return c
}
