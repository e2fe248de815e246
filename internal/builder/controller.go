package builder

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/ctrlgen/ctrlgen/internal/genfile"
	"github.com/ctrlgen/ctrlgen/internal/goname"
	"github.com/ctrlgen/ctrlgen/internal/markers"
	"github.com/ctrlgen/ctrlgen/internal/model"
	"github.com/ctrlgen/ctrlgen/internal/typegraph"
)

// controllers fills the controller fields of every +ctrlgen:controller
// kind, now that every kind of the run is known: where its package goes,
// the kinds it owns, how it writes status, and what the hand-written files
// of its package already define.
func (b *builder) controllers(p *model.Project) {
	kinds := p.ControllerKinds()
	if len(kinds) == 0 {
		return
	}
	if p.ControllersPkg == "" {
		b.errorf(kinds[0].Controller.Pos, "cannot tell the import path of the controllers directory %s: put it in a Go module, or inside --output-dir", p.ControllersDir)
		return
	}
	byGVK := map[schema.GroupVersionKind]*model.Kind{}
	for _, g := range p.Groups {
		for _, v := range g.Versions {
			for _, k := range v.Kinds {
				byGVK[schema.GroupVersionKind{Group: g.Name, Version: v.Name, Kind: k.Name}] = k
			}
		}
	}
	packages := map[string]*model.Kind{}
	for _, k := range kinds {
		c := k.Controller
		c.PkgName = strings.ToLower(k.Name)
		c.Name = c.PkgName
		c.Pkg = p.ControllersPkg + "/" + c.PkgName
		c.Dir = filepath.Join(p.ControllersDir, c.PkgName)
		if other, dup := packages[c.Pkg]; dup {
			b.errorf(c.Pos, "%s and %s (%s) would share the controller package %s; keep +ctrlgen:controller on one of them",
				gvkString(k), gvkString(other), other.Source, c.Pkg)
			continue
		}
		packages[c.Pkg] = k
		if !k.Informer || !k.Client || !k.Lister {
			b.errorf(c.Pos, "+ctrlgen:controller on %s needs its informer: a client with the get, list and watch verbs", k.Name)
		}
		if c.Finalizer != "" && !k.Has(model.VerbUpdate) {
			b.errorf(c.Pos, "+ctrlgen:controller:finalizer on %s needs the update verb, to add and remove the finalizer", k.Name)
		}
		owned := map[schema.GroupVersionKind]bool{}
		for _, o := range c.Owns {
			if owned[o.GVK] {
				b.errorf(o.Pos, "%s/%s.%s is owned twice", groupOrCore(o.GVK.Group), o.GVK.Version, o.GVK.Kind)
				continue
			}
			owned[o.GVK] = true
			b.owned(k, o, byGVK[o.GVK])
		}
		b.listerFields(k)
		for _, o := range c.Owns {
			if o.AdoptPath != "" && o.Kind != nil {
				b.adopt(k, o)
			}
		}
		b.status(p, k)
		b.userMethods(k)
		if c.SkipOwnStatusWrites && !c.StatusWriteBack {
			b.errorf(c.FilterPos, "+ctrlgen:controller:filter=ownStatusWrites on %s: the controller writes no status (it needs a Status field of a named struct type, the updateStatus verb and a status subresource)", k.Name)
		}
		if c.HasFilterUpdate {
			c.UpdateFilters = append(c.UpdateFilters, model.UpdateFilter{Func: "FilterUpdate", User: true})
		}
	}
}

