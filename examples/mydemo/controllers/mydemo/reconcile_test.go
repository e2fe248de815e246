package mydemo_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/applyconfigurations"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	kubefake "k8s.io/client-go/kubernetes/fake"
	kubescheme "k8s.io/client-go/kubernetes/scheme"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/yaml"

	crddemov1 "github.com/ctrlgen/ctrlgen/examples/mydemo/apis/crddemo/v1"
	"github.com/ctrlgen/ctrlgen/examples/mydemo/controllers/mydemo"
	crddemoac "github.com/ctrlgen/ctrlgen/examples/mydemo/generated/applyconfiguration/crddemo/v1"
	"github.com/ctrlgen/ctrlgen/examples/mydemo/generated/clientset/versioned/fake"
	"github.com/ctrlgen/ctrlgen/examples/mydemo/generated/informers/externalversions"
	listerscrddemov1 "github.com/ctrlgen/ctrlgen/examples/mydemo/generated/listers/crddemo/v1"
	"github.com/ctrlgen/ctrlgen/runtime/controller"
	"github.com/ctrlgen/ctrlgen/runtime/fakeclient"
	kubeinformers "github.com/ctrlgen/ctrlgen/runtime/kube/informers"
	listerscorev1 "github.com/ctrlgen/ctrlgen/runtime/kube/listers/core/v1"
)

const ns = "demo"

// clients are the controller's two fake clientsets: the generated one for
// Mydemos, and client-go's for ConfigMaps.
type clients struct {
	md   *fake.Clientset
	kube *kubefake.Clientset
	// reconciles are the reconciles the controller finished.
	reconciles *reconcileLog
	// mydemos and configMaps are the controller's caches.
	mydemos    listerscrddemov1.MydemoLister
	configMaps listerscorev1.ConfigMapLister
}

// reconcileLog is a controller's reconcile observer: the reconciles that
// finished, by key, with their start times.
type reconcileLog struct {
	mu     sync.Mutex
	starts map[string][]time.Time
}

func (l *reconcileLog) observe(r controller.Reconciled) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.starts[r.Key.String()] = append(l.starts[r.Key.String()], r.Start)
}

// since counts the reconciles of the Mydemo called name that started
// after t.
func (l *reconcileLog) since(name string, t time.Time) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, s := range l.starts[ns+"/"+name] {
		if s.After(t) {
			n++
		}
	}
	return n
}

// newKubeClientset is client-go's fake clientset on ctrlgen's
// field-managed object tracker, as the generated fake is: a watch from a
// list's resourceVersion replays every change since, so that the
// ConfigMap informer misses nothing between its list and its watch
// (client-go's own tracker replays only the objects that still exist),
// and an apply merges by field manager, as an apiserver's does.
func newKubeClientset() (*kubefake.Clientset, clienttesting.ObjectTracker) {
	cs := &kubefake.Clientset{}
	tracker := fakeclient.NewFieldManagedTracker(kubescheme.Scheme, kubescheme.Codecs.UniversalDecoder(),
		map[schema.GroupVersionResource]string{corev1.SchemeGroupVersion.WithResource("configmaps"): "ConfigMap"},
		applyconfigurations.NewTypeConverter(kubescheme.Scheme))
	tracker.AddReactors(&cs.Fake)
	return cs, tracker
}

// start runs the controller over fake clientsets holding objs, the
// generated informers and the shipped informers of ConfigMaps, until the
// test ends.
func start(t *testing.T, objs ...runtime.Object) clients {
	t.Helper()
	kube, kubeTracker := newKubeClientset()
	cs := clients{md: fake.NewClientset(), kube: kube, reconciles: &reconcileLog{starts: map[string][]time.Time{}}}
	apiserverSemantics(map[*clienttesting.Fake]clienttesting.ObjectTracker{&cs.md.Fake: cs.md.Tracker(), &cs.kube.Fake: kubeTracker})
	for _, o := range objs {
		if err := create(cs, o); err != nil {
			t.Fatal(err)
		}
	}
	factory := externalversions.NewSharedInformerFactory(cs.md, 0)
	cs.mydemos = factory.Crddemo().V1().Mydemos().Lister()
	kubeFactory := kubeinformers.NewSharedInformerFactory(cs.kube, 0)
	cs.configMaps = kubeFactory.Core().V1().ConfigMaps().Lister()
	c, err := mydemo.New(cs.md, factory, cs.kube, kubeFactory, record.NewFakeRecorder(100))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ctx = controller.WithReconcileObserver(ctx, cs.reconciles.observe)
	factory.StartWithContext(ctx)
	kubeFactory.StartWithContext(ctx)
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx, 2) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
		factory.Shutdown()
		kubeFactory.Shutdown()
	})
	return cs
}

