package apisurface_test

import (
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctrlgen/ctrlgen/bench/apisurface"
	"github.com/ctrlgen/ctrlgen/bench/internal/genrun"
)

var keep = flag.Bool("keep", false, "keep the generated trees and log where they are, for go run ./apisurface/cmd/apisurface")

func TestMain(m *testing.M) { genrun.Main(m, keep) }

// A surfaceInput is an input both tools generate from, and the packages
// of the two trees whose APIs are compared.
type surfaceInput struct {
	*genrun.Input
	patterns []string
}

// goldenSkipped are the cases under generators/testdata that are not
// inputs code-generator takes, and why.
var goldenSkipped = map[string]string{
	"errors":               "no args: its inputs are malformed on purpose, for ctrlgen's error messages",
	"kubebuilder":          "kubebuilder's layout: deep copies come from +kubebuilder:object markers (controller-gen's), which deepcopy-gen ignores, so code-generator's tree does not compile",
	"kubebuilderstatus":    "kubebuilder's layout, as kubebuilder",
	"deepcopyregister":     "only the deepcopy and register generators, whose output the other cases compare too",
	"crdmarkers":           "only the deepcopy, register and crd generators: bench/crd compares its CRDs with controller-gen's",
	"clientlisterinformer": "only the clientset, lister and informer generators with --with-applyconfig=false, over a package with hand-written deep copies and registration: the namespaced case compares the same types' API, and TestProjects compares external-snapshotter's (--with-applyconfig=false)",
	"groupdirs":            "three input directories in one run; kube_codegen.sh's gen_client takes one (its paths were checked against the v0.37.2 binaries by hand)",
	"clientgolayout":       "informer-gen's --versioned-clientset-package and --single-directory over k8s.io/api, as Kubernetes generates k8s.io/client-go/informers: TestShippedKubeTree compares ctrlgen's output with those flags over all of k8s.io/api (kube/) with client-go's own informers and listers",
	"rbac":                 "ctrlgen's controllers and their RBAC; the controller case covers the same wiring's API",
	"statusapply":          "for ctrlgen's own controllers (+ctrlgen:controller:statusApply), whose hand-written reconcile.go does not build without them; its clients and apply configurations have the shapes applyconfig and cluster compare",
	"embeddedforeign":      "structs of a package with no apply configurations embedded in API types (knative's duckv1.Status): applyconfiguration-gen's With functions for their fields do not compile (&value into a field that is no pointer; apply configurations into Go structs), so its tree has no reliable API. Where its signatures can compile, ctrlgen's are the same (checked on knative serving v0.46.0); where they cannot (fields with apply configurations of their own, such as []metav1.Condition), ctrlgen's take the fields' Go types",
	"webhook":              "webhook manifests and ctrlgen's webhooks/ packages, which code-generator does not write, over an API tree whose shapes cluster and namespaced compare and a package that holds only a webhook marker; bench/webhook compares the manifests with controller-gen's",
	"conversion":           "conversions between two versions (Hub, ConvertTo, ConvertFrom and the functions they call), which code-generator does not write, over types whose clients, listers and informers have the shapes cluster and namespaced compare",
	"controller":           "one ctrlgen run over a local API and k8s.io/api/core/v1 together, for ctrlgen's own controllers; kube_codegen.sh's gen_client takes one input directory (ops/v1's markers are covered by cluster and nostatus)",
	"filters":              "ctrlgen's own controllers with event filters (+ctrlgen:controller:filter=), whose hand-written reconcile.go does not build without them; its clients, listers and informers have the shapes cluster and namespaced compare",
	"metadataonly":         "ctrlgen's own controllers caching owned kinds as metadata alone (owns=…,metadataOnly), which code-generator does not write; its clients, listers and informers have the shapes cluster and namespaced compare",
	"rbacnamespaces":       "ctrlgen's controllers and their RBAC as namespaced Roles (--rbac-namespaces), manifests code-generator does not write; the rbac case's API",
}