// owned resolves an owns= marker to a kind of the run that has an
// informer, or else to a built-in kind of the tree the ctrlgen module
// ships (see Shipped), or says which package to add.
func (b *builder) owned(owner *model.Kind, o *model.Owned, k *model.Kind) {
	gvk := o.GVK
	name := fmt.Sprintf("%s/%s.%s", groupOrCore(gvk.Group), gvk.Version, gvk.Kind)
	var builtin *model.Project
	if pkg, ok := builtinPackage(gvk); k == nil && ok {
		var err error
		if k, builtin, err = b.builtinKind(pkg, gvk); err != nil {
			b.errorf(o.Pos, "+ctrlgen:controller:owns=%s: %v", name, err)
			return
		}
		if k == nil {
			b.errorf(o.Pos, "+ctrlgen:controller:owns=%s: %s declares no +genclient kind %s", name, pkg, gvk.Kind)
			return
		}
	}
	switch {
	case k == nil:
		b.errorf(o.Pos, "+ctrlgen:controller:owns=%s: %s is not among the packages ctrlgen reads; add %s to ctrlgen's packages so that its informer is generated with the others",
			name, gvk.Kind, packageHint(gvk))
	case !k.Informer || !k.Client || !k.Lister:
		b.errorf(o.Pos, "+ctrlgen:controller:owns=%s: %s has no informer (it needs a client with the get, list and watch verbs)", name, gvk.Kind)
	case owner.Namespaced && !k.Namespaced:
		b.errorf(o.Pos, "+ctrlgen:controller:owns=%s: %s is cluster-scoped, and a cluster-scoped object cannot be owned by a namespaced %s", name, gvk.Kind, owner.Name)
	case o.MetadataOnly && k == owner:
		b.errorf(o.Pos, "+ctrlgen:controller:owns=%s,metadataOnly: %s is the controller's own kind, which it caches whole", name, gvk.Kind)
	default:
		o.Kind = k
		if o.MetadataOnly {
			owner.Controller.Metadata = true
		}
		if builtin != nil {
			o.Builtin = true
			c := owner.Controller
			if c.Kube == nil {
				c.Kube = &model.Kube{ClientsetPkg: builtin.ClientsetPkg, InformersPkg: builtin.InformersPkg}
			}
			c.Kube.Factory = c.Kube.Factory || !o.MetadataOnly
		}
	}
}

// listerFields names the Controller struct's lister fields and New's
// informer variables: after the kind ("configMapLister", "configMaps"),
// or after group, version and kind where two owned kinds share a name.
func (b *builder) listerFields(k *model.Kind) {
	c := k.Controller
	c.ListerField = k.LowerName + "Lister"
	count := map[string]int{k.Name: 1}
	for _, o := range c.Owns {
		if o.Kind != nil && o.Kind != k {
			count[o.Kind.Name]++
		}
	}
	for _, o := range c.Owns {
		ok := o.Kind
		switch {
		case ok == nil:
			continue
		case ok == k:
			o.Self, o.ListerField, o.InformerVar = true, c.ListerField, "informer"
			continue
		}
		base := ok.Name
		if count[ok.Name] > 1 {
			base = ok.Version.GroupVersionGoName + ok.Name
		}
		o.ListerField = goname.LowerFirst(base) + "Lister"
		o.InformerVar = goname.LowerFirst(base) + "Informer"
	}
}

// labelSelector is metav1.LabelSelector's name.
var labelSelector = typegraph.Name{Pkg: "k8s.io/apimachinery/pkg/apis/meta/v1", Name: "LabelSelector"}

// adopt resolves adopt='s path, field by field, each matched to a Go field
// name regardless of case (spec.selector is Spec.Selector), to a
// metav1.LabelSelector or a pointer to one.
func (b *builder) adopt(k *model.Kind, o *model.Owned) {
	bad := func(format string, args ...any) {
		b.errorf(o.Pos, "+ctrlgen:controller:owns=...,adopt=%s: %s", o.AdoptPath, fmt.Sprintf(format, args...))
	}
	if o.Self {
		bad("a kind cannot adopt objects of its own kind")
		return
	}
	t, err := b.graph.Named(k.Version.TypesPkg, k.Name)
	if err != nil {
		b.errs = append(b.errs, err)
		return
	}
	expr := "obj"
	segments := strings.Split(o.AdoptPath, ".")
	for i, seg := range segments {
		if i > 0 && t.Kind != typegraph.Struct {
			bad("%s is %s, not a struct: the path to the selector must go through struct fields", expr, t)
			return
		}
		name, ft := memberFold(t, seg)
		if ft == nil {
			bad("%s has no field %s", t.Name.Name, seg)
			return
		}
		expr += "." + name
		t = ft
	}
	a := &model.Adopt{Selector: expr}
	switch {
	case t.Name == labelSelector:
	case t.Kind == typegraph.Pointer && t.Elem.Name == labelSelector:
		a.SelectorPointer = true
	default:
		bad("%s is %s, not a metav1.LabelSelector or a pointer to one", expr, t)
		return
	}
	a.Field = strings.TrimSuffix(o.ListerField, "Lister") + "Adoption"
	a.ClaimMethod = "Claim" + o.Kind.PluralGoName
	o.Adopt = a
}

