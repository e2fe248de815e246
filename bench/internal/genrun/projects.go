package genrun

import (
	"os"
	"path/filepath"
	"testing"
)

// Real projects whose clients code-generator generated, as inputs both
// tools regenerate from their API packages the way the projects' own
// hack/ scripts call kube_codegen.sh, limited to the generators ctrlgen
// replaces. bench/apisurface compares the two tools' APIs on them;
// bench/compat builds and tests the projects' controllers on ctrlgen's.

// CodegenGenerators are ctrlgen's generators for what code-generator
// writes without apply configurations (add applyconfiguration where
// kube_codegen.sh runs with --with-applyconfig): not the crd generator (external-snapshotter, for one, commits
// CRDs of its own in config/crd, which ctrlgen would refuse to overwrite).
const CodegenGenerators = "deepcopy,register,clientset,lister,informer,controller"

// SampleControllerVersion is the k8s.io/sample-controller version used.
// v0.37.2 is refused by the module proxy (403); v0.37.1 is the neighbour,
// generated with code-generator v0.37.1.
const SampleControllerVersion = "v0.37.1"

// SampleController is k8s.io/sample-controller, whose controller and its
// test live in the module's root package. Its hack/update-codegen.sh calls
// gen_helpers, gen_openapi, gen_client --with-watch --with-applyconfig
// and gen_register. Both tools generate the apply configurations here
// (ctrlgen by default); openapi-gen is not among the generators ctrlgen
// replaces and is not run, so code-generator's applyconfiguration-gen
// has no schema and writes no Extract functions, which ctrlgen, deriving
// the schema itself, always writes.
func SampleController(tb testing.TB) *Input {
	return &Input{
		Name:   "sample-controller",
		Module: "k8s.io/sample-controller",
		Src:    ModuleSource(tb, "k8s.io/sample-controller", SampleControllerVersion),
		CtrlgenArgs: []string{"--output-dir", "pkg/generated", "--boilerplate", "hack/boilerplate.go.txt", "--generators", CodegenGenerators + ",applyconfiguration",
			"./pkg/apis/..."},
		Codegen: KubeCodegen{In: "pkg/apis", Helpers: true, Register: true, OutDir: "pkg/generated", ApplyConfig: true},
	}
}

// ExternalSnapshotterVersion is the version of
// github.com/kubernetes-csi/external-snapshotter/client/v8 used, and of
// the controllers' module, github.com/kubernetes-csi/external-snapshotter/v8,
// which builds against the client of the same commit (its go.mod replaces
// it with ./client).
const ExternalSnapshotterVersion = "v8.7.0"

// ExternalSnapshotterClient is external-snapshotter's client module. Its
// hack/update-generated-code.sh calls gen_helpers, and gen_client
// --with-watch into the module's root, without apply configurations (so
// ctrlgen runs with --with-applyconfig=false). register.go is
// hand-written.
func ExternalSnapshotterClient(tb testing.TB) *Input {
	return &Input{
		Name:   "external-snapshotter",
		Module: "github.com/kubernetes-csi/external-snapshotter/client/v8",
		Src:    ModuleSource(tb, "github.com/kubernetes-csi/external-snapshotter/client/v8", ExternalSnapshotterVersion),
		CtrlgenArgs: []string{"--output-dir", ".", "--boilerplate", "hack/boilerplate.go.txt", "--generators", CodegenGenerators, "--with-applyconfig=false",
			"./apis/..."},
		Codegen: KubeCodegen{In: "apis", Helpers: true, OutDir: "."},
	}
}

// GatewayAPIVersion is the sigs.k8s.io/gateway-api version used.
const GatewayAPIVersion = "v1.6.3"

