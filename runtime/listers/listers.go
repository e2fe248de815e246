// Package listers holds what generated listers share: a typed read-only
// view of any client-go Indexer, which takes ctrlgen's typed path when the
// indexer is ctrlgen's.
package listers

import (
	"k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientcache "k8s.io/client-go/tools/cache"

	"github.com/ctrlgen/ctrlgen/runtime/cache"
)

// ResourceIndexer lists and gets objects of one resource from an Indexer,
// across all namespaces or in one. Generated listers embed it.
type ResourceIndexer[T cache.Object] struct {
	indexer   cache.FastIndexer[T]
	resource  schema.GroupResource
	namespace string // empty: all namespaces, or a cluster-scoped resource
}

// New returns a ResourceIndexer over indexer for resource, which names
// the resource in NotFound errors. Generated listers pass the kind in lower
// case, as lister-gen's do: {Group: "apps", Resource: "deployment"}.
func New[T cache.Object](indexer clientcache.Indexer, resource schema.GroupResource) ResourceIndexer[T] {
	return ResourceIndexer[T]{indexer: cache.FastIndexerOf[T](indexer), resource: resource}
}

// NewNamespaced returns parent narrowed to namespace.
func NewNamespaced[T cache.Object](parent ResourceIndexer[T], namespace string) ResourceIndexer[T] {
	parent.namespace = namespace
	return parent
}

// List returns the objects whose labels match selector; a nil selector
// matches everything. Objects returned must be treated as read-only.
func (r ResourceIndexer[T]) List(selector labels.Selector) (ret []T, err error) {
	if selector != nil && labels.MatchesNothing(selector) {
		return nil, nil
	}
	var objs []T
	if r.namespace == "" {
		objs = r.indexer.ListAll()
	} else {
		objs = r.indexer.ListNamespace(r.namespace)
	}
	if selector == nil || selector.Empty() {
		return objs, nil
	}
	for _, obj := range objs {
		if selector.Matches(labels.Set(obj.GetLabels())) {
			ret = append(ret, obj)
		}
	}
	return ret, nil
}

// Get returns the object called name, or a NotFound error naming the
// resource. The object returned must be treated as read-only.
func (r ResourceIndexer[T]) Get(name string) (T, error) {
	obj, exists := r.indexer.GetByName(cache.NewObjectName(r.namespace, name))
	if !exists {
		var zero T
		return zero, errors.NewNotFound(r.resource, name)
	}
	return obj, nil
}
