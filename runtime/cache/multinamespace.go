package cache

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/util/wait"
	clientcache "k8s.io/client-go/tools/cache"
)

// NewMultiNamespaceInformer returns one informer over the informers of
// one resource in several namespaces, each listing and watching its own,
// as controller-runtime's multi-namespace cache does: a process allowed
// to read those namespaces only (a Role in each) caches them as one.
//
//   - its indexer reads every namespace's: List and the indexes give the
//     union, Get and GetByKey look in the object's namespace only, so a
//     key of a namespace not watched is not found;
//   - a handler is added to every namespace's informer, and is called by
//     one of them at a time: it sees one stream of events, as it would
//     from one informer;
//   - it has synced, and so has a handler, when every namespace's has;
//   - Run runs them all; transforms, watch error handlers and indexers
//     are set on each.
//
// LastSyncResourceVersion is empty: resource versions of separate lists
// and watches say nothing about one another. The indexer refuses writes
// from outside (Add, Update, Delete, Replace), as nothing but the
// informers should write their caches. byNamespace must not be empty, and
// the informers must not have started.
func NewMultiNamespaceInformer[T Object](byNamespace map[string]clientcache.TypedSharedIndexInformer[T]) SharedIndexInformer[T] {
	m := &multiNamespaceInformer[T]{byNamespace: byNamespace}
	for ns := range byNamespace {
		m.namespaces = append(m.namespaces, ns)
	}
	slices.Sort(m.namespaces)
	m.indexer = &multiNamespaceIndexer[T]{informer: m}
	return m
}

type multiNamespaceInformer[T Object] struct {
	namespaces  []string // sorted
	byNamespace map[string]clientcache.TypedSharedIndexInformer[T]
	indexer     *multiNamespaceIndexer[T]

	lock     sync.Mutex
	handlers []*multiRegistration
}

func (m *multiNamespaceInformer[T]) each(f func(clientcache.TypedSharedIndexInformer[T]) error) error {
	var errs []error
	for _, ns := range m.namespaces {
		if err := f(m.byNamespace[ns]); err != nil {
			errs = append(errs, fmt.Errorf("namespace %s: %w", ns, err))
		}
	}
	return errors.Join(errs...)
}

func (m *multiNamespaceInformer[T]) Run(stopCh <-chan struct{}) {
	m.RunWithContext(wait.ContextForChannel(stopCh))
}

// RunWithContext runs every namespace's informer until ctx is done, and
// returns once they all have.
func (m *multiNamespaceInformer[T]) RunWithContext(ctx context.Context) {
	var wg sync.WaitGroup
	for _, ns := range m.namespaces {
		inf := m.byNamespace[ns]
		wg.Go(func() { inf.RunWithContext(ctx) })
	}
	wg.Wait()
}

func (m *multiNamespaceInformer[T]) HasSynced() bool {
	for _, inf := range m.byNamespace {
		if !inf.HasSynced() {
			return false
		}
	}
	return true
}

func (m *multiNamespaceInformer[T]) HasSyncedChecker() clientcache.DoneChecker {
	checkers := make([]clientcache.DoneChecker, 0, len(m.namespaces))
	for _, ns := range m.namespaces {
		checkers = append(checkers, m.byNamespace[ns].HasSyncedChecker())
	}
	return newAllDone(m.Description(), checkers)
}

func (m *multiNamespaceInformer[T]) LastSyncResourceVersion() string { return "" }

func (m *multiNamespaceInformer[T]) IsStopped() bool {
	for _, inf := range m.byNamespace {
		if !inf.IsStopped() {
			return false
		}
	}
	return true
}

func (m *multiNamespaceInformer[T]) AddEventHandler(h clientcache.ResourceEventHandler) (clientcache.ResourceEventHandlerRegistration, error) {
	return m.AddEventHandlerWithOptions(h, clientcache.HandlerOptions{})
}

func (m *multiNamespaceInformer[T]) AddEventHandlerWithResyncPeriod(h clientcache.ResourceEventHandler, resyncPeriod time.Duration) (clientcache.ResourceEventHandlerRegistration, error) {
	return m.AddEventHandlerWithOptions(h, clientcache.HandlerOptions{ResyncPeriod: &resyncPeriod})
}

