package generator

import (
	"testing"

	"github.com/ctrlgen/ctrlgen/bench/internal/genrun"
)

func TestMain(m *testing.M) { genrun.Main(m, nil) }

// The inputs: how each tool is run on them is in genrun.
var (
	oneGV = &genrun.Input{
		Name:   "one-gv",
		Module: "example.com/sample",
		Src:    "testdata/one-gv",
		// What code-generator writes: without the crd generator, which
		// BenchmarkCRD times against controller-gen.
		CtrlgenArgs: []string{"--output-dir", "pkg/generated", "--boilerplate", "hack/boilerplate.go.txt",
			"--generators", genrun.CodegenGenerators + ",applyconfiguration", "./pkg/apis/..."},
		Codegen: genrun.KubeCodegen{
			In:       "pkg/apis",
			Helpers:  true,
			Register: true,
			OutDir:   "pkg/generated",
			// ctrlgen's default is --with-applyconfig's.
			ApplyConfig: true,
		},
		Build: true,
	}
	k8sAPI = &genrun.Input{
		Name:   "k8s-api",
		Module: "example.com/k8sapi",
		CtrlgenArgs: []string{"--output-dir", "pkg/generated", "--boilerplate", "hack/boilerplate.go.txt",
			"k8s.io/api/..."},
		Codegen: genrun.KubeCodegen{
			In:     "k8s.io/api",
			OutDir: "pkg/generated",
			// ctrlgen's built-in exception; Kubernetes passes the same to
			// generate client-go.
			PluralExceptions: "Endpoints:Endpoints",
			// As Kubernetes generates client-go, and as ctrlgen does for
			// k8s.io/api without being asked.
			PrefersProtobuf: true,
			// The clients take client-go's apply configurations, as
			// ctrlgen's do for k8s.io/api (it generates none).
			ApplyConfigurationPkg: "k8s.io/client-go/applyconfigurations",
		},
		SameFiles: true,
	}
	// k8sAPIApply is k8sAPI with apply configurations generated, as
	// kube_codegen.sh --with-applyconfig generates them
	// (applyconfiguration-gen included) and, with an empty
	// --external-applyconfigurations, ctrlgen.
	k8sAPIApply = &genrun.Input{
		Name:   "k8s-api-applyconfig",
		Module: "example.com/k8sapi",
		CtrlgenArgs: []string{"--output-dir", "pkg/generated", "--boilerplate", "hack/boilerplate.go.txt",
			"--external-applyconfigurations=", "k8s.io/api/..."},
		Codegen: genrun.KubeCodegen{
			In:               "k8s.io/api",
			OutDir:           "pkg/generated",
			PluralExceptions: "Endpoints:Endpoints",
			PrefersProtobuf:  true,
			ApplyConfig:      true,
		},
		SameFiles: true,
	}
)
