package informers

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	clientcache "k8s.io/client-go/tools/cache"

	"github.com/ctrlgen/ctrlgen/runtime/cache"
)

// stubInformer counts Run calls, runs until its context is done, and
// syncs when told.
type stubInformer struct {
	clientcache.SharedIndexInformer
	runs    atomic.Int32
	running chan struct{} // closed when Run starts
	synced  chan struct{}
	resync  time.Duration
}

func newStub(resync time.Duration) *stubInformer {
	return &stubInformer{running: make(chan struct{}), synced: make(chan struct{}), resync: resync}
}

func (s *stubInformer) RunWithContext(ctx context.Context) {
	if s.runs.Add(1) == 1 {
		close(s.running)
	}
	<-ctx.Done()
}

func (s *stubInformer) HasSynced() bool {
	select {
	case <-s.synced:
		return true
	default:
		return false
	}
}

type done struct{ ch chan struct{} }

func (d done) Name() string          { return "stub" }
func (d done) Done() <-chan struct{} { return d.ch }

func (s *stubInformer) HasSyncedChecker() clientcache.DoneChecker { return done{s.synced} }

type client struct{}

func stub(resync time.Duration) func(client, time.Duration) clientcache.SharedIndexInformer {
	return func(client, time.Duration) clientcache.SharedIndexInformer { return newStub(resync) }
}

func TestInformerForSharesAndResyncs(t *testing.T) {
	f := NewFactory(client{}, time.Minute)
	f.SetCustomResync(map[metav1.Object]time.Duration{&corev1.Secret{}: time.Hour})
	var built int
	newStubFunc := func(_ client, resync time.Duration) clientcache.SharedIndexInformer { built++; return newStub(resync) }
	a := f.InformerFor(&corev1.ConfigMap{}, newStubFunc)
	if b := f.InformerFor(&corev1.ConfigMap{}, newStubFunc); a != b || built != 1 {
		t.Errorf("second InformerFor of the type built another informer")
	}
	if got := a.(*stubInformer).resync; got != time.Minute {
		t.Errorf("default resync %v, want 1m", got)
	}
	if got := f.InformerFor(&corev1.Secret{}, newStubFunc).(*stubInformer).resync; got != time.Hour {
		t.Errorf("custom resync %v, want 1h", got)
	}
	if n := len(f.Informers()); n != 2 {
		t.Errorf("Informers() has %d, want 2", n)
	}
}

func TestStartWaitShutdown(t *testing.T) {
	f := NewFactory(client{}, 0)
	cm := f.InformerFor(&corev1.ConfigMap{}, stub(0)).(*stubInformer)
	ctx, cancel := context.WithCancel(context.Background())
	f.StartWithContext(ctx)
	f.StartWithContext(ctx) // no second Run
	<-cm.running

	// An informer asked for after Start runs at the next Start only.
	secret := f.InformerFor(&corev1.Secret{}, stub(0)).(*stubInformer)
	if n := secret.runs.Load(); n != 0 {
		t.Fatalf("informer added after Start ran %d times before Start", n)
	}
	close(cm.synced)
	synced := f.WaitForCacheSync(ctx.Done())
	if want := map[reflect.Type]bool{reflect.TypeOf(&corev1.ConfigMap{}): true}; !reflect.DeepEqual(synced, want) {
		t.Errorf("WaitForCacheSync = %v, want %v", synced, want)
	}
	f.Start(ctx.Done())
	<-secret.running

	// Secret never syncs: waiting ends with the context, and says so.
	waitCtx, stop := context.WithCancel(ctx)
	stop()
	res := f.WaitForCacheSyncWithContext(waitCtx)
	if res.Synced[reflect.TypeOf(&corev1.Secret{})] || !res.Synced[reflect.TypeOf(&corev1.ConfigMap{})] || !errors.Is(res.AsError(), context.Canceled) {
		t.Errorf("WaitForCacheSyncWithContext = %+v", res)
	}

	finished := make(chan struct{})
	go func() { f.Shutdown(); close(finished) }()
	cancel()
	<-finished
	if cm.runs.Load() != 1 || secret.runs.Load() != 1 {
		t.Errorf("runs: %d, %d; want 1 each", cm.runs.Load(), secret.runs.Load())
	}

	// After Shutdown, Start starts nothing.
	late := f.InformerFor(&corev1.Pod{}, stub(0)).(*stubInformer)
	f.StartWithContext(context.Background())
	f.Shutdown()
	if late.runs.Load() != 0 {
		t.Error("Start after Shutdown ran an informer")
	}
}

