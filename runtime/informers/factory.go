// Package informers holds the mechanics every generated
// SharedInformerFactory shares: one informer per type, started once,
// waited for together and shut down with a wait group. A generated factory
// embeds *Factory and adds its group accessors and ForResource.
package informers

import (
	"context"
	"reflect"
	"sort"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/ctrlgen/ctrlgen/runtime/cache"
)

// TweakListOptionsFunc changes the options of every list and watch an
// informer makes, e.g. to add a label selector.
type TweakListOptionsFunc func(*metav1.ListOptions)

// TransformFunc rewrites an object before it is cached, e.g. to drop
// managedFields. It has the shape of client-go's cache.TransformFunc so
// that existing transforms can be passed to WithTransform unchanged; it
// must return an object of the type it was given.
type TransformFunc func(obj any) (any, error)

// NewInformerFunc builds the informer of one type from the factory's client
// (C is the generated clientset's Interface) and a resync period.
type NewInformerFunc[C any] func(client C, resyncPeriod time.Duration) cache.Informer

// SharedInformerFactory is what generated informers need of their factory;
// the generated internalinterfaces package names it for its clientset.
type SharedInformerFactory[C any] interface {
	Start(stopCh <-chan struct{})
	InformerFor(obj runtime.Object, newFunc NewInformerFunc[C]) cache.Informer
}

// Option configures a factory.
type Option func(*options)

type options struct {
	namespace        string
	tweakListOptions TweakListOptionsFunc
	customResync     map[reflect.Type]time.Duration
	transform        TransformFunc
}

// WithNamespace limits the factory's informers to namespace.
func WithNamespace(namespace string) Option {
	return func(o *options) { o.namespace = namespace }
}

// WithTweakListOptions sets a function that changes the options of every
// list and watch of the factory's informers.
func WithTweakListOptions(tweakListOptions TweakListOptionsFunc) Option {
	return func(o *options) { o.tweakListOptions = tweakListOptions }
}

// WithCustomResyncConfig sets resync periods for the types of the given
// objects, e.g. {&v1.Foo{}: time.Minute}.
func WithCustomResyncConfig(resyncConfig map[metav1.Object]time.Duration) Option {
	return func(o *options) {
		for obj, period := range resyncConfig {
			o.customResync[reflect.TypeOf(obj)] = period
		}
	}
}

// WithTransform sets a transform on all informers the factory builds.
func WithTransform(transform TransformFunc) Option {
	return func(o *options) { o.transform = transform }
}

// Factory keeps one informer per object type. It is safe for concurrent
// use.
type Factory[C any] struct {
	client        C
	defaultResync time.Duration
	options

	lock      sync.Mutex
	informers map[reflect.Type]cache.Informer
	// started records the informers Start has run, so that Start can be
	// called again after more informers were asked for.
	started      map[reflect.Type]bool
	wg           sync.WaitGroup
	shuttingDown bool
}

// NewFactory returns a factory whose informers use client.
func NewFactory[C any](client C, defaultResync time.Duration, opts ...Option) *Factory[C] {
	f := &Factory[C]{
		client:        client,
		defaultResync: defaultResync,
		options: options{
			namespace:    metav1.NamespaceAll,
			customResync: map[reflect.Type]time.Duration{},
		},
		informers: map[reflect.Type]cache.Informer{},
		started:   map[reflect.Type]bool{},
	}
	for _, opt := range opts {
		opt(&f.options)
	}
	return f
}

// Namespace is the namespace the factory's informers are limited to; empty
// for all.
func (f *Factory[C]) Namespace() string { return f.namespace }

// TweakListOptions is the factory's list options function, may be nil.
func (f *Factory[C]) TweakListOptions() TweakListOptionsFunc { return f.tweakListOptions }

// Start runs every informer not yet started until stopCh is closed.
func (f *Factory[C]) Start(stopCh <-chan struct{}) {
	f.StartWithContext(wait.ContextForChannel(stopCh))
}

// StartWithContext runs every informer not yet started until ctx is done.
// It does not block; after Shutdown it does nothing.
func (f *Factory[C]) StartWithContext(ctx context.Context) {
	f.lock.Lock()
	defer f.lock.Unlock()
	if f.shuttingDown {
		return
	}
	for t, informer := range f.informers {
		if !f.started[t] {
			f.wg.Go(func() { informer.Run(ctx) })
			f.started[t] = true
		}
	}
}

// Shutdown stops Start from starting informers and waits until all
// started informers have returned; their stop channel or context must be
// done for that. It may be called more than once, concurrently.
func (f *Factory[C]) Shutdown() {
	f.lock.Lock()
	f.shuttingDown = true
	f.lock.Unlock()
	f.wg.Wait()
}

