package mydemo_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"strconv"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	kubefake "k8s.io/client-go/kubernetes/fake"
	kubescheme "k8s.io/client-go/kubernetes/scheme"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/retry"

	crddemov1 "github.com/ctrlgen/ctrlgen/examples/mydemo/apis/crddemo/v1"
	"github.com/ctrlgen/ctrlgen/examples/mydemo/controllers/mydemo"
	"github.com/ctrlgen/ctrlgen/examples/mydemo/generated/clientset/versioned/fake"
	"github.com/ctrlgen/ctrlgen/examples/mydemo/generated/informers/externalversions"
	"github.com/ctrlgen/ctrlgen/runtime/fakeclient"
	kubeinformers "github.com/ctrlgen/ctrlgen/runtime/kube/informers"
)

const ns = "demo"

// clients are the controller's two fake clientsets: the generated one for
// Mydemos, and client-go's for ConfigMaps.
type clients struct {
	md   *fake.Clientset
	kube *kubefake.Clientset
}

// newKubeClientset is client-go's fake clientset on ctrlgen's object
// tracker, as the generated fake is: a watch from a list's
// resourceVersion replays every change since, so that the ConfigMap
// informer misses nothing between its list and its watch (client-go's own
// tracker replays only the objects that still exist).
func newKubeClientset() (*kubefake.Clientset, clienttesting.ObjectTracker) {
	cs := &kubefake.Clientset{}
	tracker := fakeclient.NewTracker(kubescheme.Scheme, kubescheme.Codecs.UniversalDecoder(),
		map[schema.GroupVersionResource]string{corev1.SchemeGroupVersion.WithResource("configmaps"): "ConfigMap"})
	tracker.AddReactors(&cs.Fake)
	return cs, tracker
}

// start runs the controller over fake clientsets holding objs, the
// generated informers and the shipped informers of ConfigMaps, until the
// test ends.
func start(t *testing.T, objs ...runtime.Object) clients {
	t.Helper()
	kube, kubeTracker := newKubeClientset()
	cs := clients{md: fake.NewClientset(), kube: kube}
	apiserverSemantics(map[*clienttesting.Fake]clienttesting.ObjectTracker{&cs.md.Fake: cs.md.Tracker(), &cs.kube.Fake: kubeTracker})
	for _, o := range objs {
		if err := create(cs, o); err != nil {
			t.Fatal(err)
		}
	}
	factory := externalversions.NewSharedInformerFactory(cs.md, 0)
	kubeFactory := kubeinformers.NewSharedInformerFactory(cs.kube, 0)
	c, err := mydemo.New(cs.md, factory, cs.kube, kubeFactory, record.NewFakeRecorder(100))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
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
}

func TestSpecChangeUpdatesTheConfigMap(t *testing.T) {
	cs := start(t, newMydemo("web"))
	waitReady(t, cs, "web")
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		m := getMydemo(t, cs, "web")
		m.Spec.Port = 9090
		m.Spec.Data = map[string]string{"mode": "safe", "extra": "yes"}
		_, err := cs.md.CrddemoV1().Mydemos(ns).Update(context.Background(), m, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	waitConfigMap(t, cs, "web-config", map[string]string{"mode": "safe", "extra": "yes", "ip": "10.0.0.1", "port": "9090"})
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

// apiserverSemantics makes the fake clientsets' creates and updates behave
// as an apiserver's where the controller depends on it: resourceVersions
// and Conflicts on stale updates (optimistic concurrency), UIDs, metadata.generation
// bumped by spec changes, and a status subresource (UpdateStatus writes
// only the status, Update everything else). client-go's object tracker
// does none of this. fakes maps each clientset's Fake to its tracker; the
// resourceVersions are one sequence, as an apiserver's.
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
		a := action.(clienttesting.CreateAction)
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
		return true, obj, tracker.Create(a.GetResource(), obj, a.GetNamespace())
	})
	cs.PrependReactor("update", "*", func(action clienttesting.Action) (bool, runtime.Object, error) {
		a := action.(clienttesting.UpdateAction)
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
		return true, obj, tracker.Update(a.GetResource(), obj, a.GetNamespace())
	})
}
