package informers

import (
	"context"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	clientcache "k8s.io/client-go/tools/cache"
)

// Keyed keeps one informer per key (a Go type for a typed factory, a
// resource for a metadata one), starts each once, waits for them together
// and shuts them down with a wait group. It is safe for concurrent use.
type Keyed[K comparable, C any] struct {
	client        C
	defaultResync time.Duration

	lock         sync.Mutex
	customResync map[K]time.Duration
	transform    clientcache.TransformFunc
	informers    map[K]clientcache.SharedIndexInformer
	// started records the informers Start has run, so that Start can be
	// called again after more informers were asked for.
	started      map[K]bool
	wg           sync.WaitGroup
	shuttingDown bool
}

// NewKeyed returns a factory whose informers use client.
func NewKeyed[K comparable, C any](client C, defaultResync time.Duration) *Keyed[K, C] {
	return &Keyed[K, C]{
		client:        client,
		defaultResync: defaultResync,
		customResync:  map[K]time.Duration{},
		informers:     map[K]clientcache.SharedIndexInformer{},
		started:       map[K]bool{},
	}
}

// SetResync sets the resync period of key's informer, before it is built.
func (f *Keyed[K, C]) SetResync(key K, period time.Duration) {
	f.lock.Lock()
	defer f.lock.Unlock()
	f.customResync[key] = period
}

// SetTransform sets a transform on all informers the factory builds.
func (f *Keyed[K, C]) SetTransform(transform clientcache.TransformFunc) { f.transform = transform }

// Start runs every informer not yet started until stopCh is closed.
func (f *Keyed[K, C]) Start(stopCh <-chan struct{}) {
	f.StartWithContext(wait.ContextForChannel(stopCh))
}

// StartWithContext runs every informer not yet started until ctx is done.
// It does not block; after Shutdown it does nothing.
func (f *Keyed[K, C]) StartWithContext(ctx context.Context) {
	f.lock.Lock()
	defer f.lock.Unlock()
	if f.shuttingDown {
		return
	}
	for k, informer := range f.informers {
		if !f.started[k] {
			f.wg.Go(func() { informer.RunWithContext(ctx) })
			f.started[k] = true
		}
	}
}

// Shutdown stops Start from starting informers and waits until all
// started informers have returned; their stop channel or context must be
// done for that. It may be called more than once, concurrently.
func (f *Keyed[K, C]) Shutdown() {
	f.lock.Lock()
	f.shuttingDown = true
	f.lock.Unlock()
	f.wg.Wait()
}

// WaitForCacheSync waits, without polling, until every started informer
// has synced or ctx is done, and reports which synced; the error is ctx's
// cause when some did not.
func (f *Keyed[K, C]) WaitForCacheSync(ctx context.Context) (map[K]bool, error) {
	f.lock.Lock()
	started := make(map[K]clientcache.SharedIndexInformer, len(f.started))
	for k := range f.started {
		started[k] = f.informers[k]
	}
	f.lock.Unlock()

	checkers := make([]clientcache.DoneChecker, 0, len(started))
	for _, informer := range started {
		checkers = append(checkers, informer.HasSyncedChecker())
	}
	clientcache.WaitFor(ctx, "", checkers...)
	synced := make(map[K]bool, len(started))
	var err error
	for k, informer := range started {
		synced[k] = informer.HasSynced()
		if !synced[k] {
			err = context.Cause(ctx)
		}
	}
	return synced, err
}

// InformerFor returns key's informer, building it with newFunc and the
// key's resync period on first use, and setting the factory's transform
// on it.
func (f *Keyed[K, C]) InformerFor(key K, newFunc func(C, time.Duration) clientcache.SharedIndexInformer) clientcache.SharedIndexInformer {
	f.lock.Lock()
	defer f.lock.Unlock()
	if informer, ok := f.informers[key]; ok {
		return informer
	}
	resync, ok := f.customResync[key]
	if !ok {
		resync = f.defaultResync
	}
	informer := newFunc(f.client, resync)
	if f.transform != nil {
		_ = informer.SetTransform(f.transform) // a new informer has not started
	}
	f.informers[key] = informer
	return informer
}

// Informers returns the factory's informers, for metrics.
func (f *Keyed[K, C]) Informers() []clientcache.SharedIndexInformer {
	f.lock.Lock()
	defer f.lock.Unlock()
	out := make([]clientcache.SharedIndexInformer, 0, len(f.informers))
	for _, informer := range f.informers {
		out = append(out, informer)
	}
	return out
}
