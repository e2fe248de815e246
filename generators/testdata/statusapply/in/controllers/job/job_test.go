package job_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	applymetav1 "k8s.io/client-go/applyconfigurations/meta/v1"
	"k8s.io/client-go/tools/record"

	jobsv1 "example.com/statusapply/apis/jobs/v1"
	"example.com/statusapply/controllers/job"
	applyjobsv1 "example.com/statusapply/generated/applyconfiguration/jobs/v1"
	"example.com/statusapply/generated/clientset/versioned/fake"
	"example.com/statusapply/generated/informers/externalversions"
)

// start runs the generated controller over the generated fake clientset,
// whose tracker merges applies by field manager, until the test ends.
func start(t *testing.T, cs *fake.Clientset) *record.FakeRecorder {
	t.Helper()
	factory := externalversions.NewSharedInformerFactory(cs, 0)
	recorder := record.NewFakeRecorder(100)
	c, err := job.New(cs, factory, recorder)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	factory.StartWithContext(ctx)
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx, 1) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
		factory.Shutdown()
	})
	return recorder
}

func newClientset(t *testing.T, phase string) *fake.Clientset {
	t.Helper()
	cs := fake.NewClientset()
	j := &jobsv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "j", Generation: 1}, Spec: jobsv1.JobSpec{Phase: phase}}
	if _, err := cs.JobsV1().Jobs("ns").Create(context.Background(), j, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return cs
}

func get(t *testing.T, cs *fake.Clientset) *jobsv1.Job {
	t.Helper()
	j, err := cs.JobsV1().Jobs("ns").Get(context.Background(), "j", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func applyStatus(t *testing.T, cs *fake.Clientset, status *applyjobsv1.JobStatusApplyConfiguration, manager string, force bool) {
	t.Helper()
	ac := applyjobsv1.Job("j", "ns").WithStatus(status)
	if _, err := cs.JobsV1().Jobs("ns").ApplyStatus(context.Background(), ac, metav1.ApplyOptions{FieldManager: manager, Force: force}); err != nil {
		t.Fatal(err)
	}
}

// The wiring applies what Reconcile set, as field manager "job"; a
// condition another manager applied stays through later applies.
func TestStatusApplyKeepsOtherManagersFields(t *testing.T) {
	cs := newClientset(t, "Running")
	start(t, cs)
	eventually(t, "the status applied", func() bool {
		j := get(t, cs)
		return j.Status.Phase == "Running" && j.Status.ObservedGeneration == 1 && meta.IsStatusConditionTrue(j.Status.Conditions, "Ready")
	})
	applyStatus(t, cs, applyjobsv1.JobStatus().WithConditions(applymetav1.Condition().
		WithType("Audited").WithStatus(metav1.ConditionTrue).WithReason("Checked").WithMessage("").WithLastTransitionTime(metav1.Now())), "auditor", false)
	j := get(t, cs)
	j.Spec.Phase = "Done"
	if _, err := cs.JobsV1().Jobs("ns").Update(context.Background(), j, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the new phase applied", func() bool { return get(t, cs).Status.Phase == "Done" })
	j = get(t, cs)
	if meta.FindStatusCondition(j.Status.Conditions, "Audited") == nil || !meta.IsStatusConditionTrue(j.Status.Conditions, "Ready") {
		t.Errorf("conditions %v: want the auditor's Audited kept beside Ready", j.Status.Conditions)
	}
	for _, e := range j.ManagedFields {
		if e.Manager == job.ControllerName && (e.Operation != metav1.ManagedFieldsOperationApply || strings.Contains(string(e.FieldsV1.Raw), "Audited")) {
			t.Errorf("the controller's managedFields %s %s: want an apply, without Audited", e.Operation, e.FieldsV1.Raw)
		}
	}
}

// A field another manager owns with another value is a conflict: the
// wiring records an event and does not force.
func TestStatusApplyConflictIsNotForced(t *testing.T) {
	cs := newClientset(t, "Running")
	applyStatus(t, cs, applyjobsv1.JobStatus().WithPhase("Paused"), "operator", true)
	recorder := start(t, cs)
	select {
	case ev := <-recorder.Events:
		if !strings.HasPrefix(ev, "Warning StatusApplyConflict ") || !strings.Contains(ev, `.status.phase ("operator")`) {
			t.Errorf("event %q", ev)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no event for the conflict")
	}
	if j := get(t, cs); j.Status.Phase != "Paused" {
		t.Errorf("phase %q: the conflict was forced", j.Status.Phase)
	}
}
