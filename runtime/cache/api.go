// Package cache is ctrlgen's informer machinery: a Reflector lists and
// watches the apiserver and feeds a DeltaFIFO, whose deltas update a
// thread-safe Indexer and fan out to one processorListener per handler.
//
// The API is typed: a SharedIndexInformer[*v1.Foo] hands *v1.Foo to its
// handlers, and a delete handler always receives the last known object, so
// user code never type-asserts tombstones.
package cache

import (
	"context"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// Object is what an informer caches: a pointer to an API type such as
// *v1.ConfigMap.
type Object interface {
	comparable
	runtime.Object
	metav1.Object
}

// ObjectName is the cache key of an object: its namespace (empty for
// cluster-scoped objects) and name.
type ObjectName struct {
	Namespace string
	Name      string
}

// NewObjectName returns the key of the object called name in namespace.
func NewObjectName(namespace, name string) ObjectName {
	return ObjectName{Namespace: namespace, Name: name}
}

// MetaObjectName returns the key of obj.
func MetaObjectName(obj metav1.Object) ObjectName {
	return ObjectName{Namespace: obj.GetNamespace(), Name: obj.GetName()}
}

// String returns "namespace/name", or "name" when there is no namespace.
func (n ObjectName) String() string {
	if n.Namespace == "" {
		return n.Name
	}
	return n.Namespace + "/" + n.Name
}

// Parts returns the namespace and name.
func (n ObjectName) Parts() (namespace, name string) { return n.Namespace, n.Name }

// ListPage is one page of a List call.
type ListPage[T any] struct {
	Items           []T
	ResourceVersion string
	Continue        string
}

// ListerWatcher lists and watches one resource. Generated code implements it
// over a typed client, so the Reflector needs no reflection to unpack lists.
type ListerWatcher[T Object] interface {
	List(ctx context.Context, opts metav1.ListOptions) (ListPage[T], error)
	Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
}

// ListWatch implements ListerWatcher with two functions.
type ListWatch[T Object] struct {
	ListFunc  func(ctx context.Context, opts metav1.ListOptions) (ListPage[T], error)
	WatchFunc func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
}

func (lw *ListWatch[T]) List(ctx context.Context, opts metav1.ListOptions) (ListPage[T], error) {
	return lw.ListFunc(ctx, opts)
}

func (lw *ListWatch[T]) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	return lw.WatchFunc(ctx, opts)
}

// Pointers returns pointers to the elements of items, without copying them.
// It turns a typed list's Items into what a ListPage carries.
func Pointers[E any](items []E) []*E {
	out := make([]*E, len(items))
	for i := range items {
		out[i] = &items[i]
	}
	return out
}

// ResourceEventHandler receives an informer's notifications. Calls for one
// handler are made from a single goroutine, in order.
type ResourceEventHandler[T any] interface {
	// OnAdd is called for a new object. isInInitialList is true for objects
	// from the initial list, and for the cache replayed to a handler added
	// after the informer started.
	OnAdd(obj T, isInInitialList bool)
	// OnUpdate is called for a change, and with oldObj == newObj's state on
	// a resync.
	OnUpdate(oldObj, newObj T)
	// OnDelete is called with the last known state of a deleted object.
	// finalStateUnknown is true when the delete was inferred from a relist,
	// so obj may be older than the object's state when it was deleted.
	OnDelete(obj T, finalStateUnknown bool)
}

// ResourceEventHandlerFuncs adapts functions to ResourceEventHandler; nil
// functions are skipped.
type ResourceEventHandlerFuncs[T any] struct {
	AddFunc    func(obj T, isInInitialList bool)
	UpdateFunc func(oldObj, newObj T)
	DeleteFunc func(obj T, finalStateUnknown bool)
}

func (f ResourceEventHandlerFuncs[T]) OnAdd(obj T, isInInitialList bool) {
	if f.AddFunc != nil {
		f.AddFunc(obj, isInInitialList)
	}
}

func (f ResourceEventHandlerFuncs[T]) OnUpdate(oldObj, newObj T) {
	if f.UpdateFunc != nil {
		f.UpdateFunc(oldObj, newObj)
	}
}

func (f ResourceEventHandlerFuncs[T]) OnDelete(obj T, finalStateUnknown bool) {
	if f.DeleteFunc != nil {
		f.DeleteFunc(obj, finalStateUnknown)
	}
}

