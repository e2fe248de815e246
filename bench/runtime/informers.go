package runtimebench

import (
	"context"
	"sync"
	"sync/atomic"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	cgcache "k8s.io/client-go/tools/cache"

	"github.com/ctrlgen/ctrlgen/bench/internal/widget"
	"github.com/ctrlgen/ctrlgen/runtime/cache"
)

// Informer is what the workloads need of either implementation's
// SharedIndexInformer with one handler registered.
type Informer interface {
	// Start runs the informer in a goroutine.
	Start()
	// Synced reports whether the informer has synced and the handler has
	// been given every object of the initial list.
	Synced() bool
	// Len is the number of cached objects.
	Len() int
	// Get returns a cached object.
	Get(namespace, name string) (*widget.Widget, bool)
	// ByNamespace returns the cached objects of a namespace, through the
	// namespace index.
	ByNamespace(namespace string) ([]*widget.Widget, error)
	// Fill stores the cached objects into dst, which must be long enough,
	// and returns how many there were.
	Fill(dst []*widget.Widget) int
	// Stop stops the informer and waits until Run has returned.
	Stop()
}

// InformerImpl builds an Informer over a fake apiserver: list is what List
// returns, watches what Watch returns, and h the one handler.
type InformerImpl struct {
	Name string
	New  func(list *widget.WidgetList, watches *WatchSource, h *Counter) Informer
}

// InformerImpls are the implementations compared, ours first: benchstat
// takes the first column as the baseline of its delta column.
var InformerImpls = []InformerImpl{
	{Name: "ctrlgen", New: newCtrlgenInformer},
	{Name: "ctrlgen-untyped", New: newCtrlgenUntypedInformer},
	{Name: "client-go", New: newClientGoInformer},
}

// Counter is the handler both implementations deliver to. It only counts,
// so that the benchmarks measure the machinery, and it signals when the
// expected number of adds and of updates has arrived.
type Counter struct {
	adds, initialAdds, updates, deletes atomic.Int64

	wantAdds, wantUpdates int64
	addsDone, updatesDone chan struct{}
	// each, when not nil, is sent to on every update.
	each chan struct{}
}

// NewCounter returns a handler that signals AddsDone after wantAdds adds
// and UpdatesDone after wantUpdates updates. A zero want is signalled at
// once.
func NewCounter(wantAdds, wantUpdates int) *Counter {
	c := &Counter{
		wantAdds:    int64(wantAdds),
		wantUpdates: int64(wantUpdates),
		addsDone:    make(chan struct{}),
		updatesDone: make(chan struct{}),
	}
	if wantAdds == 0 {
		close(c.addsDone)
	}
	if wantUpdates == 0 {
		close(c.updatesDone)
	}
	return c
}

func (c *Counter) onAdd(_ *widget.Widget, isInInitialList bool) {
	if isInInitialList {
		c.initialAdds.Add(1)
	}
	if c.adds.Add(1) == c.wantAdds {
		close(c.addsDone)
	}
}

func (c *Counter) onUpdate(_, _ *widget.Widget) {
	if c.updates.Add(1) == c.wantUpdates {
		close(c.updatesDone)
	}
	if c.each != nil {
		c.each <- struct{}{}
	}
}

func (c *Counter) onDelete(*widget.Widget) { c.deletes.Add(1) }

// AddsDone is closed once the wanted number of adds has been delivered.
func (c *Counter) AddsDone() <-chan struct{} { return c.addsDone }

// UpdatesDone is closed once the wanted number of updates has been
// delivered.
func (c *Counter) UpdatesDone() <-chan struct{} { return c.updatesDone }

// Counts returns the notifications delivered so far.
func (c *Counter) Counts() Counts {
	return Counts{
		Adds:        c.adds.Load(),
		InitialAdds: c.initialAdds.Load(),
		Updates:     c.updates.Load(),
		Deletes:     c.deletes.Load(),
	}
}

// Counts are the notifications a Counter received.
type Counts struct {
	Adds, InitialAdds, Updates, Deletes int64
}

// FakeWatch is a watch.Interface fed by Send. Stop does not close the
// result channel, so a Send racing with it cannot panic.
type FakeWatch struct {
	ch      chan watch.Event
	stopped chan struct{}
	once    sync.Once
}

