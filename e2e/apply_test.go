package e2e

import (
	"context"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	crddemov1 "github.com/ctrlgen/ctrlgen/examples/mydemo/apis/crddemo/v1"
	applycrddemov1 "github.com/ctrlgen/ctrlgen/examples/mydemo/generated/applyconfiguration/crddemo/v1"
	"github.com/ctrlgen/ctrlgen/examples/mydemo/generated/clientset/versioned"
)

// TestApplyThroughGeneratedClient: server-side apply with the generated
// apply configurations and typed client against a real apiserver. An
// apply creates; a second apply by the same manager without a field
// removes it; a second manager's apply of a field the first owns is a
// conflict; with Force it takes the field over. The same four behaviours
// are tested on the generated fake (generators/testdata/applyconfig).
func TestApplyThroughGeneratedClient(t *testing.T) {
	e := env(t)
	installMydemoCRD(t, e)
	kc, err := kubernetes.NewForConfig(e.Config())
	if err != nil {
		t.Fatal(err)
	}
	md, err := versioned.NewForConfig(e.Config())
	if err != nil {
		t.Fatal(err)
	}
	ns := namespace(t, kc)
	ctx := context.Background()
	mydemos := md.CrddemoV1().Mydemos(ns)
	apply := func(spec *applycrddemov1.MydemoSpecApplyConfiguration, manager string, force bool) (*applyResult, error) {
		got, err := mydemos.Apply(ctx, applycrddemov1.Mydemo("ssa", ns).WithSpec(spec), metav1.ApplyOptions{FieldManager: manager, Force: force})
		if err != nil {
			return nil, err
		}
		return &applyResult{ip: got.Spec.IP, port: got.Spec.Port, data: got.Spec.Data, obj: got}, nil
	}

	got, err := apply(applycrddemov1.MydemoSpec().WithIP("10.0.0.1").WithPort(80).WithData(map[string]string{"x": "1", "y": "2"}), "alice", false)
	if err != nil {
		t.Fatal(err)
	}
	if got.ip != "10.0.0.1" || got.port != 80 || len(got.data) != 2 {
		t.Fatalf("created %+v", got)
	}

	got, err = apply(applycrddemov1.MydemoSpec().WithIP("10.0.0.1").WithPort(80).WithData(map[string]string{"x": "1"}), "alice", false)
	if err != nil {
		t.Fatal(err)
	}
	if _, still := got.data["y"]; still || got.data["x"] != "1" {
		t.Fatalf("data %v: want y, which alice no longer applies, removed", got.data)
	}

	bobs := applycrddemov1.MydemoSpec().WithPort(81)
	if _, err := apply(bobs, "bob", false); !apierrors.IsConflict(err) {
		t.Fatalf("bob applying alice's port: %v, want a conflict", err)
	}
	got, err = apply(bobs, "bob", true)
	if err != nil {
		t.Fatal(err)
	}
	if got.port != 81 || got.ip != "10.0.0.1" {
		t.Fatalf("after bob forced: %+v", got)
	}
	alice, err := applycrddemov1.ExtractMydemo(got.obj, "alice")
	if err != nil {
		t.Fatal(err)
	}
	if alice.Spec == nil || alice.Spec.IP == nil || alice.Spec.Port != nil {
		t.Fatalf("alice's fields after bob forced the port: %+v, want ip and no port", alice.Spec)
	}

	status, err := mydemos.ApplyStatus(ctx, applycrddemov1.Mydemo("ssa", ns).WithStatus(
		applycrddemov1.MydemoStatus().WithConfigMapName("ssa-config")), metav1.ApplyOptions{FieldManager: "controller"})
	if err != nil {
		t.Fatal(err)
	}
	if status.Status.ConfigMapName != "ssa-config" || status.Spec.Port != 81 {
		t.Fatalf("after ApplyStatus: status %+v spec %+v", status.Status, status.Spec)
	}
}

type applyResult struct {
	ip   string
	port int32
	data map[string]string
	obj  *crddemov1.Mydemo
}