// GatewayAPI is sigs.k8s.io/gateway-api, whose API packages are
// version directories right under apis/ (group gateway.networking.k8s.io)
// and apisx/ (gateway.networking.x-k8s.io), with no group directory. Its
// hack/update-clientset.sh calls the generators itself, not through
// kube_codegen.sh, on apis/* and apisx/*: openapi-gen,
// applyconfiguration-gen, client-gen (--input-base the module,
// --input apis/v1,… apisx/v1alpha1, --apply-configuration-package its
// applyconfiguration), lister-gen, informer-gen and register-gen into
// pkg/client, and controller-gen's object generator for the deep copies
// (+kubebuilder:object:generate=true; the few +k8s:deepcopy-gen markers
// are =false on single types). Here code-generator runs register-gen,
// client-gen (with --apply-configuration-package the committed apply
// configurations, as the script), lister-gen and informer-gen on those
// five packages, named by Packages since In is the module root (which
// gives client-gen the apis/v1 inputs the script does; pkg/gep also has
// a +groupName the script leaves alone); openapi-gen,
// applyconfiguration-gen and controller-gen are not run, so the committed
// deep copies (controller-gen's), openapi and apply configurations stay.
// ctrlgen is pointed at the same apply configurations.
func GatewayAPI(tb testing.TB) *Input {
	return &Input{
		Name:   "gateway-api",
		Module: "sigs.k8s.io/gateway-api",
		Src:    ModuleSource(tb, "sigs.k8s.io/gateway-api", GatewayAPIVersion),
		CtrlgenArgs: []string{"--output-dir", "pkg/client", "--boilerplate", "hack/boilerplate.go.txt", "--generators", CodegenGenerators,
			"--apply-configuration-package", "sigs.k8s.io/gateway-api/applyconfiguration",
			"./apis/...", "./apisx/..."},
		Codegen: KubeCodegen{In: ".", Register: true, OutDir: "pkg/client",
			ApplyConfigurationPkg: "sigs.k8s.io/gateway-api/applyconfiguration",
			Packages:              []string{"apis/v1", "apis/v1alpha2", "apis/v1alpha3", "apis/v1beta1", "apisx/v1alpha1"}},
	}
}

// PrometheusOperatorVersion is the version of prometheus-operator's
// modules used: the operator's (the repository's root module) and its
// API and client modules nested in it, which the root's go.mod replaces
// by ./pkg/apis/monitoring and ./pkg/client.
const PrometheusOperatorVersion = "v0.92.0"

// PrometheusOperator is prometheus-operator's client module
// (pkg/client), in the repository RepoSource assembles. Its Makefile's
// k8s-client-gen target calls the generators itself from the
// repository root, with --go-header-file .header: applyconfiguration-gen
// into pkg/client/applyconfiguration (no --external-applyconfigurations,
// so only meta/v1's types are client-go's: ctrlgen's
// --external-applyconfigurations "" is the same; no OpenAPI schema),
// client-gen with --apply-configuration-package those, --input-base
// <module>/pkg/apis, --input monitoring/{v1,v1beta1,v1alpha1},
// --clientset-name versioned and --output-dir pkg/client (so the
// clientset is pkg/client/versioned, not pkg/client/clientset/versioned:
// ClientsetDir, and ctrlgen's --clientset-name .), lister-gen into
// pkg/client/listers and informer-gen into pkg/client/informers, on the three API packages. Its deep copies
// come from controller-gen's object generator, run in each API package
// directory of the API module (pkg/apis/monitoring), which ctrlgen does
// in a run of its own there (the client module's ctrlgen run only reads
// the API, another module's packages); code-generator's tree keeps the
// committed ones. register.go is hand-written. In is ../apis, the API
// module's parent directory, so that client-gen's --input are
// monitoring/v1 and so on, as the Makefile's.
func PrometheusOperator(tb testing.TB) *Input {
	const repo = "github.com/prometheus-operator/prometheus-operator"
	return &Input{
		Name:   "prometheus-operator",
		Module: repo + "/pkg/client",
		Src:    RepoSource(tb, PrometheusOperatorVersion, repo, repo+"/pkg/apis/monitoring", repo+"/pkg/client"),
		Dir:    "pkg/client",
		CtrlgenBefore: []CtrlgenRun{{Dir: "pkg/apis/monitoring",
			Args: []string{"--output-dir", ".", "--boilerplate", "../../../.header", "--generators", "deepcopy", "./..."}}},
		CtrlgenArgs: []string{"--output-dir", ".", "--output-pkg", repo + "/pkg/client", "--clientset-name", ".", "--boilerplate", "../../.header",
			"--generators", "applyconfiguration,clientset,lister,informer", "--external-applyconfigurations", "",
			repo + "/pkg/apis/monitoring/v1", repo + "/pkg/apis/monitoring/v1alpha1", repo + "/pkg/apis/monitoring/v1beta1"},
		Codegen: KubeCodegen{In: "../apis", OutDir: ".", ClientsetDir: ".", ApplyConfig: true},
	}
}

