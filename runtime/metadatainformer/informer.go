// Package metadatainformer is client-go's metadatainformer on ctrlgen's
// informers: shared informers that list and watch only the metadata of a
// resource's objects (metav1.PartialObjectMetadata) through the metadata
// client, for controllers that need an object's name, labels and owners
// but not its data. A cached Secret then costs its metadata, not its
// payload.
package metadatainformer

import (
	"context"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatalister"
	clientcache "k8s.io/client-go/tools/cache"

	"github.com/ctrlgen/ctrlgen/runtime/cache"
	"github.com/ctrlgen/ctrlgen/runtime/informers"
)

// TweakListOptionsFunc changes the options of every list and watch.
type TweakListOptionsFunc = informers.TweakListOptionsFunc

// GenericInformer is client-go's informers.GenericInformer: an informer
// and a lister of runtime.Objects (here *metav1.PartialObjectMetadata).
type GenericInformer interface {
	Informer() clientcache.SharedIndexInformer
	Lister() clientcache.GenericLister
}

// Informer is one resource's metadata informer, typed.
type Informer interface {
	GenericInformer
	TypedInformer() clientcache.TypedSharedIndexInformer[*metav1.PartialObjectMetadata]
	// MetadataLister lists the cached metadata as client-go's metadatalister.
	MetadataLister() metadatalister.Lister
}

// SharedInformerFactory keeps one metadata informer per resource, as
// client-go's metadatainformer.SharedInformerFactory does.
type SharedInformerFactory interface {
	Start(stopCh <-chan struct{})
	StartWithContext(ctx context.Context)
	ForResource(gvr schema.GroupVersionResource) GenericInformer
	// TypedForResource is ForResource with the typed informer and lister.
	TypedForResource(gvr schema.GroupVersionResource) Informer
	WaitForCacheSync(stopCh <-chan struct{}) map[schema.GroupVersionResource]bool
	Shutdown()
	// Informers are the informers built so far, for metrics.
	Informers() []clientcache.SharedIndexInformer
}

// NewSharedInformerFactory returns a factory of metadata informers over
// every namespace.
func NewSharedInformerFactory(client metadata.Interface, defaultResync time.Duration) SharedInformerFactory {
	return NewFilteredSharedInformerFactory(client, defaultResync, metav1.NamespaceAll, nil)
}

// NewFilteredSharedInformerFactory returns a factory of metadata informers
// limited to namespace (metav1.NamespaceAll for all), whose lists and
// watches tweakListOptions changes.
func NewFilteredSharedInformerFactory(client metadata.Interface, defaultResync time.Duration, namespace string, tweakListOptions TweakListOptionsFunc) SharedInformerFactory {
	return &factory{
		Keyed:     informers.NewKeyed[schema.GroupVersionResource](client, defaultResync),
		namespace: namespace,
		tweak:     tweakListOptions,
	}
}

type factory struct {
	*informers.Keyed[schema.GroupVersionResource, metadata.Interface]
	namespace string
	tweak     TweakListOptionsFunc
}

func (f *factory) WaitForCacheSync(stopCh <-chan struct{}) map[schema.GroupVersionResource]bool {
	synced, _ := f.Keyed.WaitForCacheSync(wait.ContextForChannel(stopCh))
	return synced
}

func (f *factory) ForResource(gvr schema.GroupVersionResource) GenericInformer {
	return f.TypedForResource(gvr)
}

func (f *factory) TypedForResource(gvr schema.GroupVersionResource) Informer {
	informer := f.InformerFor(gvr, func(client metadata.Interface, resync time.Duration) clientcache.SharedIndexInformer {
		return newInformer(client, gvr, f.namespace, resync, clientcache.Indexers{clientcache.NamespaceIndex: clientcache.MetaNamespaceIndexFunc}, f.tweak)
	})
	return &metadataInformer{gvr: gvr, informer: informer.(cache.SharedIndexInformer[*metav1.PartialObjectMetadata])}
}

// NewFilteredMetadataInformer returns an informer of the metadata of
// gvr's objects in namespace, as client-go's function of the same name;
// prefer a factory's, which is shared.
func NewFilteredMetadataInformer(client metadata.Interface, gvr schema.GroupVersionResource, namespace string, resyncPeriod time.Duration, indexers clientcache.Indexers, tweakListOptions TweakListOptionsFunc) Informer {
	return &metadataInformer{gvr: gvr, informer: newInformer(client, gvr, namespace, resyncPeriod, indexers, tweakListOptions)}
}

func newInformer(client metadata.Interface, gvr schema.GroupVersionResource, namespace string, resync time.Duration, indexers clientcache.Indexers, tweak TweakListOptionsFunc) cache.SharedIndexInformer[*metav1.PartialObjectMetadata] {
	resource := client.Resource(gvr).Namespace(namespace)
	lw := &cache.ListWatch[*metav1.PartialObjectMetadata]{
		ListFunc: func(ctx context.Context, opts metav1.ListOptions) (cache.ListPage[*metav1.PartialObjectMetadata], error) {
			if tweak != nil {
				tweak(&opts)
			}
			list, err := resource.List(ctx, opts)
			if err != nil {
				return cache.ListPage[*metav1.PartialObjectMetadata]{}, err
			}
			return cache.ListPage[*metav1.PartialObjectMetadata]{Items: cache.PointersWithAlloc(list.Items), ResourceVersion: list.ResourceVersion, Continue: list.Continue}, nil
		},
		WatchFunc: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			if tweak != nil {
				tweak(&opts)
			}
			return resource.Watch(ctx, opts)
		},
	}
	return cache.NewSharedIndexInformerWithOptions[*metav1.PartialObjectMetadata](
		cache.ToListWatcherWithWatchListSemantics(lw, client),
		cache.SharedIndexInformerOptions{ResyncPeriod: resync, Indexers: indexers, ObjectDescription: describe(gvr)},
	)
}

type metadataInformer struct {
	gvr      schema.GroupVersionResource
	informer cache.SharedIndexInformer[*metav1.PartialObjectMetadata]
}

func (i *metadataInformer) Informer() clientcache.SharedIndexInformer { return i.informer }

func (i *metadataInformer) TypedInformer() clientcache.TypedSharedIndexInformer[*metav1.PartialObjectMetadata] {
	return i.informer
}

func (i *metadataInformer) MetadataLister() metadatalister.Lister {
	return metadatalister.New(i.informer.GetIndexer(), i.gvr)
}

func (i *metadataInformer) Lister() clientcache.GenericLister {
	return metadatalister.NewRuntimeObjectShim(i.MetadataLister())
}

// describe names gvr's informer as the typed ones are named, with the
// group last: "secrets.v1 metadata", "deployments.v1.apps metadata".
func describe(gvr schema.GroupVersionResource) string {
	d := gvr.Resource + "." + gvr.Version
	if gvr.Group != "" {
		d += "." + gvr.Group
	}
	return d + " metadata"
}
