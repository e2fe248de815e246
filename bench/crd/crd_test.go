package crd

import (
	"path/filepath"
	"strings"
	"testing"
)

// realProjects are API packages of projects that generate their CRDs
// with controller-gen, at the versions this module requires.
var realProjects = []Input{
	{Name: "gateway-api", Dir: ".", Patterns: []string{"sigs.k8s.io/gateway-api/apis/...", "sigs.k8s.io/gateway-api/apisx/..."}},
	{Name: "cluster-api", Dir: ".", Patterns: []string{"sigs.k8s.io/cluster-api/api/..."}},
	{Name: "external-snapshotter", Dir: ".", Patterns: []string{"github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumesnapshot/..."}},
	{Name: "prometheus-operator", Dir: ".", Patterns: []string{"github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/..."}},
	{Name: "mydemo", Dir: ".", Patterns: []string{"github.com/ctrlgen/ctrlgen/examples/mydemo/apis/..."}},
}

// knownDifferences are the differences docs/crds.md lists, with why, by
// input. Every other difference fails the test, and so does a listed one
// that went away.
var knownDifferences = map[string][]string{
	// +genclient:nonNamespaced: ctrlgen's typed client is cluster-scoped,
	// so its CRD is too; controller-gen reads no +genclient marker and
	// writes Namespaced unless +kubebuilder:resource:scope=Cluster.
	"cluster":      {"tenancy.example.com_tenants.yaml: .spec.scope: controller-gen Namespaced / ctrlgen Cluster"},
	"controller":   {"ops.example.com_schedules.yaml: .spec.scope: controller-gen Namespaced / ctrlgen Cluster"},
	"crosspkgkind": {"gateway.example.com_gatewayclasses.yaml: .spec.scope: controller-gen Namespaced / ctrlgen Cluster"},
	"verbs":        {"jobs.example.com_reviews.yaml: .spec.scope: controller-gen Namespaced / ctrlgen Cluster"},
	"applyconfig":  {"shop.example.com_regions.yaml: .spec.scope: controller-gen Namespaced / ctrlgen Cluster"},
	// Without +kubebuilder:resource:path, the plural is the typed
	// client's (client-gen's rules and --plural-exceptions), so that
	// client and CRD agree; controller-gen pluralises with flect.
	"plurals": {
		"zoo.example.com_octopuses.yaml: only ctrlgen writes it",
		"zoo.example.com_octupuses.yaml: only controller-gen writes it",
	},
}

// bothTools runs controller-gen and ctrlgen on in and returns
// controller-gen's CRDs and the differences of ctrlgen's from them.
func bothTools(t *testing.T, in Input) (controllerGen map[string][]byte, diffs []string) {
	t.Helper()
	cg, err := ControllerGen(in)
	if err != nil {
		t.Fatal(err)
	}
	ours, err := Ctrlgen(in)
	if err != nil {
		t.Fatal(err)
	}
	diffs, err = Differences(cg, ours)
	if err != nil {
		t.Fatal(err)
	}
	return cg, diffs
}

func checkDifferences(t *testing.T, name string, diffs []string) {
	t.Helper()
	want := map[string]bool{}
	for _, d := range knownDifferences[name] {
		want[d] = true
	}
	for _, d := range diffs {
		if want[d] {
			delete(want, d)
			continue
		}
		t.Error(d)
	}
	for d := range want {
		t.Errorf("listed difference no longer seen: %s", d)
	}
}

func TestEquivalence(t *testing.T) {
	for _, in := range realProjects {
		t.Run(in.Name, func(t *testing.T) {
			cg, diffs := bothTools(t, in)
			if len(cg) == 0 {
				t.Fatal("controller-gen wrote no CRD")
			}
			t.Logf("%d CRDs", len(cg))
			checkDifferences(t, in.Name, diffs)
		})
	}
}

// TestEquivalenceGolden runs both tools on the input of every golden case
// of ../generators/testdata that has CRDs in its expected tree.
func TestEquivalenceGolden(t *testing.T) {
	cases, err := filepath.Glob("../../generators/testdata/*/out/config/crd")
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatal("no golden cases with CRDs")
	}
	for _, c := range cases {
		caseDir := filepath.Dir(filepath.Dir(filepath.Dir(c)))
		name := filepath.Base(caseDir)
		t.Run(name, func(t *testing.T) {
			dir := tempModule(t, filepath.Join(caseDir, "in"), "example.com/"+name)
			in := Input{Name: name, Dir: dir, Patterns: []string{"./..."}}
			_, diffs := bothTools(t, in)
			checkDifferences(t, in.Name, diffs)
		})
	}
}

// TestRefusesTwoStorageVersions: external-snapshotter's groupsnapshot
// types mark both v1 and v1beta2 +kubebuilder:storageversion.
// controller-gen writes a CRD with two storage versions, which the
// apiserver refuses (the project edits its CRDs after generating them);
// ctrlgen fails generation, naming the types.
func TestRefusesTwoStorageVersions(t *testing.T) {
	in := Input{Name: "groupsnapshot", Dir: ".", Patterns: []string{"github.com/kubernetes-csi/external-snapshotter/client/v8/apis/volumegroupsnapshot/..."}}
	cg, err := ControllerGen(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(cg) != 3 {
		t.Errorf("controller-gen wrote %d CRDs, want 3", len(cg))
	}
	_, err = Ctrlgen(in)
	if err == nil || !strings.Contains(err.Error(), "volumegroupsnapshot/v1/types.go:126: CRD for VolumeGroupSnapshot.groupsnapshot.storage.k8s.io has 2 storage versions") {
		t.Fatalf("err = %v", err)
	}
}
