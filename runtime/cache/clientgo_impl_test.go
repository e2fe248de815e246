package cache_test

// The two implementations of client-go's tools/cache interfaces that the
// scenarios of clientgo_scenarios_test.go run on: client-go's own and
// ctrlgen's. A scenario is a function of an impl; it sees an informer, an
// indexer or a DeltaFIFO through client-go's interface types only (and
// deltaQueue, which reduces the two DeltaFIFOs to what Pop hands over), so
// that what it checks is what a user of client-go's API sees. Both consume
// the same fake apiserver (cachetest.Server), client-go's through
// clientGoLW. A scenario that fails on client-go is a wrong test.

import (
	"context"
	"errors"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	clientcache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/watchlist"
	"k8s.io/utils/clock"

	"github.com/ctrlgen/ctrlgen/runtime/cache"
)

// typedInformer is what a scenario sees of an informer: client-go's
// TypedSharedIndexInformer, which includes SharedIndexInformer.
type typedInformer = clientcache.TypedSharedIndexInformer[*corev1.ConfigMap]

// informerOptions are the options both informers take.
type informerOptions struct {
	resync   time.Duration
	indexers clientcache.Indexers
	// clock times the resync checks and backoffs; only ctrlgen's informer
	// takes one (see impl.clock).
	clock clock.Clock
}

// impl is one implementation of client-go's tools/cache interfaces.
type impl struct {
	name string
	// newInformer returns an informer over lw, not started.
	newInformer func(lw cache.ListerWatcher[*corev1.ConfigMap], opts informerOptions) typedInformer
	// newIndexer returns an empty indexer, keyed as an informer's is.
	newIndexer func(indexers clientcache.Indexers) clientcache.Indexer
	// newDeltaFIFO returns a DeltaFIFO as an informer would build it, over
	// known, which newIndexer returned.
	newDeltaFIFO func(known clientcache.Indexer) deltaQueue
	// clock is whether newInformer honours informerOptions.clock:
	// client-go's informer takes no clock through its API.
	clock bool
}

var clientGoImpl = impl{
	name: "client-go",
	newInformer: func(lw cache.ListerWatcher[*corev1.ConfigMap], opts informerOptions) typedInformer {
		inf := clientcache.NewSharedIndexInformerWithOptions(clientGoLW{lw}, &corev1.ConfigMap{}, clientcache.SharedIndexInformerOptions{
			ResyncPeriod: opts.resync,
			Indexers:     opts.indexers,
		})
		return clientcache.NewTypedSharedIndexInformer[*corev1.ConfigMap](inf)
	},
	newIndexer: func(indexers clientcache.Indexers) clientcache.Indexer {
		return clientcache.NewIndexer(clientcache.DeletionHandlingMetaNamespaceKeyFunc, indexers)
	},
	newDeltaFIFO: func(known clientcache.Indexer) deltaQueue {
		return clientGoFIFO{clientcache.NewDeltaFIFOWithOptions(clientcache.DeltaFIFOOptions{
			KnownObjects:          known,
			EmitDeltaTypeReplaced: true,
		})}
	},
}

var ctrlgenImpl = impl{
	name: "ctrlgen",
	newInformer: func(lw cache.ListerWatcher[*corev1.ConfigMap], opts informerOptions) typedInformer {
		o := cache.SharedIndexInformerOptions{ResyncPeriod: opts.resync, Indexers: opts.indexers}
		o.Reflector.Backoff = fastBackoff
		o.Reflector.Clock = opts.clock
		return cache.NewSharedIndexInformerWithOptions[*corev1.ConfigMap](lw, o)
	},
	newIndexer: func(indexers clientcache.Indexers) clientcache.Indexer {
		return cache.NewIndexer[*corev1.ConfigMap](indexers)
	},
	newDeltaFIFO: func(known clientcache.Indexer) deltaQueue {
		return ctrlgenFIFO{cache.NewDeltaFIFO[*corev1.ConfigMap](known.(cache.KnownObjects[*corev1.ConfigMap]), nil)}
	},
	clock: true,
}

