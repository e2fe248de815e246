package controller_test

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/applyconfigurations"
	applyappsv1 "k8s.io/client-go/applyconfigurations/apps/v1"
	kubefake "k8s.io/client-go/kubernetes/fake"
	kubescheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/structured-merge-diff/v6/typed"

	"github.com/ctrlgen/ctrlgen/runtime/cache"
	"github.com/ctrlgen/ctrlgen/runtime/controller"
	"github.com/ctrlgen/ctrlgen/runtime/fakeclient"
	kubeinformers "github.com/ctrlgen/ctrlgen/runtime/kube/informers"
)

// The status apply tests run a controller of Deployments (a built-in kind
// with a status subresource and conditions keyed by type) over client-go's
// generated fake clientset on the field-managed tracker, which merges
// applies by field manager and reports conflicts as an apiserver does.
// The controller's field manager is "ctl"; "other" is a second manager
// owning status.readyReplicas and the Available condition.

const manager = "ctl"

type applyHarness struct {
	cs       *kubefake.Clientset
	c        *controller.Controller[*appsv1.Deployment]
	recorder *record.FakeRecorder

	mu      sync.Mutex
	sent    []map[string]any // the fields of each status apply the controller sent
	applied atomic.Int32     // status applies that the fake accepted
}

func (h *applyHarness) sentFields() []map[string]any {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.sent)
}

// newDeployments is client-go's fake clientset on ctrlgen's field-managed
// tracker, holding Deployment "d" (generation 2) whose status "other" has
// applied.
func newDeployments(t *testing.T) *kubefake.Clientset {
	t.Helper()
	cs := &kubefake.Clientset{}
	tr := fakeclient.NewFieldManagedTracker(kubescheme.Scheme, kubescheme.Codecs.UniversalDecoder(),
		map[schema.GroupVersionResource]string{appsv1.SchemeGroupVersion.WithResource("deployments"): "Deployment"},
		applyconfigurations.NewTypeConverter(kubescheme.Scheme))
	tr.AddReactors(&cs.Fake)
	ctx := context.Background()
	d := applyappsv1.Deployment("d", "ns").WithGeneration(2).WithLabels(map[string]string{"app": "d"})
	if _, err := cs.AppsV1().Deployments("ns").Apply(ctx, d, metav1.ApplyOptions{FieldManager: "creator"}); err != nil {
		t.Fatal(err)
	}
	otherStatus := applyappsv1.Deployment("d", "ns").WithStatus(applyappsv1.DeploymentStatus().
		WithReadyReplicas(3).
		WithConditions(applyappsv1.DeploymentCondition().WithType(appsv1.DeploymentAvailable).WithStatus(corev1.ConditionTrue).WithReason("MinimumReplicasAvailable")))
	if _, err := cs.AppsV1().Deployments("ns").ApplyStatus(ctx, otherStatus, metav1.ApplyOptions{FieldManager: "other"}); err != nil {
		t.Fatal(err)
	}
	return cs
}

// startStatusApply runs a controller with StatusApply over cs until the
// test ends.
func startStatusApply(t *testing.T, cs *kubefake.Clientset, reconcile func(*appsv1.Deployment)) *applyHarness {
	t.Helper()
	h, factory := newStatusApply(t, cs, reconcile)
	ctx, cancel := context.WithCancel(context.Background())
	factory.StartWithContext(ctx)
	done := make(chan error, 1)
	go func() { done <- h.c.Run(ctx, 2) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
		factory.Shutdown()
	})
	return h
}

