package cache

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientcache "k8s.io/client-go/tools/cache"
)

// FastIndexerOf returns indexer's typed read path: indexer itself when it
// is ctrlgen's, else an adapter that reads any client-go Indexer (a
// cache.NewIndexer in a unit test, a client-go informer's) with type
// assertions.
func FastIndexerOf[T Object](indexer clientcache.Indexer) FastIndexer[T] {
	if fast, ok := indexer.(FastIndexer[T]); ok {
		return fast
	}
	return indexerAdapter[T]{indexer}
}

type indexerAdapter[T Object] struct {
	clientcache.Indexer
}

func (a indexerAdapter[T]) GetByName(key ObjectName) (T, bool) {
	obj, ok, err := a.GetByKey(key.String())
	t, isT := obj.(T)
	return t, ok && err == nil && isT
}

func (a indexerAdapter[T]) ListAll() []T { return only[T](a.List()) }

// ListNamespace uses the namespace index when there is one, as client-go's
// listers do, and filters the whole list otherwise.
func (a indexerAdapter[T]) ListNamespace(namespace string) []T {
	if objs, err := a.Index(NamespaceIndex, &metav1.ObjectMeta{Namespace: namespace}); err == nil {
		return only[T](objs)
	}
	var out []T
	for _, obj := range only[T](a.List()) {
		if obj.GetNamespace() == namespace {
			out = append(out, obj)
		}
	}
	return out
}

func (a indexerAdapter[T]) ListNames() []ObjectName {
	keys := a.ListKeys()
	out := make([]ObjectName, len(keys))
	for i, k := range keys {
		out[i] = splitKey(k)
	}
	return out
}

func (a indexerAdapter[T]) Len() int { return len(a.ListKeys()) }

func (a indexerAdapter[T]) TypedIndex(indexName string, obj T) ([]T, error) {
	objs, err := a.Index(indexName, obj)
	return only[T](objs), err
}

func (a indexerAdapter[T]) ByTypedIndex(indexName, indexedValue string) ([]T, error) {
	objs, err := a.ByIndex(indexName, indexedValue)
	return only[T](objs), err
}

func (a indexerAdapter[T]) AddTypedIndexers(indexers clientcache.TypedIndexers[T]) error {
	return a.AddIndexers(clientcache.TypedIndexersToIndexers(indexers))
}

// only returns the objects of type T in objs.
func only[T any](objs []any) []T {
	out := make([]T, 0, len(objs))
	for _, obj := range objs {
		if t, ok := obj.(T); ok {
			out = append(out, t)
		}
	}
	return out
}
