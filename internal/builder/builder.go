// Package builder reads the markers of loaded packages and fills a
// model.Project: groups, versions and kinds with every name the
// generators use, and what the deep-copy and register generators write.
package builder

import (
	"cmp"
	"errors"
	"fmt"
	"go/ast"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/mod/module"
	"k8s.io/apimachinery/pkg/version"

	"github.com/ctrlgen/ctrlgen/internal/crdschema"
	"github.com/ctrlgen/ctrlgen/internal/goname"
	"github.com/ctrlgen/ctrlgen/internal/loader"
	"github.com/ctrlgen/ctrlgen/internal/markers"
	"github.com/ctrlgen/ctrlgen/internal/model"
	"github.com/ctrlgen/ctrlgen/internal/typegraph"
)

// Options are the parts of a project that do not come from markers.
type Options struct {
	Module string
	// OutputDir is where the generated packages go; empty for a model
	// that is not generated, only referred to (Builtin's), so that no
	// user expansion is looked for.
	OutputDir   string
	OutputPkg   string
	Boilerplate string
	// ControllersDir is where controller packages go; ControllersPkg its
	// import path, "" when unknown (an error only if a kind has a
	// controller).
	ControllersDir string
	ControllersPkg string
	// PluralExceptions map kinds to plurals ("Endpoints" → "Endpoints").
	// As client-gen's flag, they replace plural.DefaultExceptions when not
	// nil (an empty map included).
	PluralExceptions map[string]string
	// PrefersProtobuf makes every typed client send and accept protobuf
	// first, as client-gen's --prefers-protobuf does. Without it only the
	// kube-apiserver's own API packages do (see servedAsProtobuf).
	PrefersProtobuf bool
	// NoJSONDecoders turns off the typed clients' generated JSON
	// decoders (--json-decoders=false).
	NoJSONDecoders bool
	// VersionedClientsetPkg, as informer-gen's --versioned-clientset-package,
	// is an existing clientset the informers and controllers use, e.g.
	// k8s.io/client-go/kubernetes; empty for the one this run generates
	// under OutputPkg.
	VersionedClientsetPkg string
	// ClientsetName and VersionedName place the generated clientset at
	// <OutputPkg>/<ClientsetName>/<VersionedName> (kube_codegen.sh
	// gen_client's flags); empty means "clientset" and "versioned".
	ClientsetName string
	VersionedName string
	// SingleDirectory, as informer-gen's --single-directory, puts the
	// informers in <OutputPkg>/informers rather than
	// <OutputPkg>/informers/externalversions.
	SingleDirectory bool
	// ApplyConfigurations makes the typed clients take apply
	// configurations generated under <OutputPkg>/applyconfiguration, as
	// kube_codegen.sh --with-applyconfig does.
	ApplyConfigurations bool
	// ApplyConfigurationPkg, as client-gen's --apply-configuration-package,
	// is where apply configurations generated elsewhere are: the clients
	// take those, and none are generated.
	ApplyConfigurationPkg string
	// ExternalApplyConfigurations, as applyconfiguration-gen's
	// --external-applyconfigurations, are the types besides meta/v1's
	// whose apply configurations are another package's. Nil: every
	// k8s.io/api type uses client-go's, and k8s.io/api inputs get none.
	ExternalApplyConfigurations map[model.TypeRef]string
	// NoDeepCopies leaves the deep-copy model out (model.Package.DeepCopy
	// stays nil), and with it the loading of every package the writable
	// packages import: for runs whose generators do not use it (only the
	// deepcopy and controller generators do).
	NoDeepCopies bool
	// CRDDir is where the CRDs go; "" leaves model.Project.CRDs out, and
	// with them the reading of every type they reach.
	CRDDir string
	// RBACDir is where the manager's RBAC manifests go; "" for none.
	RBACDir string
	// RBACNamespaces are the namespaces the manager is limited to, for
	// the rbac generator; empty for all.
	RBACNamespaces []string
	// WebhookDir is where config/webhook goes; "" for none.
	WebhookDir string
	// NoApplyConfigurationTypes leaves model.Project.ApplyConfigurationTypes
	// nil, and with it the walk through every type the kinds with an apply
	// verb reach: for runs whose generators do not use it.
	NoApplyConfigurationTypes bool
	// StrictMarkers makes errors of the warnings about markers that
	// code-generator and controller-gen pass over: unknown ones in the
	// namespaces ctrlgen shares with them, near misses of known ones,
	// and markers where they have no effect (--strict-markers, for CI).
	StrictMarkers bool
}

