// Package ctrlgen is the generator pipeline: load the API packages once,
// read their markers into a model, run every generator in memory, format
// every file, and only then write the files whose bytes differ and remove
// stale ones. Any error before the write leaves the disk untouched.
package ctrlgen

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"golang.org/x/mod/modfile"

	"github.com/ctrlgen/ctrlgen/generators"
	"github.com/ctrlgen/ctrlgen/generators/applyconfiguration"
	"github.com/ctrlgen/ctrlgen/generators/clientset"
	"github.com/ctrlgen/ctrlgen/generators/deepcopy"
	"github.com/ctrlgen/ctrlgen/generators/gen"
	"github.com/ctrlgen/ctrlgen/generators/register"
	"github.com/ctrlgen/ctrlgen/internal/builder"
	"github.com/ctrlgen/ctrlgen/internal/genfile"
	"github.com/ctrlgen/ctrlgen/internal/loader"
	"github.com/ctrlgen/ctrlgen/internal/markers"
	"github.com/ctrlgen/ctrlgen/internal/model"
	"github.com/ctrlgen/ctrlgen/internal/output"
	"github.com/ctrlgen/ctrlgen/internal/parallel"
)

// Config is one run.
type Config struct {
	// Dir is the directory patterns and relative paths are resolved in;
	// "" is the current directory.
	Dir string
	// Patterns are the API packages, e.g. "./pkg/apis/..." or "k8s.io/api/apps/v1".
	Patterns []string
	// OutputDir is where generated packages go; OutputPkg its import
	// path, derived from the enclosing go.mod when empty.
	OutputDir string
	OutputPkg string
	// ControllersDir holds a package per +ctrlgen:controller kind,
	// <ControllersDir>/<lower-case kind>; empty means "controllers" next
	// to OutputDir (inside it when OutputDir is a module's root).
	ControllersDir string
	// CRDDir is where the crd generator writes the CustomResourceDefinitions,
	// <CRDDir>/<group>_<plural>.yaml; empty means DefaultCRDDir, relative
	// to Dir as every relative path.
	CRDDir string
	// RBACDir is where the rbac generator writes the manager's RBAC
	// manifests (kubebuilder's config/rbac); empty means DefaultRBACDir.
	RBACDir string
	// RBACNamespaces says the manager caches only these namespaces
	// (runtime/manager's --namespaces): the rules derived for namespaced
	// resources go into a Role manager-role in each, with a RoleBinding,
	// instead of the ClusterRole. Empty: the ClusterRole, as before.
	RBACNamespaces []string
	// WebhookDir is where the webhook generator writes kubebuilder's
	// config/webhook; empty means DefaultWebhookDir.
	WebhookDir string
	// BoilerplateFile is put on every file after the generated-code line.
	BoilerplateFile string
	// Generators selects generators by name; empty means all.
	Generators []string
	// Verify changes nothing: Run reports stale files and returns ErrStale.
	Verify bool
	// Quiet leaves out the summary a run ends with on Stderr. The files
	// a run removes, and those written once for the user, are named
	// either way.
	Quiet bool
	// PluralExceptions map kinds to their plural, e.g. "Endpoints" → "Endpoints".
	PluralExceptions map[string]string
	// PrefersProtobuf makes every typed client prefer protobuf, as
	// client-gen's --prefers-protobuf; the kube-apiserver's own types
	// always do. Only for APIs whose server speaks protobuf: custom
	// resources do not.
	PrefersProtobuf bool
	// NoJSONDecoders leaves the generated JSON decoders out: the typed
	// clients decode with apimachinery's serializer, as client-gen's do.
	NoJSONDecoders bool
	// VersionedClientsetPkg, as informer-gen's --versioned-clientset-package,
	// is the import path of an existing clientset, e.g.
	// k8s.io/client-go/kubernetes: informers and controllers use it, and
	// no clientset is generated.
	VersionedClientsetPkg string
	// ClientsetName and VersionedName, as kube_codegen.sh gen_client's
	// --clientset-name and --versioned-name, place the clientset at
	// <OutputDir>/<ClientsetName>/<VersionedName>; empty means
	// "clientset" and "versioned". ClientsetName "." puts it right under
	// OutputDir, as client-gen called with --clientset-name versioned
	// and OutputDir as its --output-dir does.
	ClientsetName string
	VersionedName string
	// SingleDirectory, as informer-gen's --single-directory, writes the
	// informers to <OutputDir>/informers, without informer-gen's
	// externalversions directory, as k8s.io/client-go/informers is laid out.
	SingleDirectory bool
	// NoApplyConfig turns the apply configurations off: none are
	// generated and the typed clients have no Apply methods.
	NoApplyConfig bool
	// ExternalApplyConfigurations, as applyconfiguration-gen's
	// --external-applyconfigurations, are the types (besides the meta/v1
	// ones, always client-go's) whose apply configurations are in another
	// package, by type. When nil, k8s.io/api types use client-go's, and
	// k8s.io/api inputs get none generated; when not (even empty), they
	// are generated like any input's.
	ExternalApplyConfigurations map[model.TypeRef]string
	// ApplyConfigurationPkg, as client-gen's --apply-configuration-package,
	// is the import path of apply configurations generated elsewhere: the
	// typed clients' Apply methods take them, and none are generated.
	ApplyConfigurationPkg string
	// ListMarkers makes Run print the markers ctrlgen reads instead.
	ListMarkers bool
	// StrictMarkers makes errors of the marker warnings code-generator and
	// controller-gen have no counterpart of: unknown markers in the
	// namespaces ctrlgen shares with them, near misses of known markers,
	// markers where they have no effect.
	StrictMarkers bool
	// Stdout gets --verify's report, Stderr warnings; os.Stdout and
	// os.Stderr when nil.
	Stdout, Stderr io.Writer
}