// WaitForCacheSync waits until every started informer has synced or stopCh
// is closed, and reports which synced.
func (f *Factory[C]) WaitForCacheSync(stopCh <-chan struct{}) map[reflect.Type]bool {
	return f.WaitForCacheSyncWithContext(wait.ContextForChannel(stopCh)).Synced
}

// SyncResult is what WaitForCacheSyncWithContext found.
type SyncResult struct {
	// Synced tells for each started informer's type whether it synced.
	Synced map[reflect.Type]bool
	// Err is the context's cause when some informer did not sync.
	Err error
}

// AsError returns Err.
func (r SyncResult) AsError() error { return r.Err }

// WaitForCacheSyncWithContext waits until every started informer has
// synced or ctx is done.
func (f *Factory[C]) WaitForCacheSyncWithContext(ctx context.Context) SyncResult {
	f.lock.Lock()
	started := make(map[reflect.Type]cache.Informer, len(f.started))
	for t := range f.started {
		started[t] = f.informers[t]
	}
	f.lock.Unlock()

	synced := make([]cache.InformerSynced, 0, len(started))
	for _, informer := range started {
		synced = append(synced, informer.HasSynced)
	}
	res := SyncResult{Synced: make(map[reflect.Type]bool, len(started))}
	if !cache.WaitForCacheSync(ctx, synced...) {
		res.Err = context.Cause(ctx)
	}
	for t, informer := range started {
		res.Synced[t] = informer.HasSynced()
	}
	return res
}

// InformerFor returns the informer for obj's type, building it with newFunc
// and the type's resync period on first use.
func (f *Factory[C]) InformerFor(obj runtime.Object, newFunc NewInformerFunc[C]) cache.Informer {
	f.lock.Lock()
	defer f.lock.Unlock()
	t := reflect.TypeOf(obj)
	if informer, ok := f.informers[t]; ok {
		return informer
	}
	resync, ok := f.customResync[t]
	if !ok {
		resync = f.defaultResync
	}
	informer := newFunc(f.client, resync)
	f.informers[t] = informer
	return informer
}

// Informers returns the factory's informers, sorted by description, for
// metrics.
func (f *Factory[C]) Informers() []cache.Informer {
	f.lock.Lock()
	out := make([]cache.Informer, 0, len(f.informers))
	for _, informer := range f.informers {
		out = append(out, informer)
	}
	f.lock.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Description() < out[j].Description() })
	return out
}

// transformer is implemented by Factory, so that For can apply the
// factory's transform with the informer's type known.
type transformer interface {
	factoryTransform() TransformFunc
}

func (f *Factory[C]) factoryTransform() TransformFunc { return f.transform }

// For returns factory's shared informer of type T, building it with newFunc
// on first use. Generated informers call it; when factory is a Factory (or
// embeds one) with a transform, the transform is set on the new informer.
func For[T cache.Object, C any](factory SharedInformerFactory[C], newFunc func(client C, resyncPeriod time.Duration) cache.SharedIndexInformer[T]) cache.SharedIndexInformer[T] {
	var key T // a typed nil: InformerFor only needs its type
	informer := factory.InformerFor(key, func(client C, resyncPeriod time.Duration) cache.Informer {
		informer := newFunc(client, resyncPeriod)
		if t, ok := factory.(transformer); ok && t.factoryTransform() != nil {
			if err := informer.SetTransform(typedTransform[T](t.factoryTransform())); err != nil {
				utilruntime.HandleError(err)
			}
		}
		return informer
	})
	return informer.(cache.SharedIndexInformer[T])
}

// typedTransform adapts an untyped transform to T. An error, or a result
// of another type, is reported and the object is cached untransformed: a
// typed cache cannot hold anything else.
func typedTransform[T cache.Object](transform TransformFunc) cache.TransformFunc[T] {
	return func(obj T) T {
		out, err := transform(obj)
		if err != nil {
			utilruntime.HandleError(err)
			return obj
		}
		typed, ok := out.(T)
		if !ok {
			var want T
			utilruntime.HandleError(&TransformTypeError{Want: reflect.TypeOf(want), Got: reflect.TypeOf(out)})
			return obj
		}
		return typed
	}
}

// TransformTypeError reports a transform that returned another type than
// it was given.
type TransformTypeError struct {
	Want, Got reflect.Type
}

func (e *TransformTypeError) Error() string {
	return "informers: transform returned " + typeString(e.Got) + ", want " + typeString(e.Want)
}

func typeString(t reflect.Type) string {
	if t == nil {
		return "nil"
	}
	return t.String()
}
