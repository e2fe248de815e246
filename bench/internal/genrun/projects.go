package genrun

import "testing"

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