// KueueVersion is the sigs.k8s.io/kueue version used.
const KueueVersion = "v0.17.0"

// kueueApplyConfigExternals are the --applyconfig-externals of kueue's
// hack/tools/code-generator/generate.sh (a nested module, not in the
// module's zip; read in the repository).
const kueueApplyConfigExternals = "k8s.io/api/core/v1.PodTemplateSpec:k8s.io/client-go/applyconfigurations/core/v1," +
	"k8s.io/api/core/v1.Taint:k8s.io/client-go/applyconfigurations/core/v1," +
	"k8s.io/api/core/v1.Toleration:k8s.io/client-go/applyconfigurations/core/v1"

// Kueue is sigs.k8s.io/kueue, a kubebuilder-layout project: its API
// packages under apis/ (groups config, kueue and visibility, five
// versions with clients) register their types with controller-runtime's
// scheme.Builder in groupversion_info.go, its Makefile's generate-code
// target has controller-gen write their deep copies, and then
// generate.sh calls kube_codegen.sh: gen_helpers on apis (which, with no
// +k8s:deepcopy-gen marker there, generates nothing and removes nothing:
// Helpers false here), gen_openapi for the aggregated visibility API
// (not run; its output stays), and gen_client --with-watch
// --with-applyconfig --applyconfig-externals (three core/v1 types) into
// client-go. The visibility kinds have +genclient:method client methods
// on a subresource with a result type of their own. The deep copies
// committed stay in code-generator's tree; ctrlgen writes its own from
// +kubebuilder:object:generate. Neither register-gen nor ctrlgen's
// register generator runs: registration is hand-written, and kueue runs
// no gen_register (ctrlgen's would add GroupName, SchemeGroupVersion and
// Resource to the config packages, which lack them).
func Kueue(tb testing.TB) *Input {
	return &Input{
		Name:   "kueue",
		Module: "sigs.k8s.io/kueue",
		Src:    ModuleSource(tb, "sigs.k8s.io/kueue", KueueVersion),
		CtrlgenArgs: []string{"--output-dir", "client-go", "--boilerplate", "hack/boilerplate.go.txt", "--generators", "deepcopy,applyconfiguration,clientset,lister,informer",
			"--external-applyconfigurations", kueueApplyConfigExternals, "./apis/..."},
		Codegen: KubeCodegen{In: "apis", OutDir: "client-go", ApplyConfig: true, ApplyConfigExternals: kueueApplyConfigExternals},
		K8sModules: []string{"k8s.io/apiextensions-apiserver", "k8s.io/apiserver", "k8s.io/cli-runtime", "k8s.io/component-base",
			"k8s.io/component-helpers", "k8s.io/kubectl", "k8s.io/metrics"},
	}
}

// KnativeServingVersion is the knative.dev/serving version used, at
// k8s.io v0.35. The newest, v0.51.0, requires a knative.dev/pkg the
// module proxy refuses (403); v0.50.0 is its neighbour. (v0.46.0, where
// the duck-typed apply configurations were found, is at v0.33.)
const KnativeServingVersion = "v0.50.0"