// Build returns the project the loaded packages describe, and warnings.
// The error lists every marker problem, each with its file:line. When
// only the CRDs fail, the project comes with the error, complete but for
// its CRDs, so that a run can report what the generators make of it too.
func Build(prog *loader.Program, opts Options) (*model.Project, []markers.Diagnostic, error) {
	return buildPackages(prog, typegraph.New(prog, prog.Fset), prog.Roots, opts)
}

// buildPackages is Build of some of prog's packages, resolving their
// types in graph: its roots, or a k8s.io/api package it looked up (see
// shippedModel), whose types the run's graph may have resolved already.
func buildPackages(prog *loader.Program, graph *typegraph.Graph, pkgs []*loader.Package, opts Options) (*model.Project, []markers.Diagnostic, error) {
	b := &builder{prog: prog, opts: opts, graph: graph, groups: map[string]*model.Group{}, groupPkgs: map[string]string{}, versions: map[string]string{}, builtin: map[string]builtinResult{}}
	p := &model.Project{
		Module:      opts.Module,
		OutputDir:   opts.OutputDir,
		OutputPkg:   opts.OutputPkg,
		Boilerplate: opts.Boilerplate,

		ControllersDir: opts.ControllersDir,
		ControllersPkg: opts.ControllersPkg,
	}
	p.ClientsetPkg = path.Join(opts.OutputPkg, cmp.Or(opts.ClientsetName, "clientset"), cmp.Or(opts.VersionedName, "versioned"))
	if opts.ClientsetName != "" || opts.VersionedName != "" {
		if err := module.CheckImportPath(p.ClientsetPkg); err != nil {
			return nil, nil, fmt.Errorf("--clientset-name %q --versioned-name %q: %w", opts.ClientsetName, opts.VersionedName, err)
		}
	}
	if opts.VersionedClientsetPkg != "" {
		p.ClientsetPkg, p.ClientsetExternal = opts.VersionedClientsetPkg, true
	}
	p.ClientsetSchemePkg = p.ClientsetPkg + "/scheme"
	p.ClientsetFakePkg = p.ClientsetPkg + "/fake"
	p.ListersPkg = opts.OutputPkg + "/listers"
	p.InformersPkg = opts.OutputPkg + "/informers/externalversions"
	if opts.SingleDirectory {
		p.InformersPkg = opts.OutputPkg + "/informers"
	}
	p.InternalInterfacesPkg = p.InformersPkg + "/internalinterfaces"
	switch {
	case opts.ApplyConfigurationPkg != "":
		p.ApplyConfigurationsPkg, p.ApplyConfigurationsExternal = opts.ApplyConfigurationPkg, true
	case opts.ApplyConfigurations:
		p.ApplyConfigurationsPkg = opts.OutputPkg + "/applyconfiguration"
	}

	var apis []*apiPackage
	for _, lp := range pkgs {
		apis = append(apis, b.read(lp))
	}
	if !opts.NoDeepCopies {
		if err := b.prefetch(apis); err != nil {
			return nil, nil, err
		}
	}
	for _, a := range apis {
		p.Packages = append(p.Packages, b.pkg(p, a))
	}
	if err := separateTrees(p); err != nil {
		return nil, b.warnings, err
	}
	p.Groups = b.sortedGroups()
	b.checkNames(p.Groups)
	if len(b.errs) > 0 {
		return nil, b.warnings, errors.Join(b.errs...)
	}
	DeriveClientNames(p)
	p.TypeConverterPkg = typeConverterPkg(p)
	if model.GeneratesApplyConfigurations(p) && !opts.NoApplyConfigurationTypes {
		var err error
		if p.ApplyConfigurationTypes, err = b.applyConfigurationTypes(p); err != nil {
			return nil, b.warnings, err
		}
	}
	if opts.OutputDir != "" {
		if err := findUserExpansions(p); err != nil {
			return nil, b.warnings, err
		}
	}
	b.controllers(p)
	b.webhookKinds(p)
	b.conversionKinds(p)
	if len(b.errs) > 0 {
		return nil, b.warnings, errors.Join(b.errs...)
	}
	p.RBACRules, p.RBACDir, p.RBACNamespaces = b.rbac, opts.RBACDir, opts.RBACNamespaces
	p.Webhooks, p.WebhookConfigurations, p.WebhookDir = b.webhooks, b.webhookConfigs, opts.WebhookDir
	if opts.CRDDir != "" {
		if err := b.crds(p); err != nil {
			return p, b.warnings, err
		}
	}
	return p, b.warnings, nil
}

