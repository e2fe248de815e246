package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	applymetav1 "k8s.io/client-go/applyconfigurations/meta/v1"

	crddemov1 "github.com/ctrlgen/ctrlgen/examples/mydemo/apis/crddemo/v1"
	"github.com/ctrlgen/ctrlgen/examples/mydemo/controllers/mydemo"
	applycrddemov1 "github.com/ctrlgen/ctrlgen/examples/mydemo/generated/applyconfiguration/crddemo/v1"
	"github.com/ctrlgen/ctrlgen/runtime/manager"
)

// TestMydemoStatusApply runs the mydemo controller, whose status is
// written by server-side apply (+ctrlgen:controller:statusApply), on the
// real apiserver with a second field manager:
//
//   - a condition the second manager applied to a Mydemo's status stays
//     through the controller's later status applies, and the controller's
//     managedFields entry (on the status subresource) holds only the
//     fields it sets;
//   - a field the second manager took over with another value is a
//     conflict: the controller reports it as a StatusApplyConflict event,
//     does not force, and retries until the other manager lets the field
//     go.
func TestMydemoStatusApply(t *testing.T) {
	e := env(t)
	installMydemoCRD(t, e)
	md, kc := mydemoClient(t, e), kubeClient(t, e)
	ns := namespace(t, kc)
	ctx := context.Background()
	mydemos := md.CrddemoV1().Mydemos(ns)
	startManager(t, e.KubeconfigPath(), 2, func(m *manager.Manager) {
		m.Register(mydemo.ControllerName, mydemo.Init)
	})
	for _, name := range []string{"kept", "contested"} {
		if _, err := mydemos.Create(ctx, newMydemo(ns, name, "10.0.0.1", 80, nil), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	waitMydemosReady(t, md, ns, time.Minute, "kept", "contested")

	// Another manager's condition stays.
	audited := applycrddemov1.Mydemo("kept", ns).WithStatus(applycrddemov1.MydemoStatus().WithConditions(
		applymetav1.Condition().WithType("Audited").WithStatus(metav1.ConditionTrue).WithReason("Checked").
			WithMessage("audited by e2e").WithLastTransitionTime(metav1.Now())))
	if _, err := mydemos.ApplyStatus(ctx, audited, metav1.ApplyOptions{FieldManager: "auditor"}); err != nil {
		t.Fatal(err)
	}
	if _, err := mydemos.Patch(ctx, "kept", types.MergePatchType, []byte(`{"spec":{"port":81}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(t, time.Minute, 50*time.Millisecond, "kept Ready for generation 2", func() (bool, string) {
		obj, err := mydemos.Get(ctx, "kept", metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		if ok, why := mydemoReady(obj); !ok || obj.Generation != 2 {
			return false, fmt.Sprintf("generation %d: %s", obj.Generation, why)
		}
		return true, ""
	})
	kept, err := mydemos.Get(ctx, "kept", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c := meta.FindStatusCondition(kept.Status.Conditions, "Audited"); c == nil || c.Message != "audited by e2e" {
		t.Errorf("conditions %+v: the auditor's Audited condition is gone", kept.Status.Conditions)
	}
	ours := statusEntry(kept, mydemo.ControllerName)
	if ours == nil || ours.Operation != metav1.ManagedFieldsOperationApply {
		t.Fatalf("managedFields %+v: no status apply by %s", kept.ManagedFields, mydemo.ControllerName)
	}
	for _, f := range []string{`"f:configMapName"`, `"f:observedGeneration"`, `"k:{\"type\":\"Ready\"}"`} {
		if !strings.Contains(string(ours.FieldsV1.Raw), f) {
			t.Errorf("the controller's status fields %s lack %s", ours.FieldsV1.Raw, f)
		}
	}
	if strings.Contains(string(ours.FieldsV1.Raw), "Audited") {
		t.Errorf("the controller's status fields %s include the auditor's condition", ours.FieldsV1.Raw)
	}

	// A conflict: the squatter takes status.configMapName over, and the
	// controller, reconciling the change, wants its own value back.
	squat := applycrddemov1.Mydemo("contested", ns).WithStatus(applycrddemov1.MydemoStatus().WithConfigMapName("elsewhere"))
	if _, err := mydemos.ApplyStatus(ctx, squat, metav1.ApplyOptions{FieldManager: "squatter", Force: true}); err != nil {
		t.Fatal(err)
	}
	ev := waitEvent(t, kc, ns, "contested", "StatusApplyConflict")
	if ev.Type != "Warning" || !strings.Contains(ev.Message, `.status.configMapName ("squatter")`) {
		t.Errorf("event %s %q", ev.Type, ev.Message)
	}
	contested, err := mydemos.Get(ctx, "contested", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if contested.Status.ConfigMapName != "elsewhere" {
		t.Errorf("configMapName %q after the conflict: the controller forced it", contested.Status.ConfigMapName)
	}
	// The squatter lets go (an apply without the field); the controller's
	// retry then applies its value.
	release := applycrddemov1.Mydemo("contested", ns).WithStatus(applycrddemov1.MydemoStatus())
	if _, err := mydemos.ApplyStatus(ctx, release, metav1.ApplyOptions{FieldManager: "squatter"}); err != nil {
		t.Fatal(err)
	}
	waitMydemosReady(t, md, ns, time.Minute, "contested")
}

// statusEntry is manager's managedFields entry for obj's status
// subresource.
func statusEntry(obj *crddemov1.Mydemo, manager string) *metav1.ManagedFieldsEntry {
	for i, e := range obj.ManagedFields {
		if e.Manager == manager && e.Subresource == "status" {
			return &obj.ManagedFields[i]
		}
	}
	return nil
}
