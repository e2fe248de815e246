package kube_test

import (
	"context"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"
	"weak"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"

	informerscorev1 "github.com/ctrlgen/ctrlgen/runtime/kube/informers/core/v1"
)

// listOnce is a clientset whose ConfigMap List returns one given list,
// once, and forgets it; everything else is the fake clientset's.
type listOnce struct {
	*fake.Clientset
	take func() *corev1.ConfigMapList
}

func (c listOnce) CoreV1() typedcorev1.CoreV1Interface {
	return coreListOnce{c.Clientset.CoreV1(), c.take}
}

type coreListOnce struct {
	typedcorev1.CoreV1Interface
	take func() *corev1.ConfigMapList
}

func (c coreListOnce) ConfigMaps(ns string) typedcorev1.ConfigMapInterface {
	return configMapsListOnce{c.CoreV1Interface.ConfigMaps(ns), c.take}
}

type configMapsListOnce struct {
	typedcorev1.ConfigMapInterface
	take func() *corev1.ConfigMapList
}

func (c configMapsListOnce) List(context.Context, metav1.ListOptions) (*corev1.ConfigMapList, error) {
	return c.take(), nil
}

// TestInformerDoesNotRetainListArray: once the generated informer has
// cached the objects of a list, the list's decoded array must be garbage,
// or the old version of every object updated since stays alive with it.
func TestInformerDoesNotRetainListArray(t *testing.T) {
	list := &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: "10"}, Items: make([]corev1.ConfigMap, 50)}
	for i := range list.Items {
		list.Items[i].Namespace, list.Items[i].Name, list.Items[i].ResourceVersion = "ns", "cm-"+strconv.Itoa(i), "10"
	}
	array := weak.Make(&list.Items[0])
	var mu sync.Mutex
	take := func() *corev1.ConfigMapList {
		mu.Lock()
		defer mu.Unlock()
		l := list
		list = nil
		if l == nil {
			l = &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: "10"}}
		}
		return l
	}
	var client kubernetes.Interface = listOnce{fake.NewClientset(), take}
	informer := informerscorev1.NewConfigMapInformer(client, metav1.NamespaceAll, 0, cache.Indexers{})

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	go informer.RunWithContext(ctx)
	if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		t.Fatal("informer did not sync")
	}
	if n := len(informer.GetStore().ListKeys()); n != 50 {
		t.Fatalf("cached %d objects, want 50", n)
	}

	for range 10 {
		runtime.GC()
		if array.Value() == nil {
			break
		}
	}
	if array.Value() != nil {
		t.Fatal("the list's array is still alive while the informer caches its objects")
	}
	runtime.KeepAlive(informer)
}

// The fake clientset cannot stream initial lists and says so
// (IsWatchListSemanticsUnSupported); the generated informer passes that
// on, so that its Reflector lists and never asks for initial events.
func TestInformerOnFakeClientsetNeverStreams(t *testing.T) {
	client := fake.NewClientset(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}})
	var mu sync.Mutex
	var watches []metav1.ListOptions
	lists := 0
	client.PrependReactor("list", "configmaps", func(clienttesting.Action) (bool, apiruntime.Object, error) {
		mu.Lock()
		lists++
		mu.Unlock()
		return false, nil, nil
	})
	client.PrependWatchReactor("configmaps", func(action clienttesting.Action) (bool, watch.Interface, error) {
		mu.Lock()
		watches = append(watches, action.(clienttesting.WatchActionImpl).ListOptions)
		mu.Unlock()
		w, err := client.Tracker().Watch(action.GetResource(), action.GetNamespace())
		return true, w, err
	})
	informer := informerscorev1.NewConfigMapInformer(client, metav1.NamespaceAll, 0, cache.Indexers{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	go informer.RunWithContext(ctx)
	if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		t.Fatal("informer did not sync")
	}
	mu.Lock()
	defer mu.Unlock()
	if lists != 1 {
		t.Fatalf("%d lists, want 1", lists)
	}
	for _, w := range watches {
		if w.SendInitialEvents != nil || w.ResourceVersionMatch != "" {
			t.Fatalf("watch %+v asks for initial events", w)
		}
	}
}
