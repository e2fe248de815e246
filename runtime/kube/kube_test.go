package kube_test

import (
	"context"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"

	"github.com/ctrlgen/ctrlgen/runtime/kube/informers"
	informerscorev1 "github.com/ctrlgen/ctrlgen/runtime/kube/informers/core/v1"
	"github.com/ctrlgen/ctrlgen/runtime/kube/listers"
	listerscorev1 "github.com/ctrlgen/ctrlgen/runtime/kube/listers/core/v1"
)

// TestClientGoStyle uses the shipped informers and listers as a controller
// uses client-go's k8s.io/client-go/informers and listers, on client-go's
// own (fake) clientset: a factory, typed and generic informers, listers
// with client-go's hand-written expansions, and an event handler.
func TestClientGoStyle(t *testing.T) {
	ns := "demo"
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "a", Labels: map[string]string{"app": "x"}}}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "ds"},
		Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "ds"}}}}
	client := fake.NewClientset(cm, node, ds)
	// Signal once the ConfigMaps watch is in place: client-go's fake
	// tracker does not replay what was created between a list and a watch.
	watching := make(chan struct{})
	var once sync.Once
	client.PrependWatchReactor("configmaps", func(action clienttesting.Action) (bool, watch.Interface, error) {
		w, err := client.Tracker().Watch(action.GetResource(), action.GetNamespace())
		if err == nil {
			once.Do(func() { close(watching) })
		}
		return true, w, err
	})

	var kc kubernetes.Interface = client
	factory := informers.NewSharedInformerFactoryWithOptions(kc, 0, informers.WithNamespace(metav1.NamespaceAll))
	configMaps := factory.Core().V1().ConfigMaps()
	var _ informerscorev1.ConfigMapInformer = configMaps
	var _ cache.SharedIndexInformer = configMaps.Informer()
	added := make(chan *corev1.ConfigMap, 10)
	if _, err := configMaps.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { added <- obj.(*corev1.ConfigMap) },
	}); err != nil {
		t.Fatal(err)
	}
	var cmLister listerscorev1.ConfigMapLister = configMaps.Lister()
	nodes := factory.Core().V1().Nodes().Lister()
	daemonSets := factory.Apps().V1().DaemonSets().Lister()
	generic, err := factory.ForResource(corev1.SchemeGroupVersion.WithResource("configmaps"))
	if err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer factory.Shutdown()
	defer cancel()
	factory.StartWithContext(ctx)
	if err := factory.WaitForCacheSyncWithContext(ctx).AsError(); err != nil {
		t.Fatal(err)
	}

	if got, err := cmLister.ConfigMaps(ns).Get("a"); err != nil || got.Name != "a" {
		t.Errorf("lister Get: %v, %v", got, err)
	}
	if got, err := cmLister.List(labels.SelectorFromSet(labels.Set{"app": "x"})); err != nil || len(got) != 1 {
		t.Errorf("lister List: %v, %v", got, err)
	}
	if got, err := nodes.Get("n1"); err != nil || got.Name != "n1" {
		t.Errorf("cluster-scoped lister Get: %v, %v", got, err)
	}
	if _, err := nodes.Get("n2"); err == nil || err.Error() != `node "n2" not found` {
		t.Errorf("lister Get of a missing node: %v; want client-go's NotFound", err)
	}
	if got, err := generic.Lister().ByNamespace(ns).Get("a"); err != nil || got.(*corev1.ConfigMap).Name != "a" {
		t.Errorf("generic lister: %v, %v", got, err)
	}
	// client-go's hand-written expansion, shipped with the listers.
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "p", Labels: map[string]string{"app": "ds"}}}
	if got, err := daemonSets.GetPodDaemonSets(pod); err != nil || len(got) != 1 || got[0].Name != "ds" {
		t.Errorf("GetPodDaemonSets: %v, %v", got, err)
	}
	var _ listers.ResourceIndexer[*corev1.ConfigMap] = listers.New[*corev1.ConfigMap](configMaps.Informer().GetIndexer(), corev1.Resource("configmap"))

	// A ConfigMap created once the watch is in place reaches the handler.
	<-watching
	if _, err := client.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "b"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	timeout := time.After(30 * time.Second)
	for seen := map[string]bool{}; !seen["b"]; {
		select {
		case obj := <-added:
			seen[obj.Name] = true
		case <-timeout:
			t.Fatalf("no add of ConfigMap b; saw %v", seen)
		}
	}
}