var impls = []impl{clientGoImpl, ctrlgenImpl}

// onBoth runs scenario as the subtests client-go and ctrlgen.
func onBoth(t *testing.T, scenario func(t *testing.T, im impl)) {
	t.Helper()
	for _, im := range impls {
		t.Run(im.name, func(t *testing.T) { scenario(t, im) })
	}
}

// needsClock skips a scenario that times resyncs with a fake clock on an
// informer that takes none.
func (im impl) needsClock(t *testing.T) {
	t.Helper()
	if !im.clock {
		t.Skipf("%s's informer takes no clock through its API: the scenario needs a fake one", im.name)
	}
}

// start builds an informer over s's ListerWatcher (as s is configured
// now), runs setup on it, and runs it until the returned cancel or the
// end of the test, which waits for Run to return.
func (im impl) start(t *testing.T, s *server, opts informerOptions, setup func(typedInformer)) (typedInformer, context.CancelFunc) {
	t.Helper()
	inf := im.newInformer(s.ListerWatcher(), opts)
	if setup != nil {
		setup(inf)
	}
	return inf, runUntilCleanup(t, inf)
}

// clientGoLW is client-go's ListerWatcher over a ctrlgen one: a page
// becomes a ConfigMapList, and whether the client can stream initial lists
// is passed on.
type clientGoLW struct {
	lw cache.ListerWatcher[*corev1.ConfigMap]
}

var _ clientcache.ListerWatcherWithContext = clientGoLW{}
var _ clientcache.ListerWatcher = clientGoLW{}

func (a clientGoLW) ListWithContext(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	page, err := a.lw.List(ctx, opts)
	if err != nil {
		return nil, err
	}
	list := &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: page.ResourceVersion, Continue: page.Continue}}
	for _, o := range page.Items {
		list.Items = append(list.Items, *o)
	}
	return list, nil
}

func (a clientGoLW) WatchWithContext(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	return a.lw.Watch(ctx, opts)
}

func (a clientGoLW) List(opts metav1.ListOptions) (runtime.Object, error) {
	return a.ListWithContext(context.Background(), opts)
}

func (a clientGoLW) Watch(opts metav1.ListOptions) (watch.Interface, error) {
	return a.WatchWithContext(context.Background(), opts)
}

func (a clientGoLW) IsWatchListSemanticsUnSupported() bool {
	return watchlist.DoesClientNotSupportWatchListSemantics(a.lw)
}

// handlerKinds runs a test once with each kind of client-go handler:
// untyped, typed through the informer's own AddTypedEventHandler, and
// typed through client-go's wrapper of the untyped informer.
var handlerKinds = []struct {
	name string
	add  func(t *testing.T, inf typedInformer, r *recorder, opts ...clientcache.HandlerOptions) clientcache.ResourceEventHandlerRegistration
}{
	{"untyped", func(t *testing.T, inf typedInformer, r *recorder, opts ...clientcache.HandlerOptions) clientcache.ResourceEventHandlerRegistration {
		t.Helper()
		var o clientcache.HandlerOptions
		if len(opts) > 0 {
			o = opts[0]
		}
		reg, err := inf.AddEventHandlerWithOptions(r.untyped(), o)
		if err != nil {
			t.Fatal(err)
		}
		return reg
	}},
	{"typed", func(t *testing.T, inf typedInformer, r *recorder, opts ...clientcache.HandlerOptions) clientcache.ResourceEventHandlerRegistration {
		t.Helper()
		reg, err := inf.AddTypedEventHandler(r.typed(), opts...)
		if err != nil {
			t.Fatal(err)
		}
		return reg
	}},
	{"client-go typed wrapper", func(t *testing.T, inf typedInformer, r *recorder, opts ...clientcache.HandlerOptions) clientcache.ResourceEventHandlerRegistration {
		t.Helper()
		reg, err := clientcache.NewTypedSharedIndexInformer[*corev1.ConfigMap](inf).AddTypedEventHandler(r.typed(), opts...)
		if err != nil {
			t.Fatal(err)
		}
		return reg
	}},
}

