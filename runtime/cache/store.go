package cache

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	clientcache "k8s.io/client-go/tools/cache"
)

// NamespaceIndex is the name of the index by namespace, as client-go's.
// Every Indexer here has it, at no cost: the store is kept per namespace.
const NamespaceIndex = clientcache.NamespaceIndex

// NewIndexer returns an empty thread-safe store with indexers: client-go's
// cache.Indexer and TypedIndexer[T] over "namespace/name" string keys, and
// FastIndexer[T] for typed reads by ObjectName.
func NewIndexer[T Object](indexers clientcache.Indexers) FastIndexer[T] {
	x := newThreadSafeMap[T]()
	_ = x.AddIndexers(indexers) // only a name added twice fails, and a map has none
	return x
}

func newThreadSafeMap[T Object]() *threadSafeMap[T] {
	return &threadSafeMap[T]{
		items:    map[string]map[string]T{},
		indexers: clientcache.Indexers{},
		indices:  map[string]index{},
	}
}

// index maps an index value to the keys of the objects that have it.
type index map[string]map[ObjectName]struct{}

// threadSafeMap stores objects as namespace → name → object. That makes the
// namespace index free and keeps a cached object's overhead to one map slot.
type threadSafeMap[T Object] struct {
	lock     sync.RWMutex
	items    map[string]map[string]T
	count    int
	indexers clientcache.Indexers
	indices  map[string]index
	// namespaceIndexer is the namespace index function, when one was given:
	// the index itself is always there, but like client-go's store this one
	// lists and refuses to add again only the functions it was given.
	namespaceIndexer clientcache.IndexFunc
	// rv is the resourceVersion the store last saw, as client-go's: that of
	// the last object written (a tombstone's delete aside), Replace or
	// Bookmark.
	rv string
}

// typed returns obj as T, or an error naming what it is: client-go's
// KeyError when obj has no metadata to take a key from.
func typed[T Object](obj any) (T, error) {
	t, ok := obj.(T)
	if !ok {
		var want T
		if _, err := meta.Accessor(obj); err != nil {
			return want, clientcache.KeyError{Obj: obj, Err: err}
		}
		return want, fmt.Errorf("cache: %T is not a %T", obj, want)
	}
	return t, nil
}

// splitKey parses a "namespace/name" or "name" key.
func splitKey(key string) ObjectName {
	ns, name, ok := strings.Cut(key, "/")
	if !ok {
		return ObjectName{Name: key}
	}
	return ObjectName{Namespace: ns, Name: name}
}

func (m *threadSafeMap[T]) Add(obj any) error { return m.Update(obj) }
func (m *threadSafeMap[T]) Update(obj any) error {
	t, err := typed[T](obj)
	if err != nil {
		return err
	}
	m.swap(t)
	return nil
}

// putLocked stores obj and returns what it replaced.
func (m *threadSafeMap[T]) putLocked(obj T) (old T, existed bool) {
	ns := obj.GetNamespace()
	byName := m.items[ns]
	if byName == nil {
		byName = map[string]T{}
		m.items[ns] = byName
	}
	name := obj.GetName()
	old, existed = byName[name]
	byName[name] = obj
	if !existed {
		m.count++
	}
	if len(m.indexers) > 0 {
		m.reindex(ObjectName{Namespace: ns, Name: name}, old, existed, obj, true)
	}
	return old, existed
}

func (m *threadSafeMap[T]) Delete(obj any) error {
	key, err := clientcache.DeletionHandlingObjectToName(obj)
	if err != nil {
		return clientcache.KeyError{Obj: obj, Err: err}
	}
	if _, tombstone := obj.(clientcache.DeletedFinalStateUnknown); tombstone {
		m.remove(key)
		return nil
	}
	rv := ""
	if o, err := meta.Accessor(obj); err == nil {
		rv = o.GetResourceVersion()
	}
	m.removeSeen(key, rv)
	return nil
}