// create goes through the clientsets, so that the reactors see it.
func create(cs clients, obj runtime.Object) error {
	var err error
	switch o := obj.(type) {
	case *crddemov1.Mydemo:
		_, err = cs.md.CrddemoV1().Mydemos(o.Namespace).Create(context.Background(), o, metav1.CreateOptions{})
	case *corev1.ConfigMap:
		_, err = cs.kube.CoreV1().ConfigMaps(o.Namespace).Create(context.Background(), o, metav1.CreateOptions{})
	default:
		err = errors.New("unexpected type")
	}
	return err
}

func newMydemo(name string) *crddemov1.Mydemo {
	return &crddemov1.Mydemo{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       crddemov1.MydemoSpec{IP: "10.0.0.1", Port: 8080, Data: map[string]string{"mode": "fast"}},
	}
}

// eventually polls cond until it holds or 20 seconds pass.
func eventually(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		ok, state := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s; last seen: %s", what, state)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func getMydemo(t *testing.T, cs clients, name string) *crddemov1.Mydemo {
	t.Helper()
	m, err := cs.md.CrddemoV1().Mydemos(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func getConfigMap(cs clients, name string) (*corev1.ConfigMap, error) {
	return cs.kube.CoreV1().ConfigMaps(ns).Get(context.Background(), name, metav1.GetOptions{})
}

// waitReady waits until the Mydemo's status says Ready for its current
// generation, and returns it.
func waitReady(t *testing.T, cs clients, name string) *crddemov1.Mydemo {
	t.Helper()
	var m *crddemov1.Mydemo
	eventually(t, name+" ready", func() (bool, string) {
		m = getMydemo(t, cs, name)
		ready := meta.FindStatusCondition(m.Status.Conditions, mydemo.ConditionReady)
		ok := ready != nil && ready.Status == metav1.ConditionTrue && ready.ObservedGeneration == m.Generation &&
			m.Status.ObservedGeneration == m.Generation
		return ok, statusString(m)
	})
	return m
}

func statusString(m *crddemov1.Mydemo) string {
	return fmt.Sprintf("generation %d, status %+v", m.Generation, m.Status)
}

// waitConfigMap waits until the ConfigMap holds data, and returns it.
func waitConfigMap(t *testing.T, cs clients, name string, data map[string]string) *corev1.ConfigMap {
	t.Helper()
	var cm *corev1.ConfigMap
	eventually(t, "ConfigMap "+name, func() (bool, string) {
		var err error
		cm, err = getConfigMap(cs, name)
		if err != nil {
			return false, err.Error()
		}
		return maps.Equal(cm.Data, data), fmt.Sprint(cm.Data)
	})
	return cm
}

func TestCreatesAnOwnedConfigMapAndReportsReady(t *testing.T) {
	cs := start(t, newMydemo("web"))
	m := waitReady(t, cs, "web")
	if m.Status.ConfigMapName != "web-config" || m.Status.ObservedGeneration != 1 {
		t.Errorf("status %s", statusString(m))
	}
	cm := waitConfigMap(t, cs, "web-config", map[string]string{"mode": "fast", "ip": "10.0.0.1", "port": "8080"})
	if cm.Labels[mydemo.LabelMydemo] != "web" {
		t.Errorf("labels %v", cm.Labels)
	}
	ref := metav1.GetControllerOf(cm)
	if ref == nil || ref.APIVersion != "crddemo.k8s.io/v1" || ref.Kind != "Mydemo" || ref.Name != "web" || ref.UID != m.UID ||
		ref.BlockOwnerDeletion == nil || !*ref.BlockOwnerDeletion {
		t.Errorf("owner references %+v", cm.OwnerReferences)
	}
	// Both were written by server-side apply, as the controller.
	if !applied(cm.ManagedFields, "f:data") || !applied(m.ManagedFields, "f:conditions") {
		t.Errorf("managedFields: ConfigMap %v, Mydemo %v; want applies by %s", cm.ManagedFields, m.ManagedFields, mydemo.ControllerName)
	}
}

// applied reports whether the controller's field manager has applied a
// field called field ("f:data").
func applied(entries []metav1.ManagedFieldsEntry, field string) bool {
	return owns(entries, mydemo.ControllerName, metav1.ManagedFieldsOperationApply, field)
}

func owns(entries []metav1.ManagedFieldsEntry, manager string, op metav1.ManagedFieldsOperationType, field string) bool {
	for _, e := range entries {
		if e.Manager == manager && e.Operation == op && e.FieldsV1 != nil && strings.Contains(string(e.FieldsV1.Raw), `"`+field+`"`) {
			return true
		}
	}
	return false
}

func TestSpecChangeUpdatesTheConfigMap(t *testing.T) {
	cs := start(t, newMydemo("web"))
	waitReady(t, cs, "web")
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		m := getMydemo(t, cs, "web")
		m.Spec.Port = 9090
		m.Spec.Data = map[string]string{"extra": "yes"} // "mode" dropped
		_, err := cs.md.CrddemoV1().Mydemos(ns).Update(context.Background(), m, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	// The apply no longer carries "mode", which the controller owned: gone.
	waitConfigMap(t, cs, "web-config", map[string]string{"extra": "yes", "ip": "10.0.0.1", "port": "9090"})
	if m := waitReady(t, cs, "web"); m.Generation != 2 || m.Status.ObservedGeneration != 2 {
		t.Errorf("after a spec change: %s", statusString(m))
	}
}

func TestDeletedConfigMapIsRecreated(t *testing.T) {
	cs := start(t, newMydemo("web"))
	waitReady(t, cs, "web")
	want := map[string]string{"mode": "fast", "ip": "10.0.0.1", "port": "8080"}
	old := waitConfigMap(t, cs, "web-config", want)
	if err := cs.kube.CoreV1().ConfigMaps(ns).Delete(context.Background(), "web-config", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "a new ConfigMap", func() (bool, string) {
		cm, err := getConfigMap(cs, "web-config")
		if err != nil {
			return false, err.Error()
		}
		return cm.UID != old.UID && maps.Equal(cm.Data, want) && metav1.IsControlledBy(cm, getMydemo(t, cs, "web")), string(cm.UID)
	})
}

func TestSomeoneElsesConfigMapIsLeftAlone(t *testing.T) {
	theirs := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-config"}, Data: map[string]string{"theirs": "1"}}
	cs := start(t, theirs, newMydemo("web"))
	eventually(t, "Ready=False", func() (bool, string) {
		m := getMydemo(t, cs, "web")
		ready := meta.FindStatusCondition(m.Status.Conditions, mydemo.ConditionReady)
		return ready != nil && ready.Status == metav1.ConditionFalse && ready.Reason == "ConfigMapNotOwned", statusString(m)
	})
	cm, err := getConfigMap(cs, "web-config")
	if err != nil || !maps.Equal(cm.Data, theirs.Data) || len(cm.OwnerReferences) != 0 {
		t.Errorf("their ConfigMap was changed: %+v, %v", cm, err)
	}
}

// TestEditedConfigMapConvergesAndOthersFieldsStay: someone edits the
// ConfigMap (an Update, as kubectl edit makes, changing a data key the
// controller owns) and another field manager applies a label of its own.
// The controller applies its data back; the other manager's label stays.
func TestEditedConfigMapConvergesAndOthersFieldsStay(t *testing.T) {
	cs := start(t, newMydemo("web"))
	waitReady(t, cs, "web")
	want := map[string]string{"mode": "fast", "ip": "10.0.0.1", "port": "8080"}
	waitConfigMap(t, cs, "web-config", want)
	ctx := context.Background()
	label := corev1ac.ConfigMap("web-config", ns).WithLabels(map[string]string{"team": "blue"})
	if _, err := cs.kube.CoreV1().ConfigMaps(ns).Apply(ctx, label, metav1.ApplyOptions{FieldManager: "team-labeller"}); err != nil {
		t.Fatal(err)
	}
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cm, err := getConfigMap(cs, "web-config")
		if err != nil {
			return err
		}
		cm.Data["ip"] = "192.168.0.1"
		_, err = cs.kube.CoreV1().ConfigMaps(ns).Update(ctx, cm, metav1.UpdateOptions{FieldManager: "kubectl-edit"})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	cm := waitConfigMap(t, cs, "web-config", want)
	if cm.Labels["team"] != "blue" || cm.Labels[mydemo.LabelMydemo] != "web" {
		t.Errorf("labels %v: want the other manager's team=blue kept beside the controller's", cm.Labels)
	}
	if !applied(cm.ManagedFields, "f:ip") || owns(cm.ManagedFields, "kubectl-edit", metav1.ManagedFieldsOperationUpdate, "f:ip") {
		t.Errorf("managedFields %v: data.ip should be the controller's again", cm.ManagedFields)
	}
}

// TestOthersStatusFieldsStay: a condition another field manager applied
// to a Mydemo's status stays through the controller's status applies,
// which send only the controller's fields.
func TestOthersStatusFieldsStay(t *testing.T) {
	cs := start(t, newMydemo("web"))
	waitReady(t, cs, "web")
	ctx := context.Background()
	audited := crddemoac.Mydemo("web", ns).WithStatus(crddemoac.MydemoStatus().WithConditions(
		metav1ac.Condition().WithType("Audited").WithStatus(metav1.ConditionTrue).WithReason("Checked").WithMessage("ok").
			WithLastTransitionTime(metav1.Now())))
	if _, err := cs.md.CrddemoV1().Mydemos(ns).ApplyStatus(ctx, audited, metav1.ApplyOptions{FieldManager: "auditor"}); err != nil {
		t.Fatal(err)
	}
	// A spec change: the controller applies a new observedGeneration and
	// Ready condition.
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		m := getMydemo(t, cs, "web")
		m.Spec.Port = 9090
		_, err := cs.md.CrddemoV1().Mydemos(ns).Update(ctx, m, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	m := waitReady(t, cs, "web")
	if m.Generation != 2 || meta.FindStatusCondition(m.Status.Conditions, "Audited") == nil {
		t.Errorf("status %s: want the auditor's condition kept", statusString(m))
	}
	if !owns(m.ManagedFields, "auditor", metav1.ManagedFieldsOperationApply, `k:{\"type\":\"Audited\"}`) {
		t.Errorf("managedFields %v: the Audited condition should still be the auditor's", m.ManagedFields)
	}
}

// TestNothingIsWrittenWhenUpToDate: once a Mydemo is Ready with its
// ConfigMap, a reconcile (here after a metadata change, which changes
// neither the ConfigMap nor the status) sends no request.
func TestNothingIsWrittenWhenUpToDate(t *testing.T) {
	cs := start(t, newMydemo("web"))
	waitReady(t, cs, "web")
	waitConfigMap(t, cs, "web-config", map[string]string{"mode": "fast", "ip": "10.0.0.1", "port": "8080"})
	eventually(t, "the controller's caches to hold its writes", func() (bool, string) {
		m, err := cs.mydemos.Mydemos(ns).Get("web")
		if err != nil {
			return false, err.Error()
		}
		_, err = cs.configMaps.ConfigMaps(ns).Get("web-config")
		return meta.IsStatusConditionTrue(m.Status.Conditions, mydemo.ConditionReady) && err == nil, fmt.Sprint(err)
	})
	// After a reconcile on caches that hold the controller's writes, no
	// reconcile of an older cache is left to write.
	touch(t, cs, "web", "1")
	writes := len(patches(cs))
	touch(t, cs, "web", "2")
	if got := patches(cs); len(got) != writes {
		t.Errorf("%d writes after a reconcile that had nothing to do: %v", len(got)-writes, got[writes:])
	}
}

// touch sets an annotation on the Mydemo called name, and returns once
// the controller has finished a reconcile of it that started after the
// update.
func touch(t *testing.T, cs clients, name, value string) {
	t.Helper()
	before := time.Now()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		m := getMydemo(t, cs, name)
		m.Annotations = map[string]string{"touched": value}
		_, err := cs.md.CrddemoV1().Mydemos(ns).Update(context.Background(), m, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "a reconcile after the annotation", func() (bool, string) {
		return cs.reconciles.since(name, before) > 0, fmt.Sprint(cs.reconciles.since(name, time.Time{}), " reconciles")
	})
}

// patches are the controller's writes so far: applies (patches) to
// ConfigMaps and to Mydemos' status.
func patches(cs clients) []string {
	var out []string
	for _, a := range append(cs.kube.Actions(), cs.md.Actions()...) {
		if a.GetVerb() == "patch" {
			out = append(out, a.GetResource().Resource+"/"+a.GetSubresource())
		}
	}
	return out
}

// apiserverSemantics makes the fake clientsets' creates, updates and
// applies behave as an apiserver's where the controller depends on it:
// resourceVersions and Conflicts on stale updates (optimistic
// concurrency), UIDs, metadata.generation bumped by spec changes, and a
// status subresource (UpdateStatus writes only the status, Update
// everything else). client-go's object tracker does none of this. fakes
// maps each clientset's Fake to its tracker; the resourceVersions are one
// sequence, as an apiserver's.
func apiserverSemantics(fakes map[*clienttesting.Fake]clienttesting.ObjectTracker) {
	var mu sync.Mutex
	version := 0
	next := func() string {
		version++
		return strconv.Itoa(version)
	}
	for cs, tracker := range fakes {
		addSemantics(cs, tracker, &mu, next)
	}
}

func addSemantics(cs *clienttesting.Fake, tracker clienttesting.ObjectTracker, mu *sync.Mutex, next func() string) {
	cs.PrependReactor("create", "*", func(action clienttesting.Action) (bool, runtime.Object, error) {
		a := action.(clienttesting.CreateActionImpl)
		mu.Lock()
		defer mu.Unlock()
		obj := a.GetObject().DeepCopyObject()
		m, err := meta.Accessor(obj)
		if err != nil {
			return true, nil, err
		}
		rv := next()
		m.SetResourceVersion(rv)
		m.SetUID(types.UID("uid-" + rv))
		m.SetGeneration(1)
		m.SetCreationTimestamp(metav1.Now())
		return true, obj, tracker.Create(a.GetResource(), obj, a.GetNamespace(), a.CreateOptions)
	})
	cs.PrependReactor("update", "*", func(action clienttesting.Action) (bool, runtime.Object, error) {
		a := action.(clienttesting.UpdateActionImpl)
		mu.Lock()
		defer mu.Unlock()
		m, err := meta.Accessor(a.GetObject())
		if err != nil {
			return true, nil, err
		}
		stored, err := tracker.Get(a.GetResource(), a.GetNamespace(), m.GetName())
		if err != nil {
			return true, nil, err
		}
		sm, _ := meta.Accessor(stored)
		if m.GetResourceVersion() != sm.GetResourceVersion() {
			return true, nil, apierrors.NewConflict(a.GetResource().GroupResource(), m.GetName(), errors.New("the object has been modified"))
		}
		in, err := runtime.DefaultUnstructuredConverter.ToUnstructured(a.GetObject())
		if err != nil {
			return true, nil, err
		}
		out, err := runtime.DefaultUnstructuredConverter.ToUnstructured(stored)
		if err != nil {
			return true, nil, err
		}
		if a.GetSubresource() == "status" {
			out["status"] = in["status"]
		} else {
			status, hasStatus := out["status"]
			oldSpec := out["spec"]
			out = in
			out["metadata"].(map[string]any)["uid"] = string(sm.GetUID())
			if hasStatus {
				out["status"] = status
			}
			generation := sm.GetGeneration()
			if !equality.Semantic.DeepEqual(oldSpec, out["spec"]) {
				generation++
			}
			out["metadata"].(map[string]any)["generation"] = generation
		}
		out["metadata"].(map[string]any)["resourceVersion"] = next()
		obj := reflect.New(reflect.TypeOf(stored).Elem()).Interface().(runtime.Object)
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(out, obj); err != nil {
			return true, nil, err
		}
		return true, obj, tracker.Update(a.GetResource(), obj, a.GetNamespace(), a.UpdateOptions)
	})
	// An apply merges by field manager in the tracker; what an apiserver
	// sets besides (a new resourceVersion; a UID and creationTimestamp when
	// it creates) goes in with the applied fields, which the field manager
	// does not count as anyone's.
	cs.PrependReactor("patch", "*", func(action clienttesting.Action) (bool, runtime.Object, error) {
		a := action.(clienttesting.PatchActionImpl)
		if a.GetPatchType() != types.ApplyPatchType {
			return false, nil, nil
		}
		mu.Lock()
		defer mu.Unlock()
		applied := &unstructured.Unstructured{Object: map[string]any{}}
		if err := yaml.Unmarshal(a.GetPatch(), &applied.Object); err != nil {
			return true, nil, apierrors.NewBadRequest(err.Error())
		}
		applied.SetName(a.GetName())
		stored, err := tracker.Get(a.GetResource(), a.GetNamespace(), a.GetName())
		switch {
		case apierrors.IsNotFound(err) && a.GetSubresource() != "":
			return true, nil, err
		case apierrors.IsNotFound(err):
			rv := next()
			applied.SetResourceVersion(rv)
			applied.SetUID(types.UID("uid-" + rv))
			applied.SetGeneration(1)
			applied.SetCreationTimestamp(metav1.Now())
		case err != nil:
			return true, nil, err
		default:
			sm, _ := meta.Accessor(stored)
			applied.SetUID(sm.GetUID())
			applied.SetResourceVersion(next())
		}
		if err := tracker.Apply(a.GetResource(), applied, a.GetNamespace(), a.PatchOptions); err != nil {
			return true, nil, err
		}
		obj, err := tracker.Get(a.GetResource(), a.GetNamespace(), a.GetName())
		return true, obj, err
	})
}