func (m *multiNamespaceInformer[T]) AddEventHandlerWithOptions(h clientcache.ResourceEventHandler, opts clientcache.HandlerOptions) (clientcache.ResourceEventHandlerRegistration, error) {
	locked := &lockedHandler[T]{untyped: h, name: handlerName(h)}
	return m.addHandler(func(inf clientcache.TypedSharedIndexInformer[T]) (clientcache.ResourceEventHandlerRegistration, error) {
		return inf.AddEventHandlerWithOptions(untypedLocked[T]{locked}, opts)
	})
}

func (m *multiNamespaceInformer[T]) AddTypedEventHandler(h clientcache.TypedResourceEventHandler[T], opts ...clientcache.HandlerOptions) (clientcache.ResourceEventHandlerRegistration, error) {
	locked := &lockedHandler[T]{typed: h, name: handlerName(h)}
	return m.addHandler(func(inf clientcache.TypedSharedIndexInformer[T]) (clientcache.ResourceEventHandlerRegistration, error) {
		return inf.AddTypedEventHandler(typedLocked[T]{locked}, opts...)
	})
}

// addHandler adds a handler to every namespace's informer; if one
// refuses, it is removed from those that took it.
func (m *multiNamespaceInformer[T]) addHandler(add func(clientcache.TypedSharedIndexInformer[T]) (clientcache.ResourceEventHandlerRegistration, error)) (clientcache.ResourceEventHandlerRegistration, error) {
	reg := &multiRegistration{name: m.Description()}
	for _, ns := range m.namespaces {
		inf := m.byNamespace[ns]
		r, err := add(inf)
		if err != nil {
			_ = m.remove(reg)
			return nil, fmt.Errorf("namespace %s: %w", ns, err)
		}
		reg.parts = append(reg.parts, registrationPart{inf, r})
	}
	m.lock.Lock()
	m.handlers = append(m.handlers, reg)
	m.lock.Unlock()
	return reg, nil
}

func (m *multiNamespaceInformer[T]) RemoveEventHandler(reg clientcache.ResourceEventHandlerRegistration) error {
	r, ok := reg.(*multiRegistration)
	if !ok {
		return fmt.Errorf("%s: invalid registration type %T", m.Description(), reg)
	}
	m.lock.Lock()
	m.handlers = slices.DeleteFunc(m.handlers, func(h *multiRegistration) bool { return h == r })
	m.lock.Unlock()
	return m.remove(r)
}

func (m *multiNamespaceInformer[T]) remove(r *multiRegistration) error {
	var errs []error
	for _, p := range r.parts {
		errs = append(errs, p.informer.RemoveEventHandler(p.reg))
	}
	return errors.Join(errs...)
}

// HandlerRegistrations returns one registration per handler, whose
// backlog is the sum of the namespaces'.
func (m *multiNamespaceInformer[T]) HandlerRegistrations() []Registration {
	m.lock.Lock()
	defer m.lock.Unlock()
	out := make([]Registration, len(m.handlers))
	for i, h := range m.handlers {
		out[i] = h
	}
	return out
}

func (m *multiNamespaceInformer[T]) Len() int { return m.indexer.Len() }

// Description is the first namespace's informer's, which names the
// resource: the informers of one resource share it.
func (m *multiNamespaceInformer[T]) Description() string {
	if d, ok := m.byNamespace[m.namespaces[0]].(interface{ Description() string }); ok {
		return d.Description()
	}
	var zero T
	return fmt.Sprintf("%T", zero)
}

func (m *multiNamespaceInformer[T]) GetStore() clientcache.Store                  { return m.indexer }
func (m *multiNamespaceInformer[T]) GetIndexer() clientcache.Indexer              { return m.indexer }
func (m *multiNamespaceInformer[T]) GetTypedIndexer() clientcache.TypedIndexer[T] { return m.indexer }
func (m *multiNamespaceInformer[T]) FastIndexer() FastIndexer[T]                  { return m.indexer }