func (m *threadSafeMap[T]) deleteLocked(key ObjectName) (old T, existed bool) {
	byName := m.items[key.Namespace]
	old, existed = byName[key.Name]
	if !existed {
		return old, false
	}
	delete(byName, key.Name)
	if len(byName) == 0 {
		delete(m.items, key.Namespace)
	}
	m.count--
	if len(m.indexers) > 0 {
		var zero T
		m.reindex(key, old, true, zero, false)
	}
	return old, true
}

// reindex moves key from the index values of old to those of new. Index
// functions that fail are treated as returning no values; they are checked
// when they are added.
func (m *threadSafeMap[T]) reindex(key ObjectName, old T, hasOld bool, new T, hasNew bool) {
	for name, fn := range m.indexers {
		var oldVals, newVals []string
		if hasOld {
			oldVals, _ = fn(old)
		}
		if hasNew {
			newVals, _ = fn(new)
		}
		if len(oldVals) == 1 && len(newVals) == 1 && oldVals[0] == newVals[0] {
			continue
		}
		idx := m.indices[name]
		for _, v := range oldVals {
			if set := idx[v]; set != nil {
				delete(set, key)
				if len(set) == 0 {
					delete(idx, v)
				}
			}
		}
		for _, v := range newVals {
			idx.add(v, key)
		}
	}
}

func (idx index) add(value string, key ObjectName) {
	set := idx[value]
	if set == nil {
		set = map[ObjectName]struct{}{}
		idx[value] = set
	}
	set[key] = struct{}{}
}

func (m *threadSafeMap[T]) ListAll() []T {
	m.lock.RLock()
	defer m.lock.RUnlock()
	out := make([]T, 0, m.count)
	for _, byName := range m.items {
		for _, obj := range byName {
			out = append(out, obj)
		}
	}
	return out
}

func (m *threadSafeMap[T]) List() []any { return boxed(m.ListAll()) }

func (m *threadSafeMap[T]) ListNames() []ObjectName {
	m.lock.RLock()
	defer m.lock.RUnlock()
	out := make([]ObjectName, 0, m.count)
	for ns, byName := range m.items {
		for name := range byName {
			out = append(out, ObjectName{Namespace: ns, Name: name})
		}
	}
	return out
}

func (m *threadSafeMap[T]) ListKeys() []string {
	names := m.ListNames()
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = n.String()
	}
	return out
}

func (m *threadSafeMap[T]) Get(obj any) (any, bool, error) {
	key, err := clientcache.ObjectToName(obj)
	if err != nil {
		return nil, false, clientcache.KeyError{Obj: obj, Err: err}
	}
	return m.GetByKey(key.String())
}

func (m *threadSafeMap[T]) GetByKey(key string) (any, bool, error) {
	obj, ok := m.GetByName(splitKey(key))
	if !ok {
		return nil, false, nil
	}
	return obj, true, nil
}

func (m *threadSafeMap[T]) GetByName(key ObjectName) (T, bool) {
	m.lock.RLock()
	obj, ok := m.items[key.Namespace][key.Name]
	m.lock.RUnlock()
	return obj, ok
}

func (m *threadSafeMap[T]) Len() int {
	m.lock.RLock()
	defer m.lock.RUnlock()
	return m.count
}

func (m *threadSafeMap[T]) Replace(list []any, resourceVersion string) error {
	objs := make([]T, len(list))
	for i, obj := range list {
		t, err := typed[T](obj)
		if err != nil {
			return err
		}
		objs[i] = t
	}
	m.lock.Lock()
	defer m.lock.Unlock()
	m.items = map[string]map[string]T{}
	m.count = 0
	for name := range m.indices {
		m.indices[name] = index{}
	}
	for _, obj := range objs {
		m.putLocked(obj)
	}
	m.rv = resourceVersion
	return nil
}

// Resync does nothing: a store has nothing to resync with.
func (m *threadSafeMap[T]) Resync() error { return nil }