// NewFakeWatch returns a watch whose result channel has buffer slots.
func NewFakeWatch(buffer int) *FakeWatch {
	return &FakeWatch{ch: make(chan watch.Event, buffer), stopped: make(chan struct{})}
}

func (w *FakeWatch) ResultChan() <-chan watch.Event { return w.ch }

func (w *FakeWatch) Stop() { w.once.Do(func() { close(w.stopped) }) }

// Send delivers ev, blocking while the channel is full; it reports false if
// the watch was stopped first.
func (w *FakeWatch) Send(ev watch.Event) bool {
	select {
	case w.ch <- ev:
		return true
	case <-w.stopped:
		return false
	}
}

// WatchSource answers the Watch calls of a fake ListerWatcher: the first
// gets Events, if set, and any later one (there is none unless a watch
// fails) an idle watch. It counts the List and Watch calls.
type WatchSource struct {
	Events         *FakeWatch
	lists, watches atomic.Int64
}

func (s *WatchSource) list() { s.lists.Add(1) }

func (s *WatchSource) watch() watch.Interface {
	if s.watches.Add(1) == 1 && s.Events != nil {
		return s.Events
	}
	return NewFakeWatch(0)
}

// Calls returns how many times List and Watch were called.
func (s *WatchSource) Calls() (lists, watches int64) { return s.lists.Load(), s.watches.Load() }

// runner runs an informer's Run in a goroutine and stops it.
type runner struct {
	cancel context.CancelFunc
	done   chan struct{}
}

func (r *runner) start(run func(context.Context)) {
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel, r.done = cancel, make(chan struct{})
	go func() {
		defer close(r.done)
		run(ctx)
	}()
}

func (r *runner) stop() {
	if r.cancel == nil {
		return
	}
	r.cancel()
	<-r.done
}

// ctrlgen: what a generated informer builds (see generators/testdata/…/
// informers), with one handler. Its namespace index is built in.

type ctrlgenInformer struct {
	runner
	inf cache.SharedIndexInformer[*widget.Widget]
	reg cgcache.ResourceEventHandlerRegistration
}

func newCtrlgenSharedInformer(list *widget.WidgetList, watches *WatchSource) cache.SharedIndexInformer[*widget.Widget] {
	lw := &cache.ListWatch[*widget.Widget]{
		ListFunc: func(context.Context, metav1.ListOptions) (cache.ListPage[*widget.Widget], error) {
			watches.list()
			return cache.ListPage[*widget.Widget]{
				Items:           cache.Pointers(list.Items),
				ResourceVersion: list.ResourceVersion,
				Continue:        list.Continue,
			}, nil
		},
		WatchFunc: func(context.Context, metav1.ListOptions) (watch.Interface, error) {
			return watches.watch(), nil
		},
		// As client-go's side (noWatchList): the fake serves no
		// sendInitialEvents streams, so both sides list, then watch.
		WatchListSemanticsUnsupported: true,
	}
	return cache.NewSharedIndexInformerWithOptions(lw, cache.SharedIndexInformerOptions{
		ObjectDescription: "widgets.v1.bench.ctrlgen.io",
		Indexers:          cgcache.Indexers{cgcache.NamespaceIndex: cgcache.MetaNamespaceIndexFunc},
	})
}

// newCtrlgenInformer registers a typed handler, as the generated
// controller wiring does.
func newCtrlgenInformer(list *widget.WidgetList, watches *WatchSource, h *Counter) Informer {
	inf := newCtrlgenSharedInformer(list, watches)
	reg, err := inf.AddTypedEventHandler(cgcache.TypedResourceEventHandlerDetailedFuncs[*widget.Widget]{
		AddFunc:    h.onAdd,
		UpdateFunc: h.onUpdate,
		DeleteFunc: func(d cgcache.DeletedObject[*widget.Widget]) { h.onDelete(d.OptionalObj) },
	})
	if err != nil {
		panic(err)
	}
	return &ctrlgenInformer{inf: inf, reg: reg}
}

// newCtrlgenUntypedInformer registers client-go's untyped handler, as
// existing controllers do, on ctrlgen's informer.
func newCtrlgenUntypedInformer(list *widget.WidgetList, watches *WatchSource, h *Counter) Informer {
	inf := newCtrlgenSharedInformer(list, watches)
	reg, err := inf.AddEventHandler(untypedHandler(h))
	if err != nil {
		panic(err)
	}
	return &ctrlgenInformer{inf: inf, reg: reg}
}