// crds builds the CRDs of the writable API packages: the read-only ones
// (k8s.io/api given for its informers) are someone else's.
func (b *builder) crds(p *model.Project) error {
	var roots []string
	for _, pkg := range p.Packages {
		if !pkg.ReadOnly {
			roots = append(roots, pkg.Path)
		}
	}
	crds, err := crdschema.Build(b.prog, b.graph, roots, crdschema.Options{Dir: b.opts.CRDDir,
		Plural: func(kind string) string { return strings.ToLower(b.goPlural(kind, false)) }})
	if err != nil {
		return fmt.Errorf("crd: %w", err)
	}
	p.CRDs, p.CRDDir = crds, b.opts.CRDDir
	return nil
}

// findUserExpansions sets HasClientExpansion and HasListerExpansion from
// the files in the typed client and lister directories under OutputDir
// (no typed client's when the clientset is another's).
func findUserExpansions(p *model.Project) error {
	exists := func(pkg, file string) (bool, error) {
		dir, err := p.DirOf(pkg)
		if err != nil {
			return false, err
		}
		_, err = os.Stat(filepath.Join(dir, file))
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, os.ErrNotExist):
			return false, nil
		default:
			return false, err
		}
	}
	for _, g := range p.Groups {
		for _, v := range g.Versions {
			for _, k := range v.Kinds {
				var err error
				file := k.FileName + "_expansion.go"
				if !p.ClientsetExternal {
					if k.HasClientExpansion, err = exists(v.TypedClientPkg, file); err != nil {
						return err
					}
				}
				if k.HasListerExpansion, err = exists(v.ListerPkg, file); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// separateTrees reports a generated clientset placed in or around
// another generator's tree, the controllers or an API package
// (--clientset-name . --versioned-name listers): each generator removes
// the stale files of its own tree.
func separateTrees(p *model.Project) error {
	if p.ClientsetExternal {
		return nil
	}
	nested := func(a, b string) bool { return a == b || strings.HasPrefix(a, b+"/") || strings.HasPrefix(b, a+"/") }
	others := []string{p.ListersPkg, p.InformersPkg, p.ApplyConfigurationsPkg, p.ControllersPkg}
	for _, pkg := range p.Packages {
		// API packages, where the deepcopy and register generators write;
		// not any package a pattern such as ./... matched (a user's
		// expansion files in the clientset's own tree).
		if !pkg.ReadOnly && pkg.Version != nil {
			others = append(others, pkg.Path)
		}
	}
	for _, other := range others {
		if other != "" && nested(p.ClientsetPkg, other) {
			return fmt.Errorf("the clientset would be at %s, which overlaps %s; choose another --clientset-name or --versioned-name", p.ClientsetPkg, other)
		}
	}
	return nil
}

type builder struct {
	prog   *loader.Program
	opts   Options
	graph  *typegraph.Graph
	groups map[string]*model.Group
	// groupPkgs are the first package read of each group, for messages.
	groupPkgs map[string]string
	versions  map[string]string // "group/version" → package
	errs      []error
	warnings  []markers.Diagnostic
	// builtin caches shippedModel by package.
	builtin map[string]builtinResult
	// rbac are the +kubebuilder:rbac markers read so far.
	rbac []*model.RBACRule
	// conversions are the kinds marked +ctrlgen:webhook:conversion.
	conversions []conversionMark
	// webhooks and webhookConfigs are the webhook markers read so far.
	webhooks       []*model.WebhookRule
	webhookConfigs []*model.WebhookConfiguration
	// warnedWebhooks is set once the run has said that webhook markers
	// generate nothing without --webhook-dir.
	warnedWebhooks bool
}

// anywhereMarkers reads the markers among a file's marker lines that
// controller-gen reads in any comment of a package: +kubebuilder:rbac
// and the webhook markers.
func (b *builder) anywhereMarkers(lines []markers.Line) {
	vals, diags := markers.RBAC.Read(lines)
	b.report(diags)
	for _, v := range vals {
		r := v.V
		b.rbac = append(b.rbac, &model.RBACRule{Groups: r.Groups, Resources: r.Resources, ResourceNames: r.ResourceNames,
			Verbs: r.Verbs, URLs: r.URLs, Namespace: r.Namespace, RoleName: r.RoleName, Pos: v.Pos})
	}
	webhooks, diags := markers.Webhook.Read(lines)
	b.report(diags)
	configs, diags := markers.WebhookConfiguration.Read(lines)
	b.report(diags)
	for _, v := range webhooks {
		w := v.V
		b.webhooks = append(b.webhooks, &model.WebhookRule{Mutating: w.Mutating, FailurePolicy: w.FailurePolicy,
			MatchPolicy: w.MatchPolicy, SideEffects: w.SideEffects, TimeoutSeconds: w.TimeoutSeconds,
			Groups: w.Groups, Resources: w.Resources, Verbs: w.Verbs, Versions: w.Versions, Name: w.Name,
			ServiceName: w.ServiceName, ServiceNamespace: w.ServiceNamespace, Path: w.Path, ServicePort: w.ServicePort,
			WebhookVersions: w.WebhookVersions, AdmissionReviewVersions: w.AdmissionReviewVersions,
			ReinvocationPolicy: w.ReinvocationPolicy, URL: w.URL, Patch: w.Patch, Pos: v.Pos})
	}
	for _, c := range configs {
		b.webhookConfigs = append(b.webhookConfigs, &model.WebhookConfiguration{Mutating: c.V.Mutating, Name: c.V.Name, Pos: c.Pos})
	}
	if b.opts.WebhookDir == "" && (len(webhooks) > 0 || len(configs) > 0) && !b.warnedWebhooks {
		b.warnedWebhooks = true
		var pos token.Position
		if len(webhooks) > 0 {
			pos = webhooks[0].Pos
		} else {
			pos = configs[0].Pos
		}
		b.warnf(pos, "+kubebuilder:webhook markers are read, but no webhook manifests are written: pass --webhook-dir (kubebuilder's config/webhook) to write them")
	}
}

// report files diagnostics as errors or warnings; a strict run makes
// errors of the lenient warnings.
func (b *builder) report(diags []markers.Diagnostic) {
	for _, d := range diags {
		if d.Warning && d.Lenient && b.opts.StrictMarkers {
			d.Warning = false
			d.Msg += " (--strict-markers)"
		}
		if d.Warning {
			b.warnings = append(b.warnings, d)
		} else {
			b.errs = append(b.errs, d)
		}
	}
}

func (b *builder) warnf(pos token.Position, format string, args ...any) {
	b.warnings = append(b.warnings, markers.Diagnostic{Pos: pos, Msg: fmt.Sprintf(format, args...), Warning: true})
}

func (b *builder) errorf(pos token.Position, format string, args ...any) {
	b.errs = append(b.errs, markers.Diagnostic{Pos: pos, Msg: fmt.Sprintf(format, args...)})
}

// apiPackage is a loaded package with its markers read.
type apiPackage struct {
	src     *loader.Package
	markers markers.Set
	types   []*apiType
	byName  map[string]*apiType
	// groupClient is where the package's first +genclient line is, which
	// gives the version a group client (model.Version.GroupClient); its
	// Line is 0 when there is none.
	groupClient token.Position
}

// apiType is one type declaration with its markers.
type apiType struct {
	spec    *ast.TypeSpec
	markers markers.Set
}

// read reads the markers of a package's types, fields and package
// clause, collected by the graph, where the CRD schemas find them again,
// and reports their problems.
func (b *builder) read(lp *loader.Package) *apiPackage {
	a := &apiPackage{src: lp, byName: map[string]*apiType{}}
	b.graph.Add(lp)
	var bare []token.Position
	// A stray +optional in k8s.io/api is not the user's to fix.
	report := func(diags []markers.Diagnostic) {
		b.report(slices.DeleteFunc(diags, func(d markers.Diagnostic) bool { return d.Warning && lp.ReadOnly }))
	}
	for _, f := range lp.Files {
		scanned := markers.Scan(b.prog.Fset, f.Syntax, f.IsDoc())
		lines := scanned.Lines()
		if !lp.ReadOnly {
			b.anywhereMarkers(lines)
		}
		a.noteGenClient(lines)
		for _, l := range scanned.Package {
			if isBareGenClient(l) {
				bare = append(bare, l.Pos)
			}
		}
		for _, tl := range scanned.Types {
			set, diags, err := b.graph.TypeMarkers(typegraph.Name{Pkg: lp.Path, Name: tl.Spec.Name.Name}, &tl)
			if err != nil {
				b.errs = append(b.errs, err)
			}
			report(diags)
			t := &apiType{spec: tl.Spec, markers: set}
			a.types = append(a.types, t)
			a.byName[tl.Spec.Name.Name] = t
		}
		for _, fl := range scanned.Fields {
			_, diags := b.graph.FieldMarkers(fl.Field.Doc, fl.Lines)
			report(diags)
		}
		for _, d := range scanned.Detached {
			if d.Next == nil {
				if d.Lines = dropBareGenClient(d.Lines); len(d.Lines) == 0 {
					continue
				}
			}
			report(markers.All.Detached(d))
		}
	}
	set, diags, err := b.graph.PackageMarkers(lp.Path)
	if err != nil {
		b.errs = append(b.errs, err)
	}
	a.markers = set
	// A bare +genclient among the package comments is no package marker
	// (see dropBareGenClient).
	report(slices.DeleteFunc(diags, func(d markers.Diagnostic) bool { return slices.Contains(bare, d.Pos) }))
	sort.Slice(a.types, func(i, j int) bool { return a.types[i].spec.Name.Name < a.types[j].spec.Name.Name })
	return a
}

// noteGenClient notes where the first +genclient line of the package is,
// wherever it is: kube_codegen.sh gives client-gen every package with
// such a line, and client-gen writes a group client for each, kinds or
// not (model.Version.GroupClient).
func (a *apiPackage) noteGenClient(lines []markers.Line) {
	if a.groupClient.Line != 0 {
		return
	}
	for _, l := range lines {
		if name, _, _ := strings.Cut(l.Text, "="); name == "genclient" || strings.HasPrefix(name, "genclient:") {
			a.groupClient = l.Pos
			return
		}
	}
}

// dropBareGenClient returns lines without their bare +genclient markers:
// outside any type's comment (in doc.go, above the package clause, or
// after the last declaration) such a line asks only for the version's
// group client, as kubebuilder projects write one for a version without
// clients (kueue's apis/kueue/v1alpha1/types.go), and is no mistake to
// warn about.
func dropBareGenClient(lines []markers.Line) []markers.Line {
	return slices.DeleteFunc(slices.Clone(lines), isBareGenClient)
}

func isBareGenClient(l markers.Line) bool {
	return strings.TrimSpace(l.Text) == markers.GenClient.Name()
}

func (b *builder) pkg(p *model.Project, a *apiPackage) *model.Package {
	lp := a.src
	pkg := &model.Package{Path: lp.Path, Dir: lp.Dir, Name: lp.Name, ReadOnly: lp.ReadOnly}
	decls := declared(lp)
	pkg.HasRegister = decls["SchemeGroupVersion"] && decls["AddToScheme"]
	group, hasGroup := b.groupName(a)
	switch {
	case !hasGroup:
		b.noGroup(a, "has no +groupName (put // +groupName=<group> in its doc.go)")
	case !markers.IsVersion(lp.Name):
		// An internal version, such as k8s.io/kubernetes/pkg/apis/apps:
		// ctrlgen generates for external versions only.
		if a.groupClient.Line != 0 {
			// At its first +genclient: the group may come from a
			// GroupName constant, which has no marker position.
			b.warnf(a.groupClient, "package %s is named %q, not a Kubernetes version (v1, v1beta1, ...), so it is taken for an internal version and gets no clients", lp.Path, lp.Name)
		}
	default:
		pkg.Version = b.version(p, a, group)
		pkg.Version.Package = pkg
	}
	if !lp.ReadOnly {
		if pkg.Version != nil {
			pkg.Register = b.register(a, decls, pkg.HasRegister)
		}
		if !b.opts.NoDeepCopies {
			pkg.DeepCopy = b.deepCopy(a)
		}
	}
	return pkg
}

// groupName is the package's API group: its +groupName, or else the
// GroupName constant it declares (as every k8s.io/api package does).
func (b *builder) groupName(a *apiPackage) (string, bool) {
	marker, hasMarker := markers.GroupName.Get(a.markers)
	constant, hasConst := groupNameConst(a.src)
	if hasMarker && hasConst && marker != constant {
		b.errorf(markers.GroupName.Pos(a.markers), "+groupName=%s but the package declares GroupName = %q", marker, constant)
	}
	if hasMarker {
		return marker, true
	}
	return constant, hasConst
}

// groupNameConst finds `const GroupName = "<group>"`.
func groupNameConst(p *loader.Package) (string, bool) {
	for _, f := range p.Files {
		for _, d := range f.Syntax.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, s := range gd.Specs {
				vs := s.(*ast.ValueSpec)
				if len(vs.Names) == 1 && vs.Names[0].Name == "GroupName" && len(vs.Values) == 1 {
					if lit, ok := vs.Values[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
						v, err := strconv.Unquote(lit.Value)
						return v, err == nil
					}
				}
			}
		}
	}
	return "", false
}

// noGroup reports what needs a group in a package that has none.
func (b *builder) noGroup(a *apiPackage, why string) {
	for _, t := range a.types {
		if markers.GenClient.Has(t.markers) {
			b.errorf(markers.GenClient.Pos(t.markers), "%s has +genclient but package %s %s", t.spec.Name.Name, a.src.Path, why)
			return
		}
	}
	if v, ok := markers.RegisterGen.Get(a.markers); ok && v {
		b.errorf(markers.RegisterGen.Pos(a.markers), "+k8s:register-gen=true but package %s %s", a.src.Path, why)
		return
	}
	if a.groupClient.Line != 0 {
		b.errorf(a.groupClient, "+genclient gives package %s a group client, but it %s", a.src.Path, why)
	}
}

func (b *builder) version(p *model.Project, a *apiPackage, groupName string) *model.Version {
	g := b.group(a, groupName)
	v := &model.Version{Group: g, Name: a.src.Name, GoName: goname.UpperFirst(a.src.Name)}
	v.TypesPkg = a.src.Path
	v.TypesAlias = strings.ToLower(g.GoName + v.Name)
	v.GroupVersionGoName = g.GoName + v.GoName
	// The paths of code-generator v0.37: client-gen and lister-gen lower
	// the directory's case, informer-gen keeps it.
	dir := strings.ToLower(g.PackageName)
	v.TypedClientPkg = p.ClientsetPkg + "/typed/" + dir + "/" + v.Name
	v.TypedClientFakePkg = v.TypedClientPkg + "/fake"
	v.ListerPkg = p.ListersPkg + "/" + dir + "/" + v.Name
	v.InformerGroupPkg = p.InformersPkg + "/" + g.PackageName
	v.InformerPkg = v.InformerGroupPkg + "/" + v.Name
	if p.ApplyConfigurationsPkg != "" {
		v.ApplyConfigPkg = p.ApplyConfigurationsPkg + "/" + dir + "/" + v.Name
		if rest, ok := strings.CutPrefix(v.TypesPkg, "k8s.io/api/"); ok && !p.ApplyConfigurationsExternal && b.opts.ExternalApplyConfigurations == nil {
			// client-go has them; they are used, not copied.
			v.ApplyConfigPkg = clientGoApplyConfigurations + "/" + rest
		}
	}
	v.PrefersProtobuf = b.opts.PrefersProtobuf || servedAsProtobuf(a.src)
	v.GroupClient = a.groupClient.Line != 0
	for _, t := range a.types {
		if markers.GenClient.Has(t.markers) {
			if k := b.kind(a, t, v); k != nil {
				v.Kinds = append(v.Kinds, k)
			}
		}
	}
	v.JSONDecoders = !b.opts.NoJSONDecoders && !v.PrefersProtobuf && !p.ClientsetExternal && len(v.ClientKinds()) > 0
	gv := g.Name + "/" + v.Name
	if other, dup := b.versions[gv]; dup {
		b.errorf(markers.GroupName.Pos(a.markers), "group %q version %s is declared by both %s and %s", g.Name, v.Name, other, v.TypesPkg)
	}
	b.versions[gv] = v.TypesPkg
	if len(v.Kinds) > 0 || v.GroupClient {
		g.Versions = append(g.Versions, v)
	}
	return v
}

// builtinAPIModules hold API types whose servers always accept protobuf:
// kube-apiserver's own, its aggregator's and apiextensions server's, and
// the resource metrics API. Their clientsets in Kubernetes prefer protobuf.
var builtinAPIModules = map[string]bool{
	"k8s.io/api":                     true,
	"k8s.io/apiextensions-apiserver": true,
	"k8s.io/kube-aggregator":         true,
	"k8s.io/metrics":                 true,
}

// servedAsProtobuf reports whether the server of p's types accepts
// protobuf. A generated.pb.go alone does not say so: custom resources are
// served as JSON even when their Go types have protobuf code, and a
// protobuf write to them fails with 415 Unsupported Media Type.
func servedAsProtobuf(p *loader.Package) bool {
	return p.Protobuf && builtinAPIModules[p.Module]
}

func (b *builder) group(a *apiPackage, name string) *model.Group {
	goName, hasGoName := markers.GroupGoName.Get(a.markers)
	if hasGoName {
		goName = goname.UpperFirst(goName)
	} else {
		goName = defaultGroupGoName(name)
	}
	dir := groupDir(a.src.Path)
	g, ok := b.groups[name]
	if !ok {
		g = &model.Group{Name: name, GoName: goName, PackageName: dir}
		b.groups[name] = g
		b.groupPkgs[name] = a.src.Path
		return g
	}
	pos := markers.GroupName.Pos(a.markers)
	if g.GoName != goName {
		b.errorf(pos, "group %q has Go name %s here but %s in another version; give every version the same +groupGoName", name, goName, g.GoName)
	}
	if g.PackageName != dir {
		b.errorf(pos, "group %q is in a directory named %s here but %s in %s; client-gen, lister-gen and informer-gen name a group's output directories after its packages' parent directory, so put every version of a group in one directory",
			name, dir, g.PackageName, b.groupPkgs[name])
	}
	return g
}

// groupDir is the name client-gen, lister-gen and informer-gen give a
// group's output directories: the API package's parent directory, as
// kube_codegen.sh passes it ("gateway-api/apisx/v1alpha1" → "apisx"),
// whatever the group is called; "core" when there is none.
func groupDir(pkgPath string) string {
	parent := path.Dir(pkgPath)
	if parent == "." || parent == "/" {
		return "core"
	}
	return path.Base(parent)
}

// defaultGroupGoName is client-gen's: the first DNS label, capitalised;
// dashes, which Go names cannot have, start a new word.
func defaultGroupGoName(group string) string {
	if group == "" {
		return "Core"
	}
	label, _, _ := strings.Cut(group, ".")
	var s strings.Builder
	for _, word := range strings.Split(label, "-") {
		s.WriteString(goname.UpperFirst(word))
	}
	return s.String()
}

// sortedGroups returns the groups with versions (those with kinds or a
// group client), by name, their versions by
// Kubernetes version priority (v1 before v1beta1 before v1alpha1).
func (b *builder) sortedGroups() []*model.Group {
	var out []*model.Group
	for _, g := range b.groups {
		if len(g.Versions) == 0 {
			continue
		}
		sort.Slice(g.Versions, func(i, j int) bool {
			return version.CompareKubeAwareVersionStrings(g.Versions[i].Name, g.Versions[j].Name) > 0
		})
		out = append(out, g)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		return out[i].GoName < out[j].GoName
	})
	return out
}

// checkNames reports groups whose Go names or output directories
// collide. Directories are compared as client-gen's, in lower case.
func (b *builder) checkNames(groups []*model.Group) {
	goNames, dirs := map[string]*model.Group{}, map[string]*model.Group{}
	for _, g := range groups {
		if other, dup := goNames[g.GoName]; dup {
			b.errs = append(b.errs, fmt.Errorf("groups %q and %q both have the Go name %s; set +groupGoName in one of them", other.Name, g.Name, g.GoName))
		}
		dir := strings.ToLower(g.PackageName)
		if other, dup := dirs[dir]; dup {
			b.errs = append(b.errs, fmt.Errorf("groups %q (%s) and %q (%s) are in directories of the same name, which would share the output directories %s; client-gen, lister-gen and informer-gen name them after the API package's parent directory, so rename one directory",
				other.Name, b.groupPkgs[other.Name], g.Name, b.groupPkgs[g.Name], dir))
		}
		goNames[g.GoName], dirs[dir] = g, g
	}
}

// clientGoApplyConfiguration reports whether client-go's
// applyconfigurations tree has <name>ApplyConfiguration for the k8s.io/api
// type name of package pkg.
func (b *builder) clientGoApplyConfiguration(pkg, name string) bool {
	rest, ok := strings.CutPrefix(pkg, "k8s.io/api/")
	if !ok {
		return false
	}
	_, err := b.graph.Named("k8s.io/client-go/applyconfigurations/"+rest, name+"ApplyConfiguration")
	return err == nil
}

const clientGoApplyConfigurations = "k8s.io/client-go/applyconfigurations"

// typeConverterPkg is the package whose NewTypeConverter the fake
// clientset's NewClientset uses: the apply configurations', or
// client-go's when no version has apply configurations of this run's.
func typeConverterPkg(p *model.Project) string {
	if p.ApplyConfigurationsPkg == "" || p.ApplyConfigurationsExternal || model.GeneratesApplyConfigurations(p) {
		return p.ApplyConfigurationsPkg
	}
	return clientGoApplyConfigurations
}
