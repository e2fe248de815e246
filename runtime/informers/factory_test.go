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
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/ctrlgen/ctrlgen/runtime/cache"
)

// stubInformer counts Run calls and runs until its context is done.
type stubInformer struct {
	cache.Informer
	runs    atomic.Int32
	running chan struct{} // closed when Run starts
	synced  atomic.Bool
	resync  time.Duration
}

func newStub(resync time.Duration) *stubInformer {
	return &stubInformer{running: make(chan struct{}), resync: resync}
}

func (s *stubInformer) Run(ctx context.Context) {
	if s.runs.Add(1) == 1 {
		close(s.running)
	}
	<-ctx.Done()
}

func (s *stubInformer) HasSynced() bool { return s.synced.Load() }

type client struct{}

func TestInformerForSharesAndResyncs(t *testing.T) {
	f := NewFactory(client{}, time.Minute, WithCustomResyncConfig(map[metav1.Object]time.Duration{&corev1.Secret{}: time.Hour}))
	var built int
	newStubFunc := func(_ client, resync time.Duration) cache.Informer { built++; return newStub(resync) }
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
}

func TestStartWaitShutdown(t *testing.T) {
	f := NewFactory(client{}, 0)
	cm := f.InformerFor(&corev1.ConfigMap{}, func(client, time.Duration) cache.Informer { return newStub(0) }).(*stubInformer)
	ctx, cancel := context.WithCancel(context.Background())
	f.StartWithContext(ctx)
	f.StartWithContext(ctx) // no second Run
	<-cm.running

	// An informer asked for after Start runs at the next Start only.
	secret := f.InformerFor(&corev1.Secret{}, func(client, time.Duration) cache.Informer { return newStub(0) }).(*stubInformer)
	if n := secret.runs.Load(); n != 0 {
		t.Fatalf("informer added after Start ran %d times before Start", n)
	}
	cm.synced.Store(true)
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

	done := make(chan struct{})
	go func() { f.Shutdown(); close(done) }()
	cancel()
	<-done
	if cm.runs.Load() != 1 || secret.runs.Load() != 1 {
		t.Errorf("runs: %d, %d; want 1 each", cm.runs.Load(), secret.runs.Load())
	}

	// After Shutdown, Start starts nothing.
	late := f.InformerFor(&corev1.Pod{}, func(client, time.Duration) cache.Informer { return newStub(0) }).(*stubInformer)
	f.StartWithContext(context.Background())
	f.Shutdown()
	if late.runs.Load() != 0 {
		t.Error("Start after Shutdown ran an informer")
	}
}

func TestOptions(t *testing.T) {
	tweak := func(o *metav1.ListOptions) { o.LabelSelector = "a=b" }
	f := NewFactory(client{}, 0, WithNamespace("ns"), WithTweakListOptions(tweak))
	if f.Namespace() != "ns" {
		t.Errorf("Namespace() = %q", f.Namespace())
	}
	var o metav1.ListOptions
	f.TweakListOptions()(&o)
	if o.LabelSelector != "a=b" {
		t.Errorf("TweakListOptions did not apply")
	}
	if NewFactory(client{}, 0).Namespace() != metav1.NamespaceAll {
		t.Error("default namespace is not all")
	}
}

// listWatch serves a fixed list and a watch that never sends.
func listWatch(items ...corev1.ConfigMap) *cache.ListWatch[*corev1.ConfigMap] {
	return &cache.ListWatch[*corev1.ConfigMap]{
		ListFunc: func(context.Context, metav1.ListOptions) (cache.ListPage[*corev1.ConfigMap], error) {
			return cache.ListPage[*corev1.ConfigMap]{Items: cache.Pointers(items), ResourceVersion: "1"}, nil
		},
		WatchFunc: func(context.Context, metav1.ListOptions) (watch.Interface, error) {
			return watch.NewFake(), nil
		},
	}
}

func TestForAppliesTransform(t *testing.T) {
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
	var f SharedInformerFactory[client] = struct{ *Factory[client] }{NewFactory(client{}, 0, WithTransform(transform))}
	managed := []metav1.ManagedFieldsEntry{{Manager: "m"}}
	items := []corev1.ConfigMap{
		{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "ok", ManagedFields: managed}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "fails", ManagedFields: managed}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "retypes", ManagedFields: managed}},
	}
	newInformer := func(_ client, resync time.Duration) cache.SharedIndexInformer[*corev1.ConfigMap] {
		return cache.NewSharedIndexInformer(listWatch(items...), resync, nil)
	}
	informer := For(f, newInformer)
	if For(f, newInformer) != informer {
		t.Fatal("For built a second informer for the type")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx, informer.HasSynced) {
		t.Fatal("no sync")
	}
	for _, name := range []string{"ok", "fails", "retypes"} {
		obj, ok, _ := informer.GetIndexer().GetByKey(cache.NewObjectName("ns", name))
		if !ok {
			t.Fatalf("%s not cached", name)
		}
		if _, called := calls.Load(name); !called {
			t.Errorf("transform not called for %s", name)
		}
		// A failed transform caches the object as it came.
		if wantManaged := name != "ok"; (obj.ManagedFields != nil) != wantManaged {
			t.Errorf("%s: managedFields %v", name, obj.ManagedFields)
		}
	}
}

func TestGenericInformer(t *testing.T) {
	informer := cache.NewSharedIndexInformer(listWatch(corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}}), 0, nil)
	g := NewGenericInformer(informer, corev1.Resource("configmaps"))
	if g.Informer() != cache.Informer(informer) {
		t.Error("Informer() is not the informer")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go informer.Run(ctx)
	if !cache.WaitForCacheSync(ctx, informer.HasSynced) {
		t.Fatal("no sync")
	}
	obj, err := g.Lister().ByNamespace("ns").Get("a")
	if err != nil || obj.(runtime.Object).(*corev1.ConfigMap).Name != "a" {
		t.Errorf("Get = %v, %v", obj, err)
	}
}