func (i *ctrlgenInformer) Start()       { i.start(i.inf.RunWithContext) }
func (i *ctrlgenInformer) Stop()        { i.stop() }
func (i *ctrlgenInformer) Synced() bool { return i.inf.HasSynced() && i.reg.HasSynced() }
func (i *ctrlgenInformer) Len() int     { return i.inf.Len() }

func (i *ctrlgenInformer) Get(namespace, name string) (*widget.Widget, bool) {
	return i.inf.FastIndexer().GetByName(cache.NewObjectName(namespace, name))
}

func (i *ctrlgenInformer) ByNamespace(namespace string) ([]*widget.Widget, error) {
	return i.inf.FastIndexer().ByTypedIndex(cache.NamespaceIndex, namespace)
}

func (i *ctrlgenInformer) Fill(dst []*widget.Widget) int {
	return copy(dst, i.inf.FastIndexer().ListAll())
}

// untypedHandler is client-go's untyped handler over h, as existing
// controllers write it.
func untypedHandler(h *Counter) cgcache.ResourceEventHandler {
	return cgcache.ResourceEventHandlerDetailedFuncs{
		AddFunc: func(obj any, isInInitialList bool) {
			h.onAdd(obj.(*widget.Widget), isInInitialList)
		},
		UpdateFunc: func(oldObj, newObj any) {
			h.onUpdate(oldObj.(*widget.Widget), newObj.(*widget.Widget))
		},
		DeleteFunc: func(obj any) {
			if d, ok := obj.(cgcache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			h.onDelete(obj.(*widget.Widget))
		},
	}
}

// client-go: what its generated informers build, with one handler: the
// namespace index they always pass, and a ListWatch over a typed list.

type clientGoInformer struct {
	runner
	inf cgcache.SharedIndexInformer
	reg cgcache.ResourceEventHandlerRegistration
}

// noWatchList is the client the fake ListerWatcher stands for. It says it
// does not support WatchList semantics, so that client-go's Reflector
// lists, as ctrlgen's does, instead of opening a streaming watch-list (the
// WatchListClient feature, on by default), which the fake does not serve.
type noWatchList struct{}

func (noWatchList) IsWatchListSemanticsUnSupported() bool { return true }

func newClientGoInformer(list *widget.WidgetList, watches *WatchSource, h *Counter) Informer {
	lw := cgcache.ToListWatcherWithWatchListSemantics(&cgcache.ListWatch{
		ListWithContextFunc: func(context.Context, metav1.ListOptions) (runtime.Object, error) {
			watches.list()
			return list, nil
		},
		WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) {
			return watches.watch(), nil
		},
	}, noWatchList{})
	inf := cgcache.NewSharedIndexInformer(lw, &widget.Widget{}, 0,
		cgcache.Indexers{cgcache.NamespaceIndex: cgcache.MetaNamespaceIndexFunc})
	reg, err := inf.AddEventHandler(untypedHandler(h))
	if err != nil {
		panic(err)
	}
	return &clientGoInformer{inf: inf, reg: reg}
}

func (i *clientGoInformer) Start()       { i.start(i.inf.RunWithContext) }
func (i *clientGoInformer) Stop()        { i.stop() }
func (i *clientGoInformer) Synced() bool { return i.inf.HasSynced() && i.reg.HasSynced() }
func (i *clientGoInformer) Len() int     { return len(i.inf.GetStore().ListKeys()) }

func (i *clientGoInformer) Get(namespace, name string) (*widget.Widget, bool) {
	obj, ok, _ := i.inf.GetIndexer().GetByKey(cache.NewObjectName(namespace, name).String())
	if !ok {
		return nil, false
	}
	return obj.(*widget.Widget), true
}

func (i *clientGoInformer) ByNamespace(namespace string) ([]*widget.Widget, error) {
	objs, err := i.inf.GetIndexer().ByIndex(cgcache.NamespaceIndex, namespace)
	out := make([]*widget.Widget, len(objs))
	for j, obj := range objs {
		out[j] = obj.(*widget.Widget)
	}
	return out, err
}

func (i *clientGoInformer) Fill(dst []*widget.Widget) int {
	objs := i.inf.GetStore().List()
	for j, obj := range objs {
		dst[j] = obj.(*widget.Widget)
	}
	return len(objs)
}