func TestSetters(t *testing.T) {
	f := NewFactory(client{}, 0)
	if f.Namespace() != metav1.NamespaceAll || f.TweakListOptions() != nil || f.InformerName() != nil {
		t.Error("a new factory is not for all namespaces, untweaked and unnamed")
	}
	f.SetNamespace("ns")
	f.SetTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = "a=b" })
	name, err := clientcache.NewInformerName(t.Name())
	if err != nil {
		t.Fatal(err)
	}
	f.SetInformerName(name)
	if f.Namespace() != "ns" || f.InformerName() != name {
		t.Errorf("Namespace() = %q, InformerName() = %v", f.Namespace(), f.InformerName())
	}
	var o metav1.ListOptions
	f.TweakListOptions()(&o)
	if o.LabelSelector != "a=b" {
		t.Errorf("TweakListOptions did not apply")
	}
	f.Shutdown()
	if _, err := clientcache.NewInformerName(t.Name()); err != nil {
		t.Errorf("Shutdown did not release the informer name: %v", err)
	}
}

// listWatch serves a fixed list and a watch that never sends; it cannot
// stream a list, and says so.
func listWatch(items ...corev1.ConfigMap) *cache.ListWatch[*corev1.ConfigMap] {
	return &cache.ListWatch[*corev1.ConfigMap]{
		ListFunc: func(context.Context, metav1.ListOptions) (cache.ListPage[*corev1.ConfigMap], error) {
			return cache.ListPage[*corev1.ConfigMap]{Items: cache.PointersWithAlloc(items), ResourceVersion: "1"}, nil
		},
		WatchFunc: func(context.Context, metav1.ListOptions) (watch.Interface, error) {
			return watch.NewFake(), nil
		},
		WatchListSemanticsUnsupported: true,
	}
}

func TestInformerForAppliesTransform(t *testing.T) {
	var calls sync.Map
	transform := func(obj any) (any, error) {
		cm := obj.(*corev1.ConfigMap)
		calls.Store(cm.Name, true)
		switch cm.Name {
		case "fails":
			return nil, errors.New("no")
		case "retypes":
			return &corev1.Secret{}, nil
		}
		cm.ManagedFields = nil
		return cm, nil
	}
	f := NewFactory(client{}, 0)
	f.SetTransform(transform)
	managed := []metav1.ManagedFieldsEntry{{Manager: "m"}}
	items := []corev1.ConfigMap{
		{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "ok", ManagedFields: managed}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "fails", ManagedFields: managed}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "retypes", ManagedFields: managed}},
	}
	informer := f.InformerFor(&corev1.ConfigMap{}, func(_ client, resync time.Duration) clientcache.SharedIndexInformer {
		return cache.NewSharedIndexInformer(listWatch(items...), resync, nil)
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer func() { cancel(); f.Shutdown() }()
	f.Start(ctx.Done())
	if err := f.WaitForCacheSyncWithContext(ctx).AsError(); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"ok", "fails", "retypes"} {
		obj, ok, _ := informer.GetIndexer().GetByKey("ns/" + name)
		if !ok {
			t.Fatalf("%s not cached", name)
		}
		if _, called := calls.Load(name); !called {
			t.Errorf("transform not called for %s", name)
		}
		// A failed transform caches the object as it came.
		if wantManaged := name != "ok"; (obj.(*corev1.ConfigMap).ManagedFields != nil) != wantManaged {
			t.Errorf("%s: managedFields %v", name, obj.(*corev1.ConfigMap).ManagedFields)
		}
	}
}

func TestSetNamespacesScopesPerNamespace(t *testing.T) {
	f := NewFactory(client{}, 0)
	f.SetNamespaces([]string{"b", "a", "b"})
	if f.Namespace() != "" || !reflect.DeepEqual(f.Namespaces(), []string{"a", "b"}) {
		t.Fatalf("Namespace %q, Namespaces %v; want \"\" and [a b]", f.Namespace(), f.Namespaces())
	}
	var built []string
	newFunc := func(ns string) clientcache.TypedSharedIndexInformer[*corev1.ConfigMap] {
		built = append(built, ns)
		return cache.NewSharedIndexInformer[*corev1.ConfigMap](&cache.ListWatch[*corev1.ConfigMap]{}, 0, nil)
	}
	inf := PerNamespace(f, f.Namespace(), newFunc)
	if !reflect.DeepEqual(built, []string{"a", "b"}) {
		t.Errorf("informers built for %v, want [a b]", built)
	}
	if _, ok := inf.GetIndexer().(cache.FastIndexer[*corev1.ConfigMap]); !ok {
		t.Errorf("the informer of several namespaces has a %T indexer, not a fast one", inf.GetIndexer())
	}

	f.SetNamespaces([]string{"a"})
	built = nil
	PerNamespace(f, f.Namespace(), newFunc)
	if f.Namespace() != "a" || f.Namespaces() != nil || !reflect.DeepEqual(built, []string{"a"}) {
		t.Errorf("one namespace: Namespace %q, Namespaces %v, built %v; want a, nil, [a]", f.Namespace(), f.Namespaces(), built)
	}
	f.SetNamespaces(nil)
	built = nil
	PerNamespace(f, f.Namespace(), newFunc)
	if f.Namespace() != "" || !reflect.DeepEqual(built, []string{""}) {
		t.Errorf("no namespaces: Namespace %q, built %v; want \"\" and [\"\"]", f.Namespace(), built)
	}
}
