package cache_test

import (
	"context"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	clientcache "k8s.io/client-go/tools/cache"

	"github.com/ctrlgen/ctrlgen/runtime/cache"
	"github.com/ctrlgen/ctrlgen/runtime/listers"
)

// namespaceSource lists the ConfigMaps given of one namespace and
// watches through a fake watcher the test drives. It refuses a list or
// a watch of any other namespace, as a Role of that namespace would.
type namespaceSource struct {
	namespace string
	items     []*corev1.ConfigMap
	watcher   *watch.FakeWatcher
}

func (s *namespaceSource) listWatch() *cache.ListWatch[*corev1.ConfigMap] {
	return &cache.ListWatch[*corev1.ConfigMap]{
		ListFunc: func(context.Context, metav1.ListOptions) (cache.ListPage[*corev1.ConfigMap], error) {
			return cache.ListPage[*corev1.ConfigMap]{Items: s.items, ResourceVersion: "1"}, nil
		},
		WatchFunc: func(context.Context, metav1.ListOptions) (watch.Interface, error) {
			return s.watcher, nil
		},
		WatchListSemanticsUnsupported: true,
	}
}

func configMap(namespace, name string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, ResourceVersion: "1", Labels: map[string]string{"ns": namespace}}}
}

// events records what a handler is told, and fails the test when two
// calls overlap.
type events struct {
	t      *testing.T
	lock   sync.Mutex
	inCall bool
	added  chan string
}

func (e *events) enter() {
	e.lock.Lock()
	if e.inCall {
		e.t.Error("handler called concurrently")
	}
	e.inCall = true
	e.lock.Unlock()
	time.Sleep(time.Millisecond) // widen the window an overlap would need
	e.lock.Lock()
	e.inCall = false
	e.lock.Unlock()
}

func (e *events) OnAdd(obj *corev1.ConfigMap, _ bool) {
	e.enter()
	e.added <- obj.Namespace + "/" + obj.Name
}
func (e *events) OnUpdate(_, _ *corev1.ConfigMap)                       { e.enter() }
func (e *events) OnDelete(clientcache.DeletedObject[*corev1.ConfigMap]) { e.enter() }

func TestMultiNamespaceInformerIsOneCacheOfItsNamespaces(t *testing.T) {
	sources := map[string]*namespaceSource{
		"a": {namespace: "a", items: []*corev1.ConfigMap{configMap("a", "one"), configMap("a", "two")}, watcher: watch.NewFake()},
		"b": {namespace: "b", items: []*corev1.ConfigMap{configMap("b", "one")}, watcher: watch.NewFake()},
	}
	byNamespace := map[string]clientcache.TypedSharedIndexInformer[*corev1.ConfigMap]{}
	for ns, s := range sources {
		byNamespace[ns] = cache.NewSharedIndexInformer[*corev1.ConfigMap](s.listWatch(), 0,
			clientcache.Indexers{clientcache.NamespaceIndex: clientcache.MetaNamespaceIndexFunc})
	}
	inf := cache.NewMultiNamespaceInformer(byNamespace)
	h := &events{t: t, added: make(chan string, 10)}
	reg, err := inf.AddTypedEventHandler(h)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	stopped := make(chan struct{})
	go func() {
		inf.RunWithContext(ctx)
		close(stopped)
	}()
	defer func() {
		cancel()
		<-stopped
	}()
	if !clientcache.WaitForCacheSync(ctx.Done(), inf.HasSynced, reg.HasSynced) {
		t.Fatal("not synced")
	}
	select {
	case <-reg.HasSyncedChecker().Done():
	case <-ctx.Done():
		t.Fatal("the handler's checker is not done")
	}

	got := map[string]bool{}
	for range 3 {
		got[<-h.added] = true
	}
	if len(got) != 3 || !got["a/one"] || !got["a/two"] || !got["b/one"] {
		t.Errorf("handler was told %v, want a/one, a/two, b/one", got)
	}

	lister := listers.New[*corev1.ConfigMap](inf.GetIndexer(), schema.GroupResource{Resource: "configmap"})
	all, _ := lister.List(labels.Everything())
	if len(all) != 3 || inf.Len() != 3 {
		t.Errorf("List gives %d objects and Len %d, want 3", len(all), inf.Len())
	}
	if _, err := listers.NewNamespaced(lister, "a").Get("one"); err != nil {
		t.Errorf("Get a/one: %v", err)
	}
	if _, err := listers.NewNamespaced(lister, "c").Get("one"); err == nil {
		t.Error("Get in a namespace not watched found something")
	}
	inB, _ := listers.NewNamespaced(lister, "b").List(labels.Everything())
	if len(inB) != 1 {
		t.Errorf("List in b gives %d objects, want 1", len(inB))
	}
	byIndex, err := inf.GetIndexer().ByIndex(clientcache.NamespaceIndex, "a")
	if err != nil || len(byIndex) != 2 {
		t.Errorf("ByIndex(namespace, a) = %d objects, %v; want 2", len(byIndex), err)
	}
	if _, exists, _ := inf.GetIndexer().GetByKey("c/one"); exists {
		t.Error("GetByKey c/one found something")
	}
	if err := inf.GetIndexer().Add(configMap("a", "three")); err == nil {
		t.Error("Add from outside was not refused")
	}

	// Events of both namespaces reach the handler, one call at a time.
	sources["a"].watcher.Add(configMap("a", "three"))
	sources["b"].watcher.Add(configMap("b", "two"))
	got = map[string]bool{}
	for range 2 {
		got[<-h.added] = true
	}
	if !got["a/three"] || !got["b/two"] {
		t.Errorf("handler was told %v, want a/three and b/two", got)
	}
	if regs := inf.HandlerRegistrations(); len(regs) != 1 {
		t.Errorf("%d handler registrations, want 1", len(regs))
	}
	if err := inf.RemoveEventHandler(reg); err != nil {
		t.Fatal(err)
	}
	if regs := inf.HandlerRegistrations(); len(regs) != 0 {
		t.Errorf("%d handler registrations after removal, want 0", len(regs))
	}
}