// memberFold is member for a field name matched regardless of case; it
// returns the field's Go name too.
func memberFold(t *typegraph.Type, name string) (string, *typegraph.Type) {
	if t.Kind != typegraph.Struct {
		return "", nil
	}
	members, err := t.Members()
	if err != nil {
		return "", nil
	}
	for _, m := range members {
		if strings.EqualFold(m.Name, name) {
			return m.Name, m.Type
		}
	}
	for _, m := range members {
		if m.Embedded && m.Type.Kind == typegraph.Struct {
			if n, ft := memberFold(m.Type, name); ft != nil {
				return n, ft
			}
		}
	}
	return "", nil
}

// status decides how the controller writes status, from the kind's types.
func (b *builder) status(p *model.Project, k *model.Kind) {
	c := k.Controller
	if c.StatusApply && (p.ApplyConfigurationsExternal || !k.HasApplyStatusVerb() || k.NoStatusSubresource) {
		b.errorf(c.StatusApplyPos, "+ctrlgen:controller:statusApply on %s: %s", k.Name, noStatusApply(p, k))
		return
	}
	if !c.StatusApply && !k.HasStatusVerb() || k.NoStatusSubresource {
		return
	}
	pos := c.Pos
	t, err := b.graph.Named(k.Version.TypesPkg, k.Name)
	if err != nil {
		b.errs = append(b.errs, err)
		return
	}
	st := member(t, "Status")
	if st == nil || st.Kind != typegraph.Struct || !st.IsNamed() {
		if c.StatusApply {
			b.errorf(c.StatusApplyPos, "+ctrlgen:controller:statusApply on %s: its Status is not a named struct type", k.Name)
			return
		}
		b.warnf(pos, "%s's Status is not a named struct type: the controller does not write status back", k.Name)
		return
	}
	c.StatusWriteBack = true
	c.StatusDeepCopyInto = st.Method("DeepCopyInto") != nil || b.deepCopied(p, st)
	og := member(st, "ObservedGeneration")
	c.ObservedGeneration = og != nil && og.Kind == typegraph.Builtin && og.Name.Name == "int64"
	if c.StatusApply {
		if c.APIVersion = k.Version.Name; k.Version.Group.Name != "" {
			c.APIVersion = k.Version.Group.Name + "/" + k.Version.Name
		}
		if c.ObservedGeneration {
			c.ObservedGenerationPath = append([]string{"status"}, jsonPath(st, "ObservedGeneration")...)
		}
	}
}

// noStatusApply says why a kind's status cannot be applied.
func noStatusApply(p *model.Project, k *model.Kind) string {
	switch {
	case p.ApplyConfigurationsPkg == "":
		return "it needs the apply configurations, whose schema says which fields Reconcile set; they are off (--with-applyconfig=false)"
	case p.ApplyConfigurationsExternal:
		return "it needs the apply configurations ctrlgen generates, whose schema says which fields Reconcile set; --apply-configuration-package points at ones generated elsewhere"
	case !k.HasStatus:
		return "the kind has no status to apply (no Status field, or +genclient:noStatus)"
	case k.NoStatusSubresource:
		return "the kind has no status subresource (add +kubebuilder:subresource:status)"
	}
	return "its client has no ApplyStatus (the applyStatus verb is skipped)"
}

// jsonPath is the JSON path of t's field name, through embedded structs:
// an inline one adds nothing, another its JSON name. The shallowest
// field wins, as in member.
func jsonPath(t *typegraph.Type, name string) []string {
	type node struct {
		t    *typegraph.Type
		path []string
	}
	level := []node{{t: t}}
	for len(level) > 0 {
		var next []node
		for _, n := range level {
			members, err := n.t.Members()
			if n.t.Kind != typegraph.Struct || err != nil {
				continue
			}
			for _, m := range members {
				json, _, _ := strings.Cut(reflect.StructTag(m.Tag).Get("json"), ",")
				switch {
				case m.Name == name:
					if json == "" {
						json = m.Name
					}
					return append(slices.Clone(n.path), json)
				case m.Embedded && m.Type.Kind == typegraph.Struct && json == "":
					next = append(next, node{m.Type, n.path})
				case m.Embedded && m.Type.Kind == typegraph.Struct:
					next = append(next, node{m.Type, append(slices.Clone(n.path), json)})
				}
			}
		}
		level = next
	}
	return nil
}