func (m *multiNamespaceInformer[T]) GetController() clientcache.Controller {
	return multiController[T]{m}
}

type multiController[T Object] struct{ m *multiNamespaceInformer[T] }

func (c multiController[T]) Run(<-chan struct{})                       {}
func (c multiController[T]) RunWithContext(context.Context)            {}
func (c multiController[T]) HasSynced() bool                           { return c.m.HasSynced() }
func (c multiController[T]) HasSyncedChecker() clientcache.DoneChecker { return c.m.HasSyncedChecker() }
func (c multiController[T]) LastSyncResourceVersion() string           { return "" }

func (m *multiNamespaceInformer[T]) AddIndexers(indexers clientcache.Indexers) error {
	return m.each(func(inf clientcache.TypedSharedIndexInformer[T]) error { return inf.AddIndexers(indexers) })
}

func (m *multiNamespaceInformer[T]) AddTypedIndexers(indexers clientcache.TypedIndexers[T]) error {
	return m.AddIndexers(clientcache.TypedIndexersToIndexers(indexers))
}

func (m *multiNamespaceInformer[T]) SetTransform(f clientcache.TransformFunc) error {
	return m.each(func(inf clientcache.TypedSharedIndexInformer[T]) error { return inf.SetTransform(f) })
}

func (m *multiNamespaceInformer[T]) SetWatchErrorHandler(h clientcache.WatchErrorHandler) error {
	return m.each(func(inf clientcache.TypedSharedIndexInformer[T]) error { return inf.SetWatchErrorHandler(h) })
}

func (m *multiNamespaceInformer[T]) SetWatchErrorHandlerWithContext(h clientcache.WatchErrorHandlerWithContext) error {
	return m.each(func(inf clientcache.TypedSharedIndexInformer[T]) error { return inf.SetWatchErrorHandlerWithContext(h) })
}

// lockedHandler calls one handler, typed or not, for one event at a
// time, whichever namespace's informer delivers it.
type lockedHandler[T Object] struct {
	lock    sync.Mutex
	untyped clientcache.ResourceEventHandler
	typed   clientcache.TypedResourceEventHandler[T]
	name    string
}

func handlerName(h any) string {
	if n, ok := h.(interface{ Name() string }); ok {
		return n.Name()
	}
	return ""
}

type untypedLocked[T Object] struct{ h *lockedHandler[T] }

func (u untypedLocked[T]) Name() string { return u.h.name }
func (u untypedLocked[T]) OnAdd(obj any, isInInitialList bool) {
	u.h.lock.Lock()
	defer u.h.lock.Unlock()
	u.h.untyped.OnAdd(obj, isInInitialList)
}
func (u untypedLocked[T]) OnUpdate(oldObj, newObj any) {
	u.h.lock.Lock()
	defer u.h.lock.Unlock()
	u.h.untyped.OnUpdate(oldObj, newObj)
}
func (u untypedLocked[T]) OnDelete(obj any) {
	u.h.lock.Lock()
	defer u.h.lock.Unlock()
	u.h.untyped.OnDelete(obj)
}

type typedLocked[T Object] struct{ h *lockedHandler[T] }

func (t typedLocked[T]) Name() string { return t.h.name }
func (t typedLocked[T]) OnAdd(obj T, isInInitialList bool) {
	t.h.lock.Lock()
	defer t.h.lock.Unlock()
	t.h.typed.OnAdd(obj, isInInitialList)
}
func (t typedLocked[T]) OnUpdate(oldObj, newObj T) {
	t.h.lock.Lock()
	defer t.h.lock.Unlock()
	t.h.typed.OnUpdate(oldObj, newObj)
}
func (t typedLocked[T]) OnDelete(obj clientcache.DeletedObject[T]) {
	t.h.lock.Lock()
	defer t.h.lock.Unlock()
	t.h.typed.OnDelete(obj)
}

type registrationPart struct {
	informer interface {
		RemoveEventHandler(clientcache.ResourceEventHandlerRegistration) error
	}
	reg clientcache.ResourceEventHandlerRegistration
}

