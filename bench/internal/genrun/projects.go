package genrun

import "testing"

// Real projects whose clients code-generator generated, as inputs both
// tools regenerate from their API packages the way the projects' own
// hack/ scripts call kube_codegen.sh, limited to the generators ctrlgen
// replaces. bench/apisurface compares the two tools' APIs on them;
// bench/compat builds and tests the projects' controllers on ctrlgen's.

// SampleControllerVersion is the k8s.io/sample-controller version used.
// v0.37.2 is refused by the module proxy (403); v0.37.1 is the neighbour,
// generated with code-generator v0.37.1.
const SampleControllerVersion = "v0.37.1"

// SampleController is k8s.io/sample-controller, whose controller and its
// test live in the module's root package. Its hack/update-codegen.sh calls
// gen_helpers, gen_openapi, gen_client --with-watch --with-applyconfig
// and gen_register; openapi-gen and applyconfiguration-gen are not among
// the generators ctrlgen replaces, so gen_client runs without
// --with-applyconfig here (no Apply methods on either side) and their
// committed output stays.
func SampleController(tb testing.TB) *Input {
	return &Input{
		Name:   "sample-controller",
		Module: "k8s.io/sample-controller",
		Src:    ModuleSource(tb, "k8s.io/sample-controller", SampleControllerVersion),
		CtrlgenArgs: []string{"--output-dir", "pkg/generated", "--boilerplate", "hack/boilerplate.go.txt",
			"./pkg/apis/..."},
		Codegen: KubeCodegen{In: "pkg/apis", Helpers: true, Register: true, OutDir: "pkg/generated"},
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
// --with-watch into the module's root. register.go is hand-written.
func ExternalSnapshotterClient(tb testing.TB) *Input {
	return &Input{
		Name:   "external-snapshotter",
		Module: "github.com/kubernetes-csi/external-snapshotter/client/v8",
		Src:    ModuleSource(tb, "github.com/kubernetes-csi/external-snapshotter/client/v8", ExternalSnapshotterVersion),
		CtrlgenArgs: []string{"--output-dir", ".", "--boilerplate", "hack/boilerplate.go.txt",
			"./apis/..."},
		Codegen: KubeCodegen{In: "apis", Helpers: true, OutDir: "."},
	}
}