func (m *threadSafeMap[T]) LastStoreSyncResourceVersion() string {
	m.lock.RLock()
	defer m.lock.RUnlock()
	return m.rv
}

func (m *threadSafeMap[T]) Bookmark(rv string) {
	m.lock.Lock()
	m.rv = rv
	m.lock.Unlock()
}

// namespaceOf returns the namespace of obj, which an index lookup may give
// as any object with metadata (client-go's listers pass an ObjectMeta).
func namespaceOf(obj any) (string, error) {
	if o, ok := obj.(interface{ GetNamespace() string }); ok {
		return o.GetNamespace(), nil
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return "", err
	}
	return m.GetNamespace(), nil
}

func (m *threadSafeMap[T]) Index(indexName string, obj any) ([]any, error) {
	m.lock.RLock()
	defer m.lock.RUnlock()
	if indexName == NamespaceIndex {
		ns, err := namespaceOf(obj)
		if err != nil {
			return nil, err
		}
		return boxed(m.namespaceItems(ns)), nil
	}
	keys, err := m.indexedLocked(indexName, obj)
	if err != nil {
		return nil, err
	}
	return boxed(m.itemsOf(keys)), nil
}

func (m *threadSafeMap[T]) TypedIndex(indexName string, obj T) ([]T, error) {
	m.lock.RLock()
	defer m.lock.RUnlock()
	if indexName == NamespaceIndex {
		return m.namespaceItems(obj.GetNamespace()), nil
	}
	keys, err := m.indexedLocked(indexName, obj)
	if err != nil {
		return nil, err
	}
	return m.itemsOf(keys), nil
}

// indexedLocked returns the keys that share a value of the index with obj.
func (m *threadSafeMap[T]) indexedLocked(indexName string, obj any) (map[ObjectName]struct{}, error) {
	fn, idx, err := m.indexLocked(indexName)
	if err != nil {
		return nil, err
	}
	vals, err := fn(obj)
	if err != nil {
		return nil, err
	}
	if len(vals) == 1 {
		return idx[vals[0]], nil
	}
	seen := map[ObjectName]struct{}{}
	for _, v := range vals {
		for k := range idx[v] {
			seen[k] = struct{}{}
		}
	}
	return seen, nil
}

func (m *threadSafeMap[T]) ByIndex(indexName, value string) ([]any, error) {
	objs, err := m.ByTypedIndex(indexName, value)
	return boxed(objs), err
}

func (m *threadSafeMap[T]) ByTypedIndex(indexName, value string) ([]T, error) {
	m.lock.RLock()
	defer m.lock.RUnlock()
	if indexName == NamespaceIndex {
		return m.namespaceItems(value), nil
	}
	_, idx, err := m.indexLocked(indexName)
	if err != nil {
		return nil, err
	}
	return m.itemsOf(idx[value]), nil
}

func (m *threadSafeMap[T]) ListNamespace(namespace string) []T {
	m.lock.RLock()
	defer m.lock.RUnlock()
	return m.namespaceItems(namespace)
}

// IndexKeys returns the keys indexed under value, sorted, as client-go's.
func (m *threadSafeMap[T]) IndexKeys(indexName, value string) ([]string, error) {
	m.lock.RLock()
	var out []string
	if indexName == NamespaceIndex {
		byName := m.items[value]
		out = make([]string, 0, len(byName))
		for name := range byName {
			out = append(out, ObjectName{Namespace: value, Name: name}.String())
		}
	} else {
		_, idx, err := m.indexLocked(indexName)
		if err != nil {
			m.lock.RUnlock()
			return nil, err
		}
		out = make([]string, 0, len(idx[value]))
		for k := range idx[value] {
			out = append(out, k.String())
		}
	}
	m.lock.RUnlock()
	slices.Sort(out)
	return out, nil
}