// DefaultCRDDir is CRDDir when none is given: kubebuilder's config/crd,
// relative to the directory ctrlgen runs in (a go:generate line runs in
// its file's directory, usually the project's root).
const DefaultCRDDir = "config/crd"

// DefaultRBACDir is RBACDir when none is given: kubebuilder's config/rbac.
const DefaultRBACDir = "config/rbac"

// DefaultWebhookDir is WebhookDir when none is given: kubebuilder's
// config/webhook.
const DefaultWebhookDir = "config/webhook"

// ErrStale is returned by Run with Verify when generated files are not up
// to date.
var ErrStale = errors.New("generated files are out of date; run ctrlgen")

// Run generates and writes, or verifies.
func Run(cfg Config) error {
	cfg.defaults()
	if cfg.ListMarkers {
		return printMarkers(cfg.Stdout)
	}
	plan, err := Plan(cfg)
	if err != nil {
		return err
	}
	if !cfg.Verify {
		if err := plan.Apply(); err != nil {
			return err
		}
		plan.Announce(cfg.Stderr, cfg.rel, cfg.Quiet)
		return nil
	}
	if plan.Empty() {
		return nil
	}
	if err := plan.Report(cfg.Stdout, cfg.rel); err != nil {
		return err
	}
	return ErrStale
}

func (cfg *Config) defaults() {
	if cfg.Stdout == nil {
		cfg.Stdout = os.Stdout
	}
	if cfg.Stderr == nil {
		cfg.Stderr = os.Stderr
	}
	if abs, err := filepath.Abs(cfg.Dir); err == nil {
		cfg.Dir = abs
	}
}