// FilteringResourceEventHandler passes on only the notifications about
// objects that FilterFunc accepts. An update that moves an object into or out
// of the filter becomes an add or a delete.
type FilteringResourceEventHandler[T any] struct {
	FilterFunc func(obj T) bool
	Handler    ResourceEventHandler[T]
}

func (f FilteringResourceEventHandler[T]) OnAdd(obj T, isInInitialList bool) {
	if f.FilterFunc(obj) {
		f.Handler.OnAdd(obj, isInInitialList)
	}
}

func (f FilteringResourceEventHandler[T]) OnUpdate(oldObj, newObj T) {
	was, is := f.FilterFunc(oldObj), f.FilterFunc(newObj)
	switch {
	case was && is:
		f.Handler.OnUpdate(oldObj, newObj)
	case !was && is:
		f.Handler.OnAdd(newObj, false)
	case was && !is:
		f.Handler.OnDelete(oldObj, false)
	}
}

func (f FilteringResourceEventHandler[T]) OnDelete(obj T, finalStateUnknown bool) {
	if f.FilterFunc(obj) {
		f.Handler.OnDelete(obj, finalStateUnknown)
	}
}

// HandlerOptions tune one handler registration.
type HandlerOptions struct {
	// Name labels the handler's metrics; defaults to its position.
	Name string
	// ResyncPeriod asks for a resync notification of every cached object at
	// this interval; zero means none. It is rounded up to the informer's
	// resync check period.
	ResyncPeriod *time.Duration
}

// ResourceEventHandlerRegistration is returned by AddEventHandler.
type ResourceEventHandlerRegistration interface {
	// HasSynced is true once the informer has synced and this handler has
	// been given every object of the initial list (or the cache replay).
	HasSynced() bool
	// Backlog is how many notifications wait in the handler's buffer.
	Backlog() int
	// Name is HandlerOptions.Name, or the handler's position.
	Name() string
}

// InformerSynced reports whether an informer or a handler has synced.
type InformerSynced func() bool

// Informer is the part of a SharedIndexInformer that does not depend on its
// type, so that a factory can hold informers of many kinds.
type Informer interface {
	// Run lists and watches until ctx is done. It returns once the informer
	// has stopped; calling it twice has no effect.
	Run(ctx context.Context)
	// HasSynced is true once the initial list has been delivered to the
	// Indexer.
	HasSynced() bool
	// LastSyncResourceVersion is the resourceVersion last seen from the
	// apiserver.
	LastSyncResourceVersion() string
	// IsStopped reports whether Run has returned.
	IsStopped() bool
	// ExampleObject is a zero object of the informer's type.
	ExampleObject() runtime.Object
	// ListObjects returns the cached objects, untyped, for generic listers.
	ListObjects() []runtime.Object
	// GetObject returns one cached object, untyped.
	GetObject(key ObjectName) (runtime.Object, bool)
	// Len is the number of cached objects.
	Len() int
	// Description names the informer: SharedIndexInformerOptions'
	// ObjectDescription, by default the object's Go type.
	Description() string
	// HandlerRegistrations are the current handlers, for metrics.
	HandlerRegistrations() []ResourceEventHandlerRegistration
}

// WatchErrorHandler is called for every error that ends a list or a watch.
type WatchErrorHandler func(ctx context.Context, err error)

// TransformFunc rewrites an object before it is cached, e.g. to drop
// managedFields. It may modify obj in place.
type TransformFunc[T any] func(obj T) T

// SharedIndexInformer shares one Reflector, DeltaFIFO and Indexer among
// many handlers.
type SharedIndexInformer[T Object] interface {
	Informer
	AddEventHandler(handler ResourceEventHandler[T], opts ...HandlerOptions) (ResourceEventHandlerRegistration, error)
	RemoveEventHandler(reg ResourceEventHandlerRegistration) error
	GetIndexer() Indexer[T]
	GetStore() Store[T]
	// AddIndexers adds index functions; only before Run.
	AddIndexers(indexers Indexers[T]) error
	// SetTransform sets the transform; only before Run.
	SetTransform(f TransformFunc[T]) error
	// SetWatchErrorHandler sets the handler; only before Run.
	SetWatchErrorHandler(h WatchErrorHandler) error
}

// WaitForCacheSync waits until every check is true or ctx is done. It
// reports whether all synced.
func WaitForCacheSync(ctx context.Context, synced ...InformerSynced) bool {
	return waitFor(ctx, synced)
}