func (m *threadSafeMap[T]) ListIndexFuncValues(indexName string) []string {
	m.lock.RLock()
	defer m.lock.RUnlock()
	var out []string
	if indexName == NamespaceIndex {
		for ns := range m.items {
			out = append(out, ns)
		}
	} else {
		for v := range m.indices[indexName] {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out
}

// AddIndexers adds index functions and indexes the stored objects with
// them. A name already given is a conflict, and nothing is added.
// NamespaceIndex is built in: an entry under that name is recorded, not
// built.
func (m *threadSafeMap[T]) AddIndexers(newIndexers clientcache.Indexers) error {
	m.lock.Lock()
	defer m.lock.Unlock()
	var taken []string
	for name := range newIndexers {
		_, ok := m.indexers[name]
		if ok || name == NamespaceIndex && m.namespaceIndexer != nil {
			taken = append(taken, name+":{}")
		}
	}
	if taken != nil {
		slices.Sort(taken)
		return fmt.Errorf("indexer conflict: map[%s]", strings.Join(taken, " "))
	}
	for name, fn := range newIndexers {
		if name == NamespaceIndex {
			m.namespaceIndexer = fn
			continue
		}
		idx := index{}
		for ns, byName := range m.items {
			for n, obj := range byName {
				vals, err := fn(obj)
				if err != nil {
					return fmt.Errorf("index %q of %s/%s: %w", name, ns, n, err)
				}
				for _, v := range vals {
					idx.add(v, ObjectName{Namespace: ns, Name: n})
				}
			}
		}
		m.indexers[name] = fn
		m.indices[name] = idx
	}
	return nil
}

func (m *threadSafeMap[T]) AddTypedIndexers(newIndexers clientcache.TypedIndexers[T]) error {
	return m.AddIndexers(clientcache.TypedIndexersToIndexers(newIndexers))
}

func (m *threadSafeMap[T]) GetIndexers() clientcache.Indexers {
	m.lock.RLock()
	defer m.lock.RUnlock()
	out := clientcache.Indexers{}
	if m.namespaceIndexer != nil {
		out[NamespaceIndex] = m.namespaceIndexer
	}
	for k, v := range m.indexers {
		out[k] = v
	}
	return out
}

func (m *threadSafeMap[T]) indexLocked(name string) (clientcache.IndexFunc, index, error) {
	fn, ok := m.indexers[name]
	if !ok {
		return nil, nil, fmt.Errorf("Index with name %s does not exist", name)
	}
	return fn, m.indices[name], nil
}

func (m *threadSafeMap[T]) namespaceItems(ns string) []T {
	byName := m.items[ns]
	out := make([]T, 0, len(byName))
	for _, obj := range byName {
		out = append(out, obj)
	}
	return out
}

func (m *threadSafeMap[T]) itemsOf(keys map[ObjectName]struct{}) []T {
	out := make([]T, 0, len(keys))
	for k := range keys {
		if obj, ok := m.items[k.Namespace][k.Name]; ok {
			out = append(out, obj)
		}
	}
	return out
}

func boxed[T any](objs []T) []any {
	out := make([]any, len(objs))
	for i, obj := range objs {
		out[i] = obj
	}
	return out
}

// swap stores obj and returns the object it replaced.
func (m *threadSafeMap[T]) swap(obj T) (old T, existed bool) {
	m.lock.Lock()
	defer m.lock.Unlock()
	m.rv = obj.GetResourceVersion()
	return m.putLocked(obj)
}

// removeSeen deletes key, whose deletion happened at resourceVersion rv.
func (m *threadSafeMap[T]) removeSeen(key ObjectName, rv string) {
	m.lock.Lock()
	defer m.lock.Unlock()
	m.rv = rv
	m.deleteLocked(key)
}

// remove deletes key and returns the object it held.
func (m *threadSafeMap[T]) remove(key ObjectName) (old T, existed bool) {
	m.lock.Lock()
	defer m.lock.Unlock()
	return m.deleteLocked(key)
}