// poppedDelta is one delta as Pop hands it over, in either DeltaFIFO.
type poppedDelta struct {
	Type string // Added, Updated, Deleted, Replaced, Sync
	RV   string
	// Tombstone is whether the object came as a DeletedFinalStateUnknown
	// (client-go) or with FinalStateUnknown set (ctrlgen).
	Tombstone bool
}

// popped is what one Pop hands over for one key.
type popped struct {
	Key    string
	Deltas []poppedDelta
}

// deltaQueue is a DeltaFIFO as a Reflector feeds it and an informer pops
// it.
type deltaQueue interface {
	Add(obj *corev1.ConfigMap) error
	Update(obj *corev1.ConfigMap) error
	Delete(obj *corev1.ConfigMap) error
	Replace(list []*corev1.ConfigMap, resourceVersion string) error
	// closeAndPopAll closes the queue and pops every queued key, in queue
	// order, as an informer's Pop loop does until the queue is closed.
	closeAndPopAll(t *testing.T) []popped
}

type clientGoFIFO struct{ f *clientcache.DeltaFIFO }

func (q clientGoFIFO) Add(obj *corev1.ConfigMap) error    { return q.f.Add(obj) }
func (q clientGoFIFO) Update(obj *corev1.ConfigMap) error { return q.f.Update(obj) }
func (q clientGoFIFO) Delete(obj *corev1.ConfigMap) error { return q.f.Delete(obj) }

func (q clientGoFIFO) Replace(list []*corev1.ConfigMap, rv string) error {
	objs := make([]any, len(list))
	for i, o := range list {
		objs[i] = o
	}
	return q.f.Replace(objs, rv)
}

func (q clientGoFIFO) closeAndPopAll(t *testing.T) []popped {
	t.Helper()
	q.f.Close()
	var out []popped
	for {
		_, err := q.f.Pop(func(obj any, _ bool) error {
			deltas := obj.(clientcache.Deltas)
			var p popped
			for _, d := range deltas {
				o, tomb := d.Object, false
				if dfsu, ok := o.(clientcache.DeletedFinalStateUnknown); ok {
					o, tomb = dfsu.Obj, true
					p.Key = dfsu.Key
				} else {
					p.Key = cache.MetaObjectName(o.(*corev1.ConfigMap)).String()
				}
				p.Deltas = append(p.Deltas, poppedDelta{Type: string(d.Type), RV: o.(*corev1.ConfigMap).ResourceVersion, Tombstone: tomb})
			}
			out = append(out, p)
			return nil
		})
		if errors.Is(err, clientcache.ErrFIFOClosed) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

type ctrlgenFIFO struct {
	f *cache.DeltaFIFO[*corev1.ConfigMap]
}

func (q ctrlgenFIFO) Add(obj *corev1.ConfigMap) error    { return q.f.Add(obj) }
func (q ctrlgenFIFO) Update(obj *corev1.ConfigMap) error { return q.f.Update(obj) }
func (q ctrlgenFIFO) Delete(obj *corev1.ConfigMap) error { return q.f.Delete(obj) }
func (q ctrlgenFIFO) Replace(list []*corev1.ConfigMap, rv string) error {
	return q.f.Replace(list, rv)
}

func (q ctrlgenFIFO) closeAndPopAll(t *testing.T) []popped {
	t.Helper()
	q.f.Close()
	var out []popped
	for {
		err := q.f.Pop(func(key cache.ObjectName, deltas cache.Deltas[*corev1.ConfigMap], _ bool) {
			p := popped{Key: key.String()}
			for _, d := range deltas {
				p.Deltas = append(p.Deltas, poppedDelta{Type: d.Type.String(), RV: d.Object.ResourceVersion, Tombstone: d.FinalStateUnknown})
			}
			out = append(out, p)
		})
		if errors.Is(err, cache.ErrFIFOClosed) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}
