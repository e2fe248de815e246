// Package listers holds what generated listers share: a typed read-only
// view of an informer's Indexer, and a generic lister over the untyped
// part of an informer for ForResource.
package listers

import (
	"strings"

	"k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/ctrlgen/ctrlgen/runtime/cache"
)

// ResourceIndexer lists and gets objects of one resource from an Indexer,
// across all namespaces or in one. Generated listers embed it.
type ResourceIndexer[T cache.Object] struct {
	indexer   cache.Indexer[T]
	resource  schema.GroupResource
	namespace string // empty: all namespaces, or a cluster-scoped resource
}

// New returns a ResourceIndexer over indexer for resource, which names
// the resource in NotFound errors. Generated listers pass the kind in lower
// case, as lister-gen's do: {Group: "apps", Resource: "deployment"}.
func New[T cache.Object](indexer cache.Indexer[T], resource schema.GroupResource) ResourceIndexer[T] {
	return ResourceIndexer[T]{indexer: indexer, resource: resource}
}

// NewNamespaced returns parent narrowed to namespace.
func NewNamespaced[T cache.Object](parent ResourceIndexer[T], namespace string) ResourceIndexer[T] {
	parent.namespace = namespace
	return parent
}

// List returns the objects whose labels match selector; a nil selector
// matches everything. Objects returned must be treated as read-only.
func (r ResourceIndexer[T]) List(selector labels.Selector) (ret []T, err error) {
	var objs []T
	if r.namespace == "" {
		objs = r.indexer.List()
	} else if objs, err = r.indexer.ByIndex(cache.NamespaceIndex, r.namespace); err != nil {
		return nil, err
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
	obj, exists, err := r.indexer.GetByKey(cache.NewObjectName(r.namespace, name))
	if err != nil {
		return obj, err
	}
	if !exists {
		var zero T
		return zero, errors.NewNotFound(r.resource, name)
	}
	return obj, nil
}

// GenericLister lists and gets objects of a resource without knowing their
// type, as client-go's cache.GenericLister.
type GenericLister interface {
	// List returns the objects whose labels match selector.
	List(selector labels.Selector) (ret []runtime.Object, err error)
	// Get returns the object called name: "namespace/name" for a namespaced
	// resource, as client-go's GenericLister takes it.
	Get(name string) (runtime.Object, error)
	// ByNamespace narrows the lister to namespace.
	ByNamespace(namespace string) GenericNamespaceLister
}

// GenericNamespaceLister lists and gets objects of a resource in one
// namespace.
type GenericNamespaceLister interface {
	List(selector labels.Selector) (ret []runtime.Object, err error)
	Get(name string) (runtime.Object, error)
}

// NewGenericLister returns a GenericLister over the untyped part of an
// informer.
func NewGenericLister(informer cache.Informer, resource schema.GroupResource) GenericLister {
	return genericLister{informer: informer, resource: resource}
}

type genericLister struct {
	informer  cache.Informer
	resource  schema.GroupResource
	namespace string
	scoped    bool // namespace applies, even when empty
}

func (l genericLister) ByNamespace(namespace string) GenericNamespaceLister {
	l.namespace, l.scoped = namespace, true
	return l
}

func (l genericLister) List(selector labels.Selector) ([]runtime.Object, error) {
	all := l.informer.ListObjects()
	everything := selector == nil || selector.Empty()
	if everything && !l.scoped {
		return all, nil
	}
	var ret []runtime.Object
	for _, obj := range all {
		m, ok := obj.(interface {
			GetNamespace() string
			GetLabels() map[string]string
		})
		if !ok {
			continue
		}
		if l.scoped && m.GetNamespace() != l.namespace {
			continue
		}
		if everything || selector.Matches(labels.Set(m.GetLabels())) {
			ret = append(ret, obj)
		}
	}
	return ret, nil
}

func (l genericLister) Get(name string) (runtime.Object, error) {
	key := cache.NewObjectName(l.namespace, name)
	if !l.scoped {
		// client-go's GenericLister.Get takes a "namespace/name" key.
		if ns, n, ok := strings.Cut(name, "/"); ok {
			key = cache.NewObjectName(ns, n)
		}
	}
	obj, ok := l.informer.GetObject(key)
	if !ok {
		return nil, errors.NewNotFound(l.resource, key.Name)
	}
	return obj, nil
}