// KnativeServing is knative.dev/serving, whose API types embed knative's
// duck types, structs of another module (knative.dev/pkg's duckv1.Status
// in every kind's status, duckv1.Addressable, …). Its
// hack/update-codegen.sh calls gen_client --with-watch into pkg/client
// (no apply configurations: --with-applyconfig=false), then knative's
// injection generator, which writes pkg/client/injection over that
// clientset, those informers and listers (not run: it stays, and builds
// on either tool's), then gen_helpers on pkg. Both tools' deep copies
// are of pkg/apis only, where the API types are. register.go is
// hand-written.
func KnativeServing(tb testing.TB) *Input {
	return &Input{
		Name:   "knative-serving",
		Module: "knative.dev/serving",
		Src:    ModuleSource(tb, "knative.dev/serving", KnativeServingVersion),
		CtrlgenArgs: []string{"--output-dir", "pkg/client", "--boilerplate", "hack/boilerplate/boilerplate.go.txt",
			"--generators", "deepcopy,clientset,lister,informer", "--with-applyconfig=false", "./pkg/apis/..."},
		Codegen:    KubeCodegen{In: "pkg/apis", Helpers: true, OutDir: "pkg/client"},
		K8sModules: []string{"k8s.io/apiextensions-apiserver", "k8s.io/code-generator"},
	}
}

// CertManagerVersion is the github.com/cert-manager/cert-manager version
// used.
const CertManagerVersion = "v1.21.2"

// CertManager is cert-manager's root module, in a copy CertManagerSource
// makes. Its hack/k8s-codegen.sh calls the generators itself:
// applyconfiguration-gen (with an OpenAPI schema) into
// pkg/client/applyconfigurations, then client-gen with
// --apply-configuration-package those, --clientset-name versioned and
// --output-dir pkg/client/clientset, lister-gen and informer-gen into
// pkg/client/listers and pkg/client/informers, on pkg/apis/certmanager/v1
// and pkg/apis/acme/v1. The apply configurations are not regenerated
// (ctrlgen is pointed at them, as client-gen is); the deep copies,
// generated by deepcopy-gen over more packages, stay as committed.
func CertManager(tb testing.TB) *Input {
	const module = "github.com/cert-manager/cert-manager"
	const applyPkg = module + "/pkg/client/applyconfigurations"
	return &Input{
		Name:   "cert-manager",
		Module: module,
		Src:    CertManagerSource(tb),
		CtrlgenArgs: []string{"--output-dir", "pkg/client", "--boilerplate", "hack/boilerplate-go.txt",
			"--generators", "clientset,lister,informer", "--apply-configuration-package", applyPkg,
			"./pkg/apis/certmanager/v1", "./pkg/apis/acme/v1"},
		Codegen: KubeCodegen{In: "pkg/apis", OutDir: "pkg/client", ApplyConfigurationPkg: applyPkg,
			Packages: []string{"certmanager/v1", "acme/v1"}},
		K8sModules: []string{"k8s.io/apiextensions-apiserver", "k8s.io/apiserver", "k8s.io/component-base",
			"k8s.io/kube-aggregator", "k8s.io/kms", "k8s.io/code-generator"},
	}
}

// CertManagerSource is cert-manager's module without its Venafi issuer:
// the module proxy refuses github.com/Venafi/vcert/v5 (403), which
// pkg/issuer/venafi and the two venafi controller packages import. Those
// are removed, but for the controller names other packages use, and the
// requirement is dropped from go.mod.
func CertManagerSource(tb testing.TB) string {
	tb.Helper()
	dir := tempDir(tb, "src-cert-manager-")
	if err := CopyTree(ModuleSource(tb, "github.com/cert-manager/cert-manager", CertManagerVersion), dir); err != nil {
		tb.Fatal(err)
	}
	stubs := map[string]string{
		"pkg/controller/certificaterequests/venafi":        "package venafi\n\nconst CRControllerName = \"certificaterequests-issuer-venafi\"\n",
		"pkg/controller/certificatesigningrequests/venafi": "package venafi\n\nconst CSRControllerName = \"certificatesigningrequests-issuer-venafi\"\n",
		"pkg/issuer/venafi":                                "",
	}
	for rel, src := range stubs {
		d := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.RemoveAll(d); err != nil {
			tb.Fatal(err)
		}
		if src == "" {
			continue
		}
		if err := os.MkdirAll(d, 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "venafi.go"), []byte(src), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	if _, err := GoCmd(dir, nil, "mod", "edit", "-droprequire=github.com/Venafi/vcert/v5"); err != nil {
		tb.Fatal(err)
	}
	return dir
}