// goldenInputs are the cases of ctrlgen's golden tests that code-generator
// can also be run on: their in/ tree, ctrlgen run with their args, and
// code-generator run as kube_codegen.sh would be for the same packages
// and flags.
func goldenInputs(t *testing.T) []surfaceInput {
	argsFiles, err := filepath.Glob(filepath.Join(genrun.RepoDir, "generators", "testdata", "*", "args"))
	if err != nil {
		t.Fatal(err)
	}
	var ins []surfaceInput
	seen := map[string]bool{}
	for _, f := range argsFiles {
		dir := filepath.Dir(f)
		name := filepath.Base(dir)
		seen[name] = true
		if goldenSkipped[name] != "" {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		args := strings.Fields(string(data))
		in := &genrun.Input{
			Name:        "golden-" + name,
			Module:      "example.com/" + name,
			Src:         withObjectMarkers(t, filepath.Join(dir, "in")),
			CtrlgenArgs: args,
		}
		var pkgs []string
		noApply := false
		var externals *string // --external-applyconfigurations, when given
		for i := 0; i < len(args); i++ {
			switch a := args[i]; {
			case a == "--external-applyconfigurations":
				i++
				externals = &args[i]
			case strings.HasPrefix(a, "--external-applyconfigurations="):
				v := strings.TrimPrefix(a, "--external-applyconfigurations=")
				externals = &v
			case a == "--output-dir":
				i++
				in.Codegen.OutDir = args[i]
			case a == "--plural-exceptions":
				i++
				in.Codegen.PluralExceptions = args[i]
			case a == "--clientset-name":
				i++
				in.Codegen.ClientsetDir = args[i]
			case a == "--prefers-protobuf":
				in.Codegen.PrefersProtobuf = true
			case a == "--with-applyconfig=false":
				noApply = true
			case a == "--boilerplate", a == "--crd-dir", a == "--rbac-dir":
				// Not Go API: a header, and where the CRDs go.
				i++
			case a == "--generators" && i+1 < len(args) && codegenGenerators(args[i+1]):
				// code-generator's outputs, without the manifests. The
				// typed clients have Apply unless --with-applyconfig=false,
				// whatever --generators says: code-generator's side then
				// needs the apply configurations too.
				if !slices.Contains(strings.Split(args[i+1], ","), "applyconfiguration") && !slices.Contains(args, "--with-applyconfig=false") {
					t.Fatalf("%s: --generators without applyconfiguration gives clients whose Apply takes apply configurations this run does not write; add it, or --with-applyconfig=false", f)
				}
				i++
			case strings.HasPrefix(a, "-"):
				t.Fatalf("%s: no code-generator equivalent known for %s", f, a)
			default:
				pkgs = append(pkgs, a)
			}
		}
		var compare []string
		switch {
		case len(pkgs) == 1 && strings.HasPrefix(pkgs[0], "./") && strings.HasSuffix(pkgs[0], "/..."):
			// A local API tree: deep copies and registration too (except
			// where register.go is hand-written, where a user would not
			// call gen_register).
			in.Codegen.In = strings.TrimSuffix(strings.TrimPrefix(pkgs[0], "./"), "/...")
			in.Codegen.Helpers = true
			handwritten, _ := filepath.Glob(filepath.Join(in.Src, in.Codegen.In, "*", "*", "register.go"))
			in.Codegen.Register = len(handwritten) == 0
			// ctrlgen's default is kube_codegen.sh's --with-applyconfig.
			in.Codegen.ApplyConfig = !noApply
			in.Codegen.ApplyConfigExternals = goldenApplyConfigExternals[name]
			if externals != nil {
				in.Codegen.ApplyConfigExternals = *externals
			}
			compare = append(compare, pkgs[0])
		case !slices.ContainsFunc(pkgs, func(p string) bool { return !strings.HasPrefix(p, "k8s.io/api/") }):
			// Read-only packages of k8s.io/api: clients only, with the
			// plural exception and protobuf Kubernetes uses for client-go
			// (ctrlgen applies both to k8s.io/api unasked).
			in.Codegen.In = "k8s.io/api"
			for _, p := range pkgs {
				in.Codegen.Packages = append(in.Codegen.Packages, strings.TrimPrefix(p, "k8s.io/api/"))
			}
			in.Codegen.PluralExceptions = "Endpoints:Endpoints"
			in.Codegen.PrefersProtobuf = true
			switch {
			case noApply:
			case externals != nil:
				// Apply configurations of their own, as applyconfiguration-gen
				// writes client-go's.
				in.Codegen.ApplyConfig = true
				in.Codegen.ApplyConfigExternals = *externals
			default:
				// As Kubernetes generates client-go's clients; ctrlgen uses
				// client-go's apply configurations for k8s.io/api too.
				in.Codegen.ApplyConfigurationPkg = "k8s.io/client-go/applyconfigurations"
			}
		default:
			t.Fatalf("%s: packages %v: add the case to goldenSkipped, saying why", f, pkgs)
		}
		compare = append(compare, "./"+path.Join(in.Codegen.OutDir, "..."))
		ins = append(ins, surfaceInput{in, compare})
	}
	for name := range goldenSkipped {
		if !seen[name] && name != "errors" {
			t.Errorf("goldenSkipped names %s, which is not a case with args any more", name)
		}
	}
	return ins
}

// goldenApplyConfigExternals are kube_codegen.sh's --applyconfig-externals
// for the golden cases whose types refer to k8s.io/api types: ctrlgen
// uses client-go's apply configurations for every one of them unasked.
var goldenApplyConfigExternals = map[string]string{
	"applyconfig": "k8s.io/api/core/v1.PodTemplateSpec:k8s.io/client-go/applyconfigurations/core/v1",
	"namespaced":  "k8s.io/api/core/v1.PodTemplateSpec:k8s.io/client-go/applyconfigurations/core/v1",
}

// objectMarker makes deepcopy-gen write DeepCopyObject for a type.
const objectMarker = "// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object"

// withObjectMarkers copies the golden input src and puts objectMarker
// above every struct type that embeds TypeMeta and lacks it, in both
// trees' input alike. ctrlgen infers DeepCopyObject for such types, and
// most golden inputs rely on that; deepcopy-gen writes it only where
// marked, so without the marker code-generator's tree does not compile
// and is no input for it. A code-generator user has the markers.
func withObjectMarkers(t *testing.T, src string) string {
	dst := filepath.Join(genrun.WorkDir, "src-"+filepath.Base(filepath.Dir(src)))
	if err := genrun.CopyTree(src, dst); err != nil {
		t.Fatal(err)
	}
	err := filepath.WalkDir(dst, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		var at []int // lines to put the marker above, last first
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE || len(gd.Specs) != 1 {
				continue
			}
			st, ok := gd.Specs[0].(*ast.TypeSpec).Type.(*ast.StructType)
			if !ok || !slices.ContainsFunc(st.Fields.List, embedsTypeMeta) ||
				strings.Contains(gd.Doc.Text(), strings.TrimPrefix(objectMarker, "// ")) {
				continue
			}
			at = append([]int{fset.Position(gd.Pos()).Line}, at...)
		}
		if len(at) == 0 {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		lines := strings.Split(string(data), "\n")
		for _, l := range at {
			lines = slices.Insert(lines, l-1, objectMarker)
		}
		return os.WriteFile(p, []byte(strings.Join(lines, "\n")), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// embedsTypeMeta says whether f is an embedded TypeMeta.
func embedsTypeMeta(f *ast.Field) bool {
	if len(f.Names) > 0 {
		return false
	}
	switch x := f.Type.(type) {
	case *ast.SelectorExpr:
		return x.Sel.Name == "TypeMeta"
	case *ast.Ident:
		return x.Name == "TypeMeta"
	}
	return false
}

// realInputs are open-source API modules generated with code-generator
// (see genrun's SampleController, ExternalSnapshotterClient, GatewayAPI,
// PrometheusOperator, Kueue, KnativeServing and CertManager for the
// versions and how their scripts call it), and the packages compared.
func realInputs(t *testing.T) []surfaceInput {
	return []surfaceInput{
		{genrun.SampleController(t), []string{"./pkg/apis/...", "./pkg/generated/..."}},
		{genrun.ExternalSnapshotterClient(t), []string{"./..."}},
		{genrun.GatewayAPI(t), []string{"./apis/...", "./apisx/...", "./pkg/client/..."}},
		// prometheus-operator: the client module; the API module is
		// compared too, as a module ctrlgen generates in (CtrlgenBefore).
		{genrun.PrometheusOperator(t), []string{"./..."}},
		{genrun.Kueue(t), []string{"./apis/...", "./client-go/..."}},
		// knative serving: its injection layer, generated by knative's
		// own tool over the clients and not regenerated, is compared as
		// a build on either tool's clients.
		{genrun.KnativeServing(t), []string{"./pkg/apis/...", "./pkg/client/clientset/...", "./pkg/client/listers/...", "./pkg/client/informers/...", "./pkg/client/injection/..."}},
		// cert-manager: clients over its committed apply configurations
		// (--apply-configuration-package).
		{genrun.CertManager(t), []string{"./pkg/client/clientset/...", "./pkg/client/listers/...", "./pkg/client/informers/..."}},
	}
}

// TestAPISurface generates each input with ctrlgen and with
// code-generator into two trees and fails on any difference between
// their exported APIs but the additions allowedAdditions lists.
func TestAPISurface(t *testing.T) {
	if testing.Short() {
		t.Skip("builds k8s.io/code-generator and runs both tools on every input (minutes)")
	}
	ins := append(goldenInputs(t), realInputs(t)...)
	used := make([]bool, len(allowedAdditions))
	ran := 0
	for _, in := range ins {
		t.Run(in.Name, func(t *testing.T) {
			ctrlgenRoot, codegenRoot := genrun.Trees(t, in.Input)
			if *keep {
				t.Logf("go run ./apisurface/cmd/apisurface %s %s %s", codegenRoot, ctrlgenRoot, strings.Join(in.patterns, " "))
			}
			codegen, err := apisurface.Load(codegenRoot, in.patterns...)
			if err != nil {
				t.Fatal(err)
			}
			ctrlgen, err := apisurface.Load(ctrlgenRoot, in.patterns...)
			if err != nil {
				t.Fatal(err)
			}
			diffs := apisurface.Compare(codegen, ctrlgen)
			// The other modules of a repository ctrlgen generates in
			// (prometheus-operator's API module: its deep copies), all
			// their packages, named by their path from the input's.
			for _, r := range in.CtrlgenBefore {
				rel, _ := filepath.Rel(filepath.FromSlash(in.Dir), filepath.FromSlash(r.Dir))
				var apis [2]*apisurface.API
				for i, root := range []string{codegenRoot, ctrlgenRoot} {
					if apis[i], err = apisurface.Load(filepath.Join(root, rel), "./..."); err != nil {
						t.Fatal(err)
					}
				}
				for _, d := range apisurface.Compare(apis[0], apis[1]) {
					d.Package = path.Join(filepath.ToSlash(rel), d.Package)
					diffs = append(diffs, d)
				}
			}
			ran++
			var left []apisurface.Diff
			for _, d := range diffs {
				if i := allowed(d); i >= 0 {
					used[i] = true
				} else {
					left = append(left, d)
				}
			}
			if len(left) > 0 {
				t.Errorf("ctrlgen's exported API differs from code-generator's in %d places (- missing in ctrlgen, + extra in ctrlgen, ~ changed; -keep keeps the trees for apisurface's command, which prints every line):\n%s",
					len(left), apisurface.Report(left, 8, 80))
			}
		})
	}
	if ran == len(ins) {
		for i, a := range allowedAdditions {
			if !used[i] {
				t.Errorf("allowedAdditions[%d] (%s %s) matches no addition any more: remove it", i, a.pkg, a.key)
			}
		}
	}
}

// allowed returns the index of the allowedAdditions entry that allows d,
// or -1. Only additions are ever allowed.
func allowed(d apisurface.Diff) int {
	if d.Kind != apisurface.Extra {
		return -1
	}
	elems := strings.Split(d.Package, "/")
	for i, a := range allowedAdditions {
		n := strings.Count(a.pkg, "/") + 1
		if n > len(elems) {
			continue
		}
		pm, _ := path.Match(a.pkg, strings.Join(elems[len(elems)-n:], "/"))
		km, _ := path.Match(a.key, d.Key)
		if pm && km {
			return i
		}
	}
	return -1
}

// allowedAdditions are the exported identifiers ctrlgen's trees may have
// beyond code-generator's, each with why. pkg is a path.Match pattern
// over the last elements of the package's path relative to the tree
// (as many as pkg has), key one over the identifier: "T", "T.M", "F", or
// "package" for a whole package code-generator does not write. Missing
// and changed identifiers are never allowed; an entry that no input
// needs any more fails the test.
var allowedAdditions = []struct{ pkg, key, reason string }{
	{"applyconfiguration/*/*", "Extract*", "applyconfiguration-gen writes Extract<Kind>, Extract<Kind>From and Extract<Kind><Subresource> only when given an OpenAPI schema from openapi-gen (--applyconfig-openapi-schema), which the comparison does not run; ctrlgen derives the schema from the Go types and always writes them"},
	{"clientset/versioned/fake", "NewClientset", "client-gen writes NewClientset only with apply configurations; without them ctrlgen's is NewSimpleClientset, so unit tests written against either tool's fake compile"},
}

// TestGatewayAPIApplyConfigurations compares the apply configurations
// ctrlgen generates for gateway-api's API packages with the ones the
// project commits, which its script generates with applyconfiguration-gen
// and an OpenAPI schema from openapi-gen (so they have Extract functions,
// as ctrlgen's always do): no difference is allowed.
func TestGatewayAPIApplyConfigurations(t *testing.T) {
	if testing.Short() {
		t.Skip("generates gateway-api's apply configurations (minutes)")
	}
	gw := genrun.GatewayAPI(t)
	in := &genrun.Input{
		Name:   "gateway-api-applyconfiguration",
		Module: gw.Module,
		Src:    gw.Src,
		CtrlgenArgs: []string{"--output-dir", ".", "--boilerplate", "hack/boilerplate.go.txt",
			"--generators", "applyconfiguration", "./apis/...", "./apisx/..."},
		// Only for its Clean: the committed apply configurations are
		// removed from ctrlgen's tree before ctrlgen writes its own.
		Codegen: genrun.KubeCodegen{In: ".", OutDir: ".", ApplyConfig: true},
	}
	ctrlgenRoot := genrun.CtrlgenTree(t, in)
	committedRoot := filepath.Join(t.TempDir(), "committed")
	if err := genrun.WriteModule(committedRoot, in); err != nil {
		t.Fatal(err)
	}
	if out, err := genrun.GoCmd(committedRoot, []string{"GOFLAGS=-mod=mod", genrun.SetupProxy()}, "mod", "tidy"); err != nil {
		t.Fatalf("go mod tidy: %v\n%s", err, out)
	}
	committed, err := apisurface.Load(committedRoot, "./applyconfiguration/...")
	if err != nil {
		t.Fatal(err)
	}
	ours, err := apisurface.Load(ctrlgenRoot, "./applyconfiguration/...")
	if err != nil {
		t.Fatal(err)
	}
	current := forKindTypes(t, filepath.Join(committedRoot, "applyconfiguration", "utils.go"))
	var left []apisurface.Diff
	inlineTags, stale := 0, 0
	for _, d := range apisurface.Compare(committed, ours) {
		switch {
		case d.Kind == apisurface.Changed && strings.ReplaceAll(d.Codegen, "`json:\",inline\"`", "`json:\"\"`") == d.Ctrlgen:
			inlineTags++
		case d.Kind == apisurface.Missing && !current[path.Base(path.Dir(d.Package))+"/"+path.Base(d.Package)+"."+acTypeOf(d.Key)]:
			stale++
		default:
			left = append(left, d)
		}
	}
	t.Logf("set aside: %d inline tags written by an older applyconfiguration-gen, %d identifiers of stale files", inlineTags, stale)
	if len(left) > 0 {
		t.Errorf("ctrlgen's apply configurations differ from gateway-api's committed ones in %d places (code-generator: the committed side):\n%s",
			len(left), apisurface.Report(left, 8, 80))
	}
}

// forKindTypes returns the apply configurations a committed utils.go's
// ForKind returns, as "<dir>/<version>.<Type>ApplyConfiguration": what
// applyconfiguration-gen generated the last time it ran. gateway-api's
// script does not delete earlier output, so its tree also holds files of
// types its API packages no longer declare (v1alpha3's
// BackendTLSPolicySpec, now v1's), which no generator writes today.
func forKindTypes(t *testing.T, utils string) map[string]bool {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), utils, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	imports := map[string]string{}
	for _, imp := range f.Imports {
		p := strings.Trim(imp.Path.Value, `"`)
		name := path.Base(p)
		if imp.Name != nil {
			name = imp.Name.Name
		}
		imports[name] = path.Base(path.Dir(p)) + "/" + path.Base(p)
	}
	out := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if x, ok := sel.X.(*ast.Ident); ok && strings.HasSuffix(sel.Sel.Name, "ApplyConfiguration") {
				out[imports[x.Name]+"."+sel.Sel.Name] = true
			}
		}
		return true
	})
	return out
}

// acTypeOf is the apply configuration an identifier belongs to: a
// method's or field's type, or the type a constructor returns.
func acTypeOf(key string) string {
	key, _, _ = strings.Cut(key, ".")
	if !strings.HasSuffix(key, "ApplyConfiguration") {
		key += "ApplyConfiguration"
	}
	return key
}

// codegenGenerators says whether a --generators list names all of
// code-generator's outputs (with or without apply configurations), and
// otherwise only manifests, which have no Go API.
func codegenGenerators(list string) bool {
	want := strings.Split(genrun.CodegenGenerators, ",")
	for _, g := range strings.Split(list, ",") {
		switch {
		case slices.Contains(want, g):
			want = slices.DeleteFunc(want, func(w string) bool { return w == g })
		case g == "applyconfiguration", g == "crd", g == "rbac":
		default:
			return false
		}
	}
	return len(want) == 0
}