// newStatusApply builds the controller of startStatusApply, not started.
func newStatusApply(t *testing.T, cs *kubefake.Clientset, reconcile func(*appsv1.Deployment)) (*applyHarness, kubeinformers.SharedInformerFactory) {
	t.Helper()
	h := &applyHarness{cs: cs, recorder: record.NewFakeRecorder(100)}
	typeConverter := applyconfigurations.NewTypeConverter(kubescheme.Scheme)
	factory := kubeinformers.NewSharedInformerFactory(cs, 0)
	c, err := controller.New(controller.Options[*appsv1.Deployment]{
		Name:        manager,
		Informer:    factory.Apps().V1().Deployments().TypedInformer(),
		DeepCopy:    (*appsv1.Deployment).DeepCopy,
		RateLimiter: fastLimiter,
		Recorder:    h.recorder,
		Reconcile: func(_ context.Context, d *appsv1.Deployment) (controller.Result, error) {
			reconcile(d)
			return controller.Result{}, nil
		},
		StatusEqual:           func(a, b *appsv1.Deployment) bool { return equality.Semantic.DeepEqual(a.Status, b.Status) },
		SetObservedGeneration: func(d *appsv1.Deployment, g int64) { d.Status.ObservedGeneration = g },
		// What the generated wiring gives, for a Deployment.
		StatusApply: &controller.StatusApply[*appsv1.Deployment]{
			ToTyped: func(d *appsv1.Deployment) (*typed.TypedValue, error) {
				withKind := *d
				withKind.TypeMeta = metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"}
				return typeConverter.ObjectToTyped(&withKind)
			},
			Apply: func(ctx context.Context, d *appsv1.Deployment, fields map[string]any, opts metav1.ApplyOptions) (*appsv1.Deployment, error) {
				h.mu.Lock()
				h.sent = append(h.sent, fields)
				h.mu.Unlock()
				ac := &applyappsv1.DeploymentApplyConfiguration{}
				if err := runtime.DefaultUnstructuredConverter.FromUnstructured(fields, ac); err != nil {
					return nil, err
				}
				ac.WithName(d.Name).WithNamespace(d.Namespace).WithKind("Deployment").WithAPIVersion("apps/v1")
				out, err := cs.AppsV1().Deployments(d.Namespace).ApplyStatus(ctx, ac, opts)
				if err == nil {
					h.applied.Add(1)
				}
				return out, err
			},
			ObservedGeneration: []string{"status", "observedGeneration"},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	h.c = c
	return h, factory
}

func getDeployment(t *testing.T, cs *kubefake.Clientset) *appsv1.Deployment {
	t.Helper()
	d, err := cs.AppsV1().Deployments("ns").Get(context.Background(), "d", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func condition(d *appsv1.Deployment, typ appsv1.DeploymentConditionType) *appsv1.DeploymentCondition {
	for i := range d.Status.Conditions {
		if d.Status.Conditions[i].Type == typ {
			return &d.Status.Conditions[i]
		}
	}
	return nil
}

func setProgressing(d *appsv1.Deployment) {
	if condition(d, appsv1.DeploymentProgressing) == nil {
		d.Status.Conditions = append(d.Status.Conditions, appsv1.DeploymentCondition{
			Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: "NewReplicaSetAvailable"})
	}
}

// ownsField reports whether manager's managedFields name field (a
// status field name such as "readyReplicas").
func ownsField(d *appsv1.Deployment, manager, field string) bool {
	for _, e := range d.ManagedFields {
		if e.Manager == manager && e.FieldsV1 != nil && strings.Contains(string(e.FieldsV1.Raw), `"f:`+field+`"`) {
			return true
		}
	}
	return false
}

// TestStatusApplySendsOnlyWhatReconcileSet: Reconcile sets replicas and a
// Progressing condition; the apply carries those and observedGeneration,
// and not the other manager's readyReplicas or Available condition, which
// stay theirs. Once the status is applied, reconciles that change nothing
// send nothing.
func TestStatusApplySendsOnlyWhatReconcileSet(t *testing.T) {
	cs := newDeployments(t)
	var sawApplied atomic.Int32
	var tiers tierLog
	h := startStatusApply(t, cs, func(d *appsv1.Deployment) {
		tiers.note(d)
		if d.Status.Replicas == 5 {
			sawApplied.Add(1)
		}
		d.Status.Replicas = 5
		setProgressing(d)
	})
	eventually(t, "a reconcile of the applied status", func() bool { return sawApplied.Load() >= 1 })

	sent := h.sentFields()
	if len(sent) != 1 {
		t.Fatalf("%d status applies, want 1: %v", len(sent), sent)
	}
	status, _ := sent[0]["status"].(map[string]any)
	keys := slices.Sorted(maps.Keys(status))
	if !slices.Equal(keys, []string{"conditions", "observedGeneration", "replicas"}) {
		t.Errorf("applied status fields %v, want conditions, observedGeneration and replicas: %v", keys, sent[0])
	}
	if conds, _ := status["conditions"].([]any); len(conds) != 1 || conds[0].(map[string]any)["type"] != "Progressing" {
		t.Errorf("applied conditions %v, want only Progressing", status["conditions"])
	}
	if len(sent[0]) != 1 {
		t.Errorf("applied more than the status: %v", sent[0])
	}

	d := getDeployment(t, cs)
	if d.Status.Replicas != 5 || d.Status.ObservedGeneration != 2 || condition(d, appsv1.DeploymentProgressing) == nil {
		t.Errorf("stored status %+v: want replicas 5, observedGeneration 2, Progressing", d.Status)
	}
	if d.Status.ReadyReplicas != 3 || condition(d, appsv1.DeploymentAvailable) == nil {
		t.Errorf("stored status %+v: the other manager's readyReplicas and Available condition are gone", d.Status)
	}
	if !ownsField(d, manager, "replicas") || ownsField(d, manager, "readyReplicas") || !ownsField(d, "other", "readyReplicas") {
		t.Errorf("managedFields %v: want replicas %s's and readyReplicas other's only", d.ManagedFields, manager)
	}

	// More events: the other manager relabels the Deployment, twice. The
	// second relabel's reconcile starts after the first one's has written
	// whatever it writes: a key is reconciled by one worker at a time.
	relabel := func(tier string) {
		ac := applyappsv1.Deployment("d", "ns").WithLabels(map[string]string{"app": "d", "tier": tier})
		if _, err := cs.AppsV1().Deployments("ns").Apply(context.Background(), ac, metav1.ApplyOptions{FieldManager: "creator"}); err != nil {
			t.Fatal(err)
		}
		eventually(t, "a reconcile of tier "+tier, func() bool { return tiers.seen(tier) })
	}
	relabel("web")
	relabel("api")
	if n := h.applied.Load(); n != 1 {
		t.Errorf("%d status applies after reconciles that changed nothing, want 1", n)
	}
}

// tierLog notes the tier labels Reconcile saw.
type tierLog struct{ sync.Map }

func (l *tierLog) note(d *appsv1.Deployment) { l.Store(d.Labels["tier"], true) }
func (l *tierLog) seen(tier string) bool     { _, ok := l.Load(tier); return ok }

// TestStatusApplyRemovesAClearedOwnedField: a condition and a field this
// manager applied, which Reconcile then clears, are removed; the other
// manager's fields stay.
func TestStatusApplyRemovesAClearedOwnedField(t *testing.T) {
	cs := newDeployments(t)
	var clear atomic.Bool
	startStatusApply(t, cs, func(d *appsv1.Deployment) {
		if clear.Load() {
			d.Status.Replicas = 0
			d.Status.Conditions = slices.DeleteFunc(d.Status.Conditions, func(c appsv1.DeploymentCondition) bool {
				return c.Type == appsv1.DeploymentProgressing
			})
			return
		}
		d.Status.Replicas = 5
		setProgressing(d)
	})
	eventually(t, "the status applied", func() bool { return condition(getDeployment(t, cs), appsv1.DeploymentProgressing) != nil })
	clear.Store(true)
	relabel := applyappsv1.Deployment("d", "ns").WithLabels(map[string]string{"app": "d", "tier": "web"})
	if _, err := cs.AppsV1().Deployments("ns").Apply(context.Background(), relabel, metav1.ApplyOptions{FieldManager: "creator"}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "Progressing and replicas gone", func() bool {
		d := getDeployment(t, cs)
		return condition(d, appsv1.DeploymentProgressing) == nil && d.Status.Replicas == 0
	})
	d := getDeployment(t, cs)
	if d.Status.ReadyReplicas != 3 || condition(d, appsv1.DeploymentAvailable) == nil || d.Status.ObservedGeneration != 2 {
		t.Errorf("stored status %+v: want the other manager's fields and observedGeneration kept", d.Status)
	}
}

// TestStatusApplyConflictIsAnErrorAndNotForced: Reconcile sets the other
// manager's readyReplicas to another value. The apply is refused with a
// *StatusApplyConflictError naming the field and its manager; the
// controller records it as an event, retries with backoff, and never
// forces: the other manager's value stays.
func TestStatusApplyConflictIsAnErrorAndNotForced(t *testing.T) {
	cs := newDeployments(t)
	h := startStatusApply(t, cs, func(d *appsv1.Deployment) { d.Status.ReadyReplicas = 4 })
	eventually(t, "three attempts", func() bool { return len(h.sentFields()) >= 3 })
	select {
	case ev := <-h.recorder.Events:
		if !strings.HasPrefix(ev, "Warning StatusApplyConflict ") || !strings.Contains(ev, `.status.readyReplicas ("other")`) {
			t.Errorf("event %q", ev)
		}
	default:
		t.Error("no event for the conflict")
	}
	if d := getDeployment(t, cs); d.Status.ReadyReplicas != 3 || !ownsField(d, "other", "readyReplicas") || ownsField(d, manager, "readyReplicas") {
		t.Errorf("readyReplicas %d, managedFields %v: the conflict was forced", d.Status.ReadyReplicas, d.ManagedFields)
	}
	if n := h.applied.Load(); n != 0 {
		t.Errorf("%d status applies accepted", n)
	}

	// The error itself, as the reconcile returns it.
	cached := getDeployment(t, cs)
	obj := cached.DeepCopy()
	obj.Status.ReadyReplicas = 4
	err := controller.WriteStatus(context.Background(), h.c, cached, obj, false)
	var conflict *controller.StatusApplyConflictError
	if !errors.As(err, &conflict) || !apierrors.IsConflict(err) {
		t.Fatalf("error %v (%T), want a *StatusApplyConflictError wrapping the 409", err, err)
	}
	want := []controller.FieldConflict{{Field: ".status.readyReplicas", Manager: "other"}}
	if conflict.Manager != manager || !slices.Equal(conflict.Conflicts, want) {
		t.Errorf("conflict %+v, want manager %s and %v", conflict, manager, want)
	}
}

// TestStatusApplyWithoutManagedFieldsSendsTheWholeStatus: when the cache
// holds no managedFields (a transform dropped them), nothing tells which
// fields are this manager's, so all of the status is sent rather than
// letting the apiserver drop the ones it owns.
func TestStatusApplyWithoutManagedFieldsSendsTheWholeStatus(t *testing.T) {
	cs := newDeployments(t)
	h, _ := newStatusApply(t, cs, func(*appsv1.Deployment) {})
	cached := getDeployment(t, cs)
	cached.ManagedFields = nil
	obj := cached.DeepCopy()
	obj.Status.Replicas = 5
	fields, err := controller.StatusApplyFields(h.c, cached, obj, false)
	if err != nil {
		t.Fatal(err)
	}
	status, _ := fields["status"].(map[string]any)
	if keys := slices.Sorted(maps.Keys(status)); !slices.Equal(keys, []string{"conditions", "readyReplicas", "replicas"}) {
		t.Errorf("fields %v, want the whole status", fields)
	}
}

func TestStatusApplyOptions(t *testing.T) {
	cs := newDeployments(t)
	inf := kubeinformers.NewSharedInformerFactory(cs, 0).Apps().V1().Deployments().TypedInformer()
	base := controller.Options[*appsv1.Deployment]{
		Name: "x", Informer: inf, DeepCopy: (*appsv1.Deployment).DeepCopy,
		Reconcile:   func(context.Context, *appsv1.Deployment) (controller.Result, error) { return controller.Result{}, nil },
		StatusEqual: func(a, b *appsv1.Deployment) bool { return true },
		StatusApply: &controller.StatusApply[*appsv1.Deployment]{
			ToTyped: func(*appsv1.Deployment) (*typed.TypedValue, error) { return nil, nil },
			Apply: func(context.Context, *appsv1.Deployment, map[string]any, metav1.ApplyOptions) (*appsv1.Deployment, error) {
				return nil, nil
			},
		},
	}
	both := base
	both.UpdateStatus = func(context.Context, *appsv1.Deployment) (*appsv1.Deployment, error) { return nil, nil }
	both.Get = func(context.Context, cache.ObjectName) (*appsv1.Deployment, error) { return nil, nil }
	both.CopyStatus = func(_, _ *appsv1.Deployment) {}
	if _, err := controller.New(both); err == nil || !strings.Contains(err.Error(), "set one") {
		t.Errorf("StatusApply with UpdateStatus: %v", err)
	}
	noEqual := base
	noEqual.StatusEqual = nil
	if _, err := controller.New(noEqual); err == nil || !strings.Contains(err.Error(), "StatusApply needs StatusEqual") {
		t.Errorf("StatusApply without StatusEqual: %v", err)
	}
}
