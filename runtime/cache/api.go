// Package cache is ctrlgen's informer machinery: a Reflector lists and
// watches the apiserver and feeds a DeltaFIFO, whose deltas update a
// thread-safe Indexer and fan out to one processorListener per handler.
//
// Its API is client-go's: a SharedIndexInformer here implements
// k8s.io/client-go/tools/cache.SharedIndexInformer and
// TypedSharedIndexInformer[T], and its Indexer implements cache.Indexer
// and TypedIndexer[T], so code written against client-go runs on it
// unchanged. Underneath it is generic: objects are stored and delivered
// as T, keys are ObjectNames, and FastIndexer is the typed read path that
// generated listers and controllers take.
//
// It knows nothing of HTTP requests and response bodies: the Reflector
// lists and watches through a ListerWatcher and reads each watch as an
// EventStream. runtime/wire implements EventStream over an apiserver's
// watch response; RESTResource and RESTWatchStream, which the informers
// ctrlgen generates call, hand over to it.
package cache

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	clientcache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/watchlist"
)

// Object is what an informer caches: a pointer to an API type such as
// *v1.ConfigMap.
type Object interface {
	comparable
	runtime.Object
	metav1.Object
}

// ObjectName is the cache key of an object: its namespace (empty for
// cluster-scoped objects) and name. It is client-go's type.
type ObjectName = clientcache.ObjectName

// NewObjectName returns the key of the object called name in namespace.
func NewObjectName(namespace, name string) ObjectName {
	return ObjectName{Namespace: namespace, Name: name}
}

// MetaObjectName returns the key of obj.
func MetaObjectName(obj metav1.Object) ObjectName {
	return ObjectName{Namespace: obj.GetNamespace(), Name: obj.GetName()}
}

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
	// WatchStreamFunc, when set, starts the watches instead of WatchFunc,
	// as EventStreams the Reflector decodes in its own goroutine (see
	// RESTWatchStream). WatchFunc stays what Watch calls.
	WatchStreamFunc func(ctx context.Context, opts metav1.ListOptions) (EventStream[T], error)
	// WatchListSemanticsUnsupported says that WatchFunc's client cannot
	// stream an initial list (sendInitialEvents), as client-go's fake
	// clientsets cannot: a Reflector then always lists.
	WatchListSemanticsUnsupported bool
}

// IsWatchListSemanticsUnSupported is what client-go's
// watchlist.DoesClientNotSupportWatchListSemantics asks.
func (lw *ListWatch[T]) IsWatchListSemanticsUnSupported() bool {
	return lw.WatchListSemanticsUnsupported
}

// ToListWatcherWithWatchListSemantics sets lw to say whether client
// cannot stream initial lists, as client-go's function of the same name:
// client says so with an IsWatchListSemanticsUnSupported method returning
// true. It returns lw.
func ToListWatcherWithWatchListSemantics[T Object](lw *ListWatch[T], client any) *ListWatch[T] {
	lw.WatchListSemanticsUnsupported = watchlist.DoesClientNotSupportWatchListSemantics(client)
	return lw
}

func (lw *ListWatch[T]) List(ctx context.Context, opts metav1.ListOptions) (ListPage[T], error) {
	return lw.ListFunc(ctx, opts)
}

func (lw *ListWatch[T]) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	return lw.WatchFunc(ctx, opts)
}

// Pointers returns pointers to the elements of items, without copying them.
// Each pointer keeps the whole of items' array alive: not for a ListPage,
// whose objects are cached one by one (see PointersWithAlloc).
func Pointers[E any](items []E) []*E {
	out := make([]*E, len(items))
	for i := range items {
		out[i] = &items[i]
	}
	return out
}

// PointersWithAlloc returns a copy of each element of items in an
// allocation of its own, as client-go's meta.ExtractListWithAlloc does. It
// turns a decoded list's Items into what a ListPage carries: an object that
// stays cached then keeps only itself alive, not the list's array with the
// old version of every object updated since. The copies are shallow: what
// an element points to is shared with items.
func PointersWithAlloc[E any](items []E) []*E {
	out := make([]*E, len(items))
	for i := range items {
		p := new(E)
		*p = items[i]
		out[i] = p
	}
	return out
}

// FastIndexer is the typed read path into ctrlgen's Indexer, which also
// implements client-go's cache.TypedIndexer. Generated listers and the
// controller wiring use it when the indexer they are given is ctrlgen's,
// and client-go's untyped methods otherwise.
type FastIndexer[T any] interface {
	clientcache.TypedIndexer[T]
	// GetByName returns the object stored under key.
	GetByName(key ObjectName) (T, bool)
	// ListAll returns every object.
	ListAll() []T
	// ListNamespace returns the objects in namespace.
	ListNamespace(namespace string) []T
	// ListNames returns every key.
	ListNames() []ObjectName
	// Len is the number of objects.
	Len() int
}

// Registration is what AddEventHandler returns: client-go's
// ResourceEventHandlerRegistration, with the handler's backlog for metrics.
type Registration interface {
	clientcache.ResourceEventHandlerRegistration
	// Backlog is how many notifications wait in the handler's buffer.
	Backlog() int
	// Name names the handler in metrics: its Name method if it has one,
	// else its position among the informer's handlers.
	Name() string
}

// Informer is what metrics read of an informer, whatever its type.
type Informer interface {
	HasSynced() bool
	// Len is the number of cached objects.
	Len() int
	// Description names the informer: SharedIndexInformerOptions'
	// ObjectDescription, by default the object's Go type.
	Description() string
	// HandlerRegistrations are the current handlers.
	HandlerRegistrations() []Registration
}

// SharedIndexInformer shares one Reflector, DeltaFIFO and Indexer among
// many handlers. It is client-go's TypedSharedIndexInformer[T]; handlers
// added with AddTypedEventHandler take the typed path, those added with
// AddEventHandler get exactly what client-go's informer gives them.
type SharedIndexInformer[T Object] interface {
	clientcache.TypedSharedIndexInformer[T]
	Informer
	// FastIndexer is GetIndexer's typed read path.
	FastIndexer() FastIndexer[T]
}

// WatchErrorHandler is called for every error that ends a list or a watch.
type WatchErrorHandler func(ctx context.Context, err error)

// TransformFunc rewrites an object before it is cached, e.g. to drop
// managedFields. It may modify obj in place.
type TransformFunc[T any] func(obj T) T

// InformerSynced reports whether an informer or a handler has synced.
type InformerSynced = clientcache.InformerSynced

// WaitForCacheSync waits until every check is true or ctx is done. It
// reports whether all synced.
func WaitForCacheSync(ctx context.Context, synced ...InformerSynced) bool {
	return waitFor(ctx, synced)
}