// member is the type of t's field name, promoted fields included, or nil.
// A field declared at a shallower depth wins, as in Go.
func member(t *typegraph.Type, name string) *typegraph.Type {
	level := []*typegraph.Type{t}
	seen := map[*typegraph.Type]bool{}
	for len(level) > 0 {
		var next []*typegraph.Type
		for _, s := range level {
			if s.Kind != typegraph.Struct || seen[s] {
				continue
			}
			seen[s] = true
			members, err := s.Members()
			if err != nil {
				continue
			}
			for _, m := range members {
				switch {
				case m.Name == name:
					return m.Type
				case m.Embedded && m.Type.Kind == typegraph.Struct:
					next = append(next, m.Type)
				}
			}
		}
		level = next
	}
	return nil
}

// deepCopied reports whether this run's deepcopy generator gives t its
// functions: t is declared in a writable input package whose markers
// select it.
func (b *builder) deepCopied(p *model.Project, t *typegraph.Type) bool {
	for _, pkg := range p.Packages {
		if pkg.Path != t.Name.Pkg || pkg.DeepCopy == nil {
			continue
		}
		for _, dt := range pkg.DeepCopy.Types {
			if dt.Type.Name == t.Name {
				return pkg.DeepCopy.Selects(dt)
			}
		}
	}
	return false
}

// userMethods reads the hand-written files of the controller's package
// for the methods the wiring calls or the user file would declare.
func (b *builder) userMethods(k *model.Kind) {
	c := k.Controller
	methods, lines, err := controllerMethods(c.Dir)
	if err != nil {
		b.errs = append(b.errs, err)
		return
	}
	b.anywhereMarkers(lines)
	c.HasReconcile, c.HasFinalize, c.HasDeleted = methods["Reconcile"], methods["Finalize"], methods["Deleted"]
	c.HasFilterUpdate = methods["FilterUpdate"]
	if c.HasReconcile && c.Finalizer != "" && !c.HasFinalize {
		b.warnf(c.Pos, "%s has +ctrlgen:controller:finalizer=%s but package %s defines no Finalize; add\n\tfunc (c *Controller) Finalize(ctx context.Context, obj *%s.%s) error",
			k.Name, c.Finalizer, c.Pkg, k.Version.Package.Name, k.Name)
	}
}

// controllerMethods returns the names of the methods declared on
// Controller or *Controller by the package's hand-written Go files in dir,
// and their marker lines.
func controllerMethods(dir string) (map[string]bool, []markers.Line, error) {
	methods := map[string]bool{}
	lines, err := handWritten(dir, func(f *ast.File) {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv != nil && len(fd.Recv.List) == 1 && typegraph.EmbeddedName(fd.Recv.List[0].Type) == "Controller" {
				methods[fd.Name.Name] = true
			}
		}
	})
	return methods, lines, err
}

// handWritten parses the hand-written Go files in dir (not tests, not
// files ctrlgen generated), calls visit with each, and returns their
// marker lines. A missing dir has none.
func handWritten(dir string, visit func(*ast.File)) ([]markers.Line, error) {
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var lines []markers.Line
	fset := token.NewFileSet()
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		path := filepath.Join(dir, name)
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		if genfile.Ours(src) {
			continue
		}
		f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution|parser.ParseComments)
		if err != nil {
			return nil, err
		}
		lines = append(lines, markers.Scan(fset, f, false).Lines()...)
		visit(f)
	}
	return lines, nil
}

func groupOrCore(group string) string {
	if group == "" {
		return "core"
	}
	return group
}

func gvkString(k *model.Kind) string {
	return fmt.Sprintf("%s/%s.%s", groupOrCore(k.Version.Group.Name), k.Version.Name, k.Name)
}

// packageHint names the package that declares gvk, a kind of no built-in
// group (those come from the shipped tree).
func packageHint(gvk schema.GroupVersionKind) string {
	switch gvk.Group {
	case "apiextensions.k8s.io":
		return "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/" + gvk.Version
	case "apiregistration.k8s.io":
		return "k8s.io/kube-aggregator/pkg/apis/apiregistration/" + gvk.Version
	}
	return fmt.Sprintf("the package that declares group %q version %s", gvk.Group, gvk.Version)
}
