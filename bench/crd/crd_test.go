package crd

import (
	"testing"
)

// realProjects are API packages of projects that generate their CRDs
// with controller-gen, at the versions this module requires.
var realProjects = []Input{
	{Name: "gateway-api", Dir: ".", Patterns: []string{"sigs.k8s.io/gateway-api/apis/...", "sigs.k8s.io/gateway-api/apisx/..."}},
	{Name: "cluster-api", Dir: ".", Patterns: []string{"sigs.k8s.io/cluster-api/api/..."}},
	{Name: "external-snapshotter", Dir: ".", Patterns: []string{"github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/..."}},
	{Name: "mydemo", Dir: ".", Patterns: []string{"github.com/ctrlgen/ctrlgen/examples/mydemo/apis/..."}},
}

func TestEquivalence(t *testing.T) {
	for _, in := range realProjects {
		t.Run(in.Name, func(t *testing.T) {
			cg, err := ControllerGen(in)
			if err != nil {
				t.Fatal(err)
			}
			ours, err := Ctrlgen(in)
			if err != nil {
				t.Fatal(err)
			}
			diffs, err := Differences(cg, ours)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d CRDs from controller-gen, %d from ctrlgen", len(cg), len(ours))
			for _, d := range diffs {
				t.Error(d)
			}
		})
	}
}