// multiRegistration is a handler's registrations with every namespace's
// informer.
type multiRegistration struct {
	name  string
	parts []registrationPart
}

func (r *multiRegistration) HasSynced() bool {
	for _, p := range r.parts {
		if !p.reg.HasSynced() {
			return false
		}
	}
	return true
}

func (r *multiRegistration) HasSyncedChecker() clientcache.DoneChecker {
	checkers := make([]clientcache.DoneChecker, len(r.parts))
	for i, p := range r.parts {
		checkers[i] = p.reg.HasSyncedChecker()
	}
	return newAllDone(r.name, checkers)
}

// Backlog sums the namespaces' backlogs.
func (r *multiRegistration) Backlog() int {
	n := 0
	for _, p := range r.parts {
		if b, ok := p.reg.(interface{ Backlog() int }); ok {
			n += b.Backlog()
		}
	}
	return n
}

// Name is the handler's name in the first namespace's informer.
func (r *multiRegistration) Name() string {
	if len(r.parts) > 0 {
		if n, ok := r.parts[0].reg.(interface{ Name() string }); ok {
			return n.Name()
		}
	}
	return ""
}

// allDone is done when every one of checkers is. Its channel is made,
// and a goroutine waits on the others, the first time Done is called.
type allDone struct {
	name     string
	checkers []clientcache.DoneChecker
	once     sync.Once
	done     chan struct{}
}

func newAllDone(name string, checkers []clientcache.DoneChecker) *allDone {
	return &allDone{name: name, checkers: checkers}
}

func (a *allDone) Name() string { return a.name }

func (a *allDone) Done() <-chan struct{} {
	a.once.Do(func() {
		a.done = make(chan struct{})
		go func() {
			for _, c := range a.checkers {
				<-c.Done()
			}
			close(a.done)
		}()
	})
	return a.done
}

// multiNamespaceIndexer reads the indexers of a multiNamespaceInformer's
// informers.
type multiNamespaceIndexer[T Object] struct {
	informer *multiNamespaceInformer[T]
}

var errReadOnly = errors.New("the cache of several namespaces is written by its informers only")

// in returns the indexer of namespace, or nil when it is not watched.
func (x *multiNamespaceIndexer[T]) in(namespace string) FastIndexer[T] {
	inf, ok := x.informer.byNamespace[namespace]
	if !ok {
		return nil
	}
	return FastIndexerOf[T](inf.GetIndexer())
}

func (x *multiNamespaceIndexer[T]) all() []FastIndexer[T] {
	out := make([]FastIndexer[T], len(x.informer.namespaces))
	for i, ns := range x.informer.namespaces {
		out[i] = x.in(ns)
	}
	return out
}

func (x *multiNamespaceIndexer[T]) Add(any) error               { return errReadOnly }
func (x *multiNamespaceIndexer[T]) Update(any) error            { return errReadOnly }
func (x *multiNamespaceIndexer[T]) Delete(any) error            { return errReadOnly }
func (x *multiNamespaceIndexer[T]) Replace([]any, string) error { return errReadOnly }
func (x *multiNamespaceIndexer[T]) Resync() error               { return nil }

// Bookmark does nothing and LastStoreSyncResourceVersion is empty: each
// namespace's cache has its own.
func (x *multiNamespaceIndexer[T]) Bookmark(string)                      {}
func (x *multiNamespaceIndexer[T]) LastStoreSyncResourceVersion() string { return "" }
func (x *multiNamespaceIndexer[T]) GetIndexers() clientcache.Indexers {
	return x.in(x.informer.namespaces[0]).GetIndexers()
}

func (x *multiNamespaceIndexer[T]) AddIndexers(indexers clientcache.Indexers) error {
	return x.informer.AddIndexers(indexers)
}

func (x *multiNamespaceIndexer[T]) AddTypedIndexers(indexers clientcache.TypedIndexers[T]) error {
	return x.informer.AddTypedIndexers(indexers)
}

func (x *multiNamespaceIndexer[T]) List() []any {
	var out []any
	for _, ix := range x.all() {
		out = append(out, ix.List()...)
	}
	return out
}