// checkClientsetNames checks --clientset-name and --versioned-name: a
// directory below --output-dir (or "."), and a Go package name, that give
// a package the go command builds, imports and matches with ./...
func checkClientsetNames(cfg Config) error {
	if cfg.VersionedClientsetPkg != "" && (cfg.ClientsetName != "" || cfg.VersionedName != "") {
		return fmt.Errorf("--clientset-name and --versioned-name place the clientset this run generates; with --versioned-clientset-package %s it generates none", cfg.VersionedClientsetPkg)
	}
	if n := cfg.ClientsetName; n != "" && n != "." {
		bad := path.IsAbs(n) || path.Clean(n) != n || strings.Contains(n, `\`)
		for _, elem := range strings.Split(n, "/") {
			bad = bad || elem == ".." || elem == "vendor" || elem == "testdata" || strings.HasPrefix(elem, "_") || strings.HasPrefix(elem, ".")
		}
		if bad {
			return fmt.Errorf("--clientset-name %q: want a directory below --output-dir, in slashes, that go build imports and ./... matches (no .., vendor, testdata, _ or . names; e.g. clientset, or . for --output-dir itself)", n)
		}
	}
	if n := cfg.VersionedName; n != "" && (!token.IsIdentifier(n) || n == "_" || n == "main" || strings.HasPrefix(n, "_")) {
		return fmt.Errorf("--versioned-name %q: want a Go package name another package can import (e.g. versioned)", n)
	}
	return nil
}

// abs resolves a path given on the command line.
func (cfg *Config) abs(path string) string {
	if path == "" || filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(cfg.Dir, path)
}

// readBoilerplate reads the --boilerplate file, which must be Go comments.
func readBoilerplate(name, path string) ([]byte, error) {
	if path == "" {
		return nil, nil
	}
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := parser.ParseFile(token.NewFileSet(), path, append(text, "\npackage p\n"...), parser.ParseComments)
	if err != nil || len(f.Comments) == 0 && len(bytes.TrimSpace(text)) > 0 {
		return nil, fmt.Errorf("--boilerplate %s: not a Go comment (%v)", name, err)
	}
	return text, nil
}

// rel shortens a path for display: relative to Dir when below it.
func (cfg *Config) rel(path string) string {
	if r, err := filepath.Rel(cfg.Dir, path); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return path
}

// Changes is what a run would write.
type Changes struct {
	*output.Plan
	// Files are every generated file, formatted, sorted by path.
	Files []output.File
	Scope output.Scope
}

// Apply writes the changes.
func (c *Changes) Apply() error { return c.Plan.Apply(c.Scope.OutputDir) }

// Plan runs everything but the write: the generated files and how they
// differ from the disk. Warnings are written to cfg.Stderr.
func Plan(cfg Config) (*Changes, error) {
	cfg.defaults()
	r, err := prepare(cfg)
	if err != nil {
		return nil, err
	}
	prog, err := loader.Load(loader.Config{Dir: cfg.Dir, Patterns: cfg.Patterns, Output: isOutput})
	if err != nil {
		return nil, err
	}
	project, crdErr := r.build(prog)
	if project == nil {
		return nil, crdErr
	}
	files, err := r.generate(project)
	if err := errors.Join(err, crdErr); err != nil {
		return nil, err
	}
	return r.emit(project, files)
}

// A run is a checked configuration: the generators to run, what they
// need, and where their output goes.
type run struct {
	cfg   Config
	gens  []generators.Generator
	needs gen.Needs // of all gens together
	// outDir is --output-dir, absolute; module and outPkg are the module
	// enclosing it and its import path.
	outDir, module, outPkg string
	ctrlDir, ctrlPkg       string
	boilerplate            []byte
	// crdDir, rbacDir and webhookDir are where the manifests go,
	// absolute; "" when no generator writes them.
	crdDir, rbacDir, webhookDir string
}

// prepare checks cfg's flags against each other and against the disk,
// selects the generators and resolves where their output goes.
func prepare(cfg Config) (*run, error) {
	gens, err := selectGenerators(cfg.Generators)
	if err != nil {
		return nil, err
	}
	if len(cfg.Generators) == 0 {
		gens = slices.DeleteFunc(gens, func(g generators.Generator) bool {
			n := g.Needs()
			return n.OnRequest && !(n.CRDs && cfg.CRDDir != "" || n.RBACDir && cfg.RBACDir != "" || n.WebhookDir && cfg.WebhookDir != "")
		})
	}
	r := &run{cfg: cfg, gens: gens}
	for _, g := range gens {
		r.needs = r.needs.And(g.Needs())
	}
	if err := checkFlags(cfg); err != nil {
		return nil, err
	}
	r.outDir = cfg.abs(cfg.OutputDir)
	if r.module, r.outPkg, err = outputPackage(r.outDir, cfg.OutputPkg); err != nil {
		return nil, err
	}
	if named(cfg, clientset.Generator{}) && !named(cfg, applyconfiguration.Generator{}) && !cfg.NoApplyConfig && cfg.ApplyConfigurationPkg == "" {
		// The clients' Apply methods take the apply configurations, which
		// this run would neither write nor be told of, and no earlier run
		// wrote. client-gen leaves Apply out then; ctrlgen's clients have
		// it by its flags alone, so that a partial run never disagrees
		// with a full one.
		if _, err := os.Stat(filepath.Join(r.outDir, "applyconfiguration")); errors.Is(err, os.ErrNotExist) {
			return nil, errors.New("--generators has clientset but not applyconfiguration, and no apply configurations are there from an earlier run: the typed clients' Apply methods need them. Add applyconfiguration to --generators, or pass --with-applyconfig=false for clients without Apply (as client-gen without --apply-configuration-package, e.g. generate-groups.sh client,lister,informer)")
		}
	}
	if r.needs.CRDs {
		r.crdDir = cfg.abs(cmp.Or(cfg.CRDDir, DefaultCRDDir))
	}
	if r.needs.RBACDir {
		r.rbacDir = cfg.abs(cmp.Or(cfg.RBACDir, DefaultRBACDir))
	} else if len(cfg.RBACNamespaces) > 0 {
		return nil, errors.New("--rbac-namespaces is for the rbac generator, which this run does not run: give --rbac-dir, or rbac in --generators")
	}
	if r.needs.WebhookDir {
		r.webhookDir = cfg.abs(cmp.Or(cfg.WebhookDir, DefaultWebhookDir))
	}
	r.ctrlDir, r.ctrlPkg = controllersPackage(cfg.abs(cfg.ControllersDir), r.outDir, r.outPkg)
	if r.boilerplate, err = readBoilerplate(cfg.BoilerplateFile, cfg.abs(cfg.BoilerplateFile)); err != nil {
		return nil, err
	}
	return r, nil
}

// named reports whether --generators names g.
func named(cfg Config, g generators.Generator) bool { return slices.Contains(cfg.Generators, g.Name()) }

// checkFlags reports flags that contradict each other or the
// generators asked for by name.
func checkFlags(cfg Config) error {
	if cfg.VersionedClientsetPkg != "" && named(cfg, clientset.Generator{}) {
		return fmt.Errorf("--versioned-clientset-package %s names the clientset to use: the clientset generator would generate none; leave it out of --generators", cfg.VersionedClientsetPkg)
	}
	if err := checkClientsetNames(cfg); err != nil {
		return err
	}
	if cfg.ApplyConfigurationPkg != "" && named(cfg, applyconfiguration.Generator{}) {
		return fmt.Errorf("--apply-configuration-package %s names the apply configurations to use: the applyconfiguration generator would generate none; leave it out of --generators", cfg.ApplyConfigurationPkg)
	}
	if cfg.NoApplyConfig && named(cfg, applyconfiguration.Generator{}) {
		return errors.New("--with-applyconfig=false turns the applyconfiguration generator off; leave it out of --generators")
	}
	if cfg.ExternalApplyConfigurations != nil && (cfg.NoApplyConfig || cfg.ApplyConfigurationPkg != "") {
		return errors.New("--external-applyconfigurations says where the generated apply configurations find others': with --with-applyconfig=false or --apply-configuration-package none are generated")
	}
	if len(cfg.Patterns) == 0 {
		return errors.New("no API packages given")
	}
	if cfg.OutputDir == "" {
		return errors.New("--output-dir is required")
	}
	return nil
}

// build reads the loaded packages into the project the generators read,
// with what they need of it. Warnings go to Stderr. As builder.Build, it
// returns the project with the error when only the CRDs failed.
func (r *run) build(prog *loader.Program) (*model.Project, error) {
	cfg := r.cfg
	project, warnings, err := builder.Build(prog, builder.Options{
		Module:           r.module,
		OutputDir:        r.outDir,
		OutputPkg:        r.outPkg,
		Boilerplate:      string(r.boilerplate),
		ControllersDir:   r.ctrlDir,
		ControllersPkg:   r.ctrlPkg,
		PluralExceptions: cfg.PluralExceptions,
		PrefersProtobuf:  cfg.PrefersProtobuf,
		NoJSONDecoders:   cfg.NoJSONDecoders,

		VersionedClientsetPkg:       cfg.VersionedClientsetPkg,
		ClientsetName:               cfg.ClientsetName,
		VersionedName:               cfg.VersionedName,
		SingleDirectory:             cfg.SingleDirectory,
		ApplyConfigurations:         !cfg.NoApplyConfig,
		ApplyConfigurationPkg:       cfg.ApplyConfigurationPkg,
		ExternalApplyConfigurations: cfg.ExternalApplyConfigurations,
		NoDeepCopies:                !r.needs.DeepCopies,
		NoApplyConfigurationTypes:   !r.needs.ApplyConfigurationTypes,
		CRDDir:                      r.crdDir,
		RBACDir:                     r.rbacDir,
		RBACNamespaces:              cfg.RBACNamespaces,
		WebhookDir:                  r.webhookDir,
		StrictMarkers:               cfg.StrictMarkers,
	})
	for _, w := range warnings {
		fmt.Fprintln(cfg.Stderr, w)
	}
	return project, err
}

// generate runs the generators on project and formats their files.
func (r *run) generate(project *model.Project) ([]output.File, error) {
	genFiles, err := runGenerators(r.gens, project)
	if err != nil {
		return nil, err
	}
	return format(genFiles, project.Boilerplate)
}

// emit compares the files with the disk. Stale files are removed only
// where the generators that ran write: an output directory at the module
// root holds other trees too.
func (r *run) emit(project *model.Project, files []output.File) (*Changes, error) {
	manifestDirs := []string{project.CRDDir, project.RBACDir, project.WebhookDir}
	if project.CRDDir != "" {
		// kubebuilder's kustomize patches: the CRDs' conversion webhooks.
		manifestDirs = append(manifestDirs, filepath.Join(project.CRDDir, "patches"))
	}
	scope := output.Scope{OutputDir: r.outDir, PackageDirs: []string{r.ctrlDir, project.WebhooksDir}, ManifestDirs: manifestDirs,
		Owns: func(path string) bool {
			return slices.ContainsFunc(r.gens, func(g generators.Generator) bool { return g.Owns(project, path) })
		}}
	for _, p := range project.Packages {
		if !p.ReadOnly {
			scope.TypeDirs = append(scope.TypeDirs, p.Dir)
		}
	}
	plan, err := output.Compute(files, scope)
	if err != nil {
		return nil, err
	}
	return &Changes{Plan: plan, Files: files, Scope: scope}, nil
}

func printMarkers(w io.Writer) error {
	for _, d := range markers.All.Defs() {
		if _, err := fmt.Fprintf(w, "%s  (%s)\n    %s\n", d.Syntax(), d.Target(), d.Help()); err != nil {
			return err
		}
	}
	return nil
}

// isOutput says whether a file of a writable API package is one ctrlgen
// writes there, and so not input: anything with ctrlgen's header, and the
// deepcopy and register files of code-generator, which ctrlgen replaces.
func isOutput(_, name string, src []byte) bool {
	if genfile.Ours(src) {
		return true
	}
	return (name == deepcopy.FileName || name == register.FileName) && genfile.Generated(src)
}

func selectGenerators(names []string) ([]generators.Generator, error) {
	available := generators.All()
	if len(names) == 0 {
		return available, nil
	}
	var known []string
	byName := map[string]generators.Generator{}
	for _, g := range available {
		byName[g.Name()] = g
		known = append(known, g.Name())
	}
	want := map[string]bool{}
	for _, n := range names {
		if byName[n] == nil {
			return nil, fmt.Errorf("unknown generator %q (have %s)", n, strings.Join(known, ", "))
		}
		want[n] = true
	}
	var out []generators.Generator
	for _, g := range available {
		if want[g.Name()] {
			out = append(out, g)
		}
	}
	return out, nil
}

// outputPackage returns the module path enclosing dir and dir's import
// path: pkg when given, otherwise derived from the go.mod.
func outputPackage(dir, pkg string) (module, importPath string, err error) {
	for d := dir; ; d = filepath.Dir(d) {
		data, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil {
			module = modfile.ModulePath(data)
			rel, _ := filepath.Rel(d, dir)
			importPath = module
			if rel != "." {
				importPath += "/" + filepath.ToSlash(rel)
			}
			break
		}
		if !errors.Is(err, os.ErrNotExist) {
			return "", "", err
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	switch {
	case pkg != "" && module != "" && pkg != importPath:
		return "", "", fmt.Errorf("--output-pkg %s: the go.mod of module %s puts --output-dir %s at %s, which the generated imports must name; leave --output-pkg out, or give that", pkg, module, dir, importPath)
	case pkg != "":
		if module == "" {
			module = pkg
		}
		return module, pkg, nil
	case module == "":
		return "", "", fmt.Errorf("no go.mod above %s; pass --output-pkg", dir)
	}
	return module, importPath, nil
}

// controllersPackage returns the controllers directory and its import
// path: dir when given, otherwise "controllers" beside outDir, or inside
// it when outDir is a module's root. The import path follows outPkg below
// outDir and the enclosing go.mod elsewhere; it is "" when neither tells.
func controllersPackage(dir, outDir, outPkg string) (string, string) {
	if dir == "" {
		dir = filepath.Join(filepath.Dir(outDir), "controllers")
		if _, err := os.Stat(filepath.Join(outDir, "go.mod")); err == nil {
			dir = filepath.Join(outDir, "controllers")
		}
	}
	if rel, err := filepath.Rel(outDir, dir); err == nil && !strings.HasPrefix(rel, "..") {
		return dir, path.Join(outPkg, filepath.ToSlash(rel))
	}
	if _, pkg, err := outputPackage(dir, ""); err == nil {
		return dir, pkg
	}
	return dir, ""
}

func runGenerators(gens []generators.Generator, p *model.Project) ([]*gen.File, error) {
	results := make([][]*gen.File, len(gens))
	errs := make([]error, len(gens))
	var wg sync.WaitGroup
	for i, g := range gens {
		wg.Go(func() {
			results[i], errs[i] = g.Generate(p)
			if errs[i] != nil {
				errs[i] = fmt.Errorf("%s: %w", g.Name(), errs[i])
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	var all []*gen.File
	for _, r := range results {
		all = append(all, r...)
	}
	return all, nil
}

// format assembles and gofmt's every file, in parallel.
func format(files []*gen.File, boilerplate string) ([]output.File, error) {
	out := make([]output.File, len(files))
	err := parallel.For(len(files), func(i int) error {
		content, err := files[i].Content(boilerplate)
		out[i] = output.File{Path: files[i].Path, Content: content, Once: !files[i].Generated}
		return err
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}
