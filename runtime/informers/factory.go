// Package informers holds the mechanics every generated
// SharedInformerFactory shares, as informer-gen's factories implement
// them: one client-go SharedIndexInformer per type, started once, waited
// for together and shut down with a wait group. A generated factory embeds
// *Factory; its options and its InformerFor, whose types informer-gen
// names in the generated package, call the setters here.
package informers

import (
	"context"
	"reflect"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	clientcache "k8s.io/client-go/tools/cache"

	"github.com/ctrlgen/ctrlgen/runtime/cache"
)

// TweakListOptionsFunc changes the options of every list and watch an
// informer makes, e.g. to add a label selector.
type TweakListOptionsFunc = func(*metav1.ListOptions)

// Factory keeps one informer per object type. It is safe for concurrent
// use.
type Factory[C any] struct {
	*Keyed[reflect.Type, C]

	namespace        string
	namespaces       []string
	tweakListOptions TweakListOptionsFunc
	informerName     *clientcache.InformerName
}

// NewFactory returns a factory whose informers use client.
func NewFactory[C any](client C, defaultResync time.Duration) *Factory[C] {
	return &Factory[C]{Keyed: NewKeyed[reflect.Type](client, defaultResync), namespace: metav1.NamespaceAll}
}

// SetNamespace limits the factory's informers to namespace.
func (f *Factory[C]) SetNamespace(namespace string) {
	f.namespace = namespace
	f.namespaces = nil
}

// SetNamespaces limits the factory's informers of namespaced resources to
// namespaces: with one, as SetNamespace; with more, each informer is one
// informer per namespace under a single cache (see PerNamespace). Empty
// is every namespace. Like the other setters, it is called before the
// factory builds its first informer.
func (f *Factory[C]) SetNamespaces(namespaces []string) {
	namespaces = slices.Compact(slices.Sorted(slices.Values(namespaces)))
	switch len(namespaces) {
	case 0:
		f.SetNamespace(metav1.NamespaceAll)
	case 1:
		f.SetNamespace(namespaces[0])
	default:
		f.namespace = metav1.NamespaceAll
		f.namespaces = namespaces
	}
}

// Namespaces are the namespaces the factory's informers are limited to
// when there are more than one (SetNamespaces); otherwise nil, and
// Namespace says.
func (f *Factory[C]) Namespaces() []string { return f.namespaces }

// PerNamespace builds a generated informer of a namespaced resource:
// newFunc(namespace) when namespace, the one its factory gave it, is one
// namespace or when factory is limited to none (Namespaces); otherwise
// one informer per namespace of factory's Namespaces, under one cache
// (cache.NewMultiNamespaceInformer), so that the process needs to read
// those namespaces only. The generated informers of namespaced resources
// call it.
func PerNamespace[T cache.Object](factory any, namespace string, newFunc func(namespace string) clientcache.TypedSharedIndexInformer[T]) clientcache.TypedSharedIndexInformer[T] {
	scoped, ok := factory.(interface{ Namespaces() []string })
	if namespace != metav1.NamespaceAll || !ok || len(scoped.Namespaces()) == 0 {
		return newFunc(namespace)
	}
	byNamespace := map[string]clientcache.TypedSharedIndexInformer[T]{}
	for _, ns := range scoped.Namespaces() {
		byNamespace[ns] = newFunc(ns)
	}
	return cache.NewMultiNamespaceInformer(byNamespace)
}

// SetTweakListOptions sets a function that changes the options of every
// list and watch of the factory's informers.
func (f *Factory[C]) SetTweakListOptions(tweak TweakListOptionsFunc) { f.tweakListOptions = tweak }

// SetCustomResync sets resync periods for the types of the given objects.
func (f *Factory[C]) SetCustomResync(resyncConfig map[metav1.Object]time.Duration) {
	for obj, period := range resyncConfig {
		f.SetResync(reflect.TypeOf(obj), period)
	}
}

// SetInformerName names the factory's informers for metrics.
func (f *Factory[C]) SetInformerName(name *clientcache.InformerName) { f.informerName = name }

// Namespace is the namespace the factory's informers are limited to; empty
// for all.
func (f *Factory[C]) Namespace() string { return f.namespace }

// TweakListOptions is the factory's list options function, may be nil.
func (f *Factory[C]) TweakListOptions() TweakListOptionsFunc { return f.tweakListOptions }

// InformerName is the name set with SetInformerName, may be nil.
func (f *Factory[C]) InformerName() *clientcache.InformerName { return f.informerName }

// Shutdown stops Start from starting informers and waits until all
// started informers have returned; their stop channel or context must be
// done for that. It may be called more than once, concurrently. It then
// releases the informer name.
func (f *Factory[C]) Shutdown() {
	f.Keyed.Shutdown()
	f.informerName.Release()
}

// WaitForCacheSync waits until every started informer has synced or stopCh
// is closed, and reports which synced.
func (f *Factory[C]) WaitForCacheSync(stopCh <-chan struct{}) map[reflect.Type]bool {
	return f.WaitForCacheSyncWithContext(wait.ContextForChannel(stopCh)).Synced
}

// WaitForCacheSyncWithContext waits, without polling, until every started
// informer has synced or ctx is done.
func (f *Factory[C]) WaitForCacheSyncWithContext(ctx context.Context) clientcache.SyncResult {
	synced, err := f.Keyed.WaitForCacheSync(ctx)
	return clientcache.SyncResult{Synced: synced, Err: err}
}

// InformerFor returns the informer for obj's type, building it with newFunc
// and the type's resync period on first use, and setting the factory's
// transform on it.
func (f *Factory[C]) InformerFor(obj runtime.Object, newFunc func(C, time.Duration) clientcache.SharedIndexInformer) clientcache.SharedIndexInformer {
	return f.Keyed.InformerFor(reflect.TypeOf(obj), newFunc)
}