func (x *multiNamespaceIndexer[T]) ListKeys() []string {
	var out []string
	for _, ix := range x.all() {
		out = append(out, ix.ListKeys()...)
	}
	return out
}

func (x *multiNamespaceIndexer[T]) Get(obj any) (any, bool, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, false, err
	}
	ix := x.in(m.GetNamespace())
	if ix == nil {
		return nil, false, nil
	}
	return ix.Get(obj)
}

func (x *multiNamespaceIndexer[T]) GetByKey(key string) (any, bool, error) {
	name, err := clientcache.ParseObjectName(key)
	if err != nil {
		return nil, false, err
	}
	ix := x.in(name.Namespace)
	if ix == nil {
		return nil, false, nil
	}
	return ix.GetByKey(key)
}

// indexed returns the indexers an index lookup of obj has to ask: its
// namespace's alone for the namespace index, every one otherwise.
func (x *multiNamespaceIndexer[T]) indexed(indexName, value string) []FastIndexer[T] {
	if indexName != NamespaceIndex {
		return x.all()
	}
	if ix := x.in(value); ix != nil {
		return []FastIndexer[T]{ix}
	}
	return nil
}

func (x *multiNamespaceIndexer[T]) Index(indexName string, obj any) ([]any, error) {
	var out []any
	for _, ix := range x.all() {
		objs, err := ix.Index(indexName, obj)
		if err != nil {
			return nil, err
		}
		out = append(out, objs...)
	}
	return out, nil
}

func (x *multiNamespaceIndexer[T]) TypedIndex(indexName string, obj T) ([]T, error) {
	var out []T
	for _, ix := range x.all() {
		objs, err := ix.TypedIndex(indexName, obj)
		if err != nil {
			return nil, err
		}
		out = append(out, objs...)
	}
	return out, nil
}

func (x *multiNamespaceIndexer[T]) IndexKeys(indexName, indexedValue string) ([]string, error) {
	var out []string
	for _, ix := range x.indexed(indexName, indexedValue) {
		keys, err := ix.IndexKeys(indexName, indexedValue)
		if err != nil {
			return nil, err
		}
		out = append(out, keys...)
	}
	return out, nil
}

func (x *multiNamespaceIndexer[T]) ListIndexFuncValues(indexName string) []string {
	var out []string
	for _, ix := range x.all() {
		out = append(out, ix.ListIndexFuncValues(indexName)...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func (x *multiNamespaceIndexer[T]) ByIndex(indexName, indexedValue string) ([]any, error) {
	var out []any
	for _, ix := range x.indexed(indexName, indexedValue) {
		objs, err := ix.ByIndex(indexName, indexedValue)
		if err != nil {
			return nil, err
		}
		out = append(out, objs...)
	}
	return out, nil
}

func (x *multiNamespaceIndexer[T]) ByTypedIndex(indexName, indexedValue string) ([]T, error) {
	var out []T
	for _, ix := range x.indexed(indexName, indexedValue) {
		objs, err := ix.ByTypedIndex(indexName, indexedValue)
		if err != nil {
			return nil, err
		}
		out = append(out, objs...)
	}
	return out, nil
}

func (x *multiNamespaceIndexer[T]) GetByName(key ObjectName) (T, bool) {
	ix := x.in(key.Namespace)
	if ix == nil {
		var zero T
		return zero, false
	}
	return ix.GetByName(key)
}

func (x *multiNamespaceIndexer[T]) ListAll() []T {
	var out []T
	for _, ix := range x.all() {
		out = append(out, ix.ListAll()...)
	}
	return out
}

func (x *multiNamespaceIndexer[T]) ListNamespace(namespace string) []T {
	if ix := x.in(namespace); ix != nil {
		return ix.ListNamespace(namespace)
	}
	return nil
}

func (x *multiNamespaceIndexer[T]) ListNames() []ObjectName {
	var out []ObjectName
	for _, ix := range x.all() {
		out = append(out, ix.ListNames()...)
	}
	return out
}

func (x *multiNamespaceIndexer[T]) Len() int {
	n := 0
	for _, ix := range x.all() {
		n += ix.Len()
	}
	return n
}
