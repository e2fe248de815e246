package cache

import (
	"fmt"
	"sort"
	"sync"
)

// NamespaceIndex is the name of the built-in index by namespace. Every
// Indexer has it, at no cost: the store is kept per namespace.
const NamespaceIndex = "namespace"

// IndexFunc returns the values an object is indexed under.
type IndexFunc[T any] func(obj T) ([]string, error)

// Indexers names index functions.
type Indexers[T any] map[string]IndexFunc[T]

// Store is a thread-safe map from key to object.
type Store[T any] interface {
	Add(obj T) error
	Update(obj T) error
	Delete(obj T) error
	List() []T
	ListKeys() []ObjectName
	Get(obj T) (item T, exists bool, err error)
	GetByKey(key ObjectName) (item T, exists bool, err error)
	// Replace swaps the whole content for list.
	Replace(list []T, resourceVersion string) error
	Len() int
}

// Indexer is a Store with named indexes.
type Indexer[T any] interface {
	Store[T]
	// Index returns the objects that share an index value with obj.
	Index(indexName string, obj T) ([]T, error)
	// IndexKeys returns the keys of the objects indexed under value.
	IndexKeys(indexName, indexedValue string) ([]ObjectName, error)
	// ListIndexFuncValues returns every value of the index.
	ListIndexFuncValues(indexName string) []string
	// ByIndex returns the objects indexed under value.
	ByIndex(indexName, indexedValue string) ([]T, error)
	// AddIndexers adds indexes; existing objects are indexed at once.
	AddIndexers(newIndexers Indexers[T]) error
	GetIndexers() Indexers[T]
}

// NewIndexer returns an empty Indexer that keys objects by namespace and
// name.
func NewIndexer[T Object](indexers Indexers[T]) Indexer[T] {
	x := &threadSafeMap[T]{
		items:    map[string]map[string]T{},
		indexers: Indexers[T]{},
		indices:  map[string]index{},
	}
	if err := x.AddIndexers(indexers); err != nil {
		panic(err) // only for a NamespaceIndex entry: a programming error
	}
	return x
}

// index maps an index value to the keys of the objects that have it.
type index map[string]map[ObjectName]struct{}

// threadSafeMap stores objects as namespace → name → object. That makes the
// namespace index free and keeps a cached object's overhead to one map slot.
type threadSafeMap[T Object] struct {
	lock     sync.RWMutex
	items    map[string]map[string]T
	count    int
	indexers Indexers[T]
	indices  map[string]index
}

func (m *threadSafeMap[T]) Add(obj T) error    { m.put(obj); return nil }
func (m *threadSafeMap[T]) Update(obj T) error { m.put(obj); return nil }

func (m *threadSafeMap[T]) put(obj T) {
	m.lock.Lock()
	m.putLocked(obj)
	m.lock.Unlock()
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
		m.reindex(ObjectName{ns, name}, old, existed, obj, true)
	}
	return old, existed
}

func (m *threadSafeMap[T]) Delete(obj T) error {
	m.lock.Lock()
	m.deleteLocked(MetaObjectName(obj))
	m.lock.Unlock()
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
			set := idx[v]
			if set == nil {
				set = map[ObjectName]struct{}{}
				idx[v] = set
			}
			set[key] = struct{}{}
		}
	}
}

func (m *threadSafeMap[T]) List() []T {
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

func (m *threadSafeMap[T]) ListKeys() []ObjectName {
	m.lock.RLock()
	defer m.lock.RUnlock()
	out := make([]ObjectName, 0, m.count)
	for ns, byName := range m.items {
		for name := range byName {
			out = append(out, ObjectName{ns, name})
		}
	}
	return out
}

func (m *threadSafeMap[T]) Get(obj T) (T, bool, error) {
	return m.GetByKey(MetaObjectName(obj))
}

func (m *threadSafeMap[T]) GetByKey(key ObjectName) (T, bool, error) {
	m.lock.RLock()
	obj, ok := m.items[key.Namespace][key.Name]
	m.lock.RUnlock()
	return obj, ok, nil
}

func (m *threadSafeMap[T]) Len() int {
	m.lock.RLock()
	defer m.lock.RUnlock()
	return m.count
}

func (m *threadSafeMap[T]) Replace(list []T, _ string) error {
	m.lock.Lock()
	defer m.lock.Unlock()
	m.items = map[string]map[string]T{}
	m.count = 0
	for name := range m.indices {
		m.indices[name] = index{}
	}
	for _, obj := range list {
		m.putLocked(obj)
	}
	return nil
}

func (m *threadSafeMap[T]) Index(indexName string, obj T) ([]T, error) {
	m.lock.RLock()
	defer m.lock.RUnlock()
	if indexName == NamespaceIndex {
		return m.namespaceItems(obj.GetNamespace()), nil
	}
	fn, idx, err := m.indexLocked(indexName)
	if err != nil {
		return nil, err
	}
	vals, err := fn(obj)
	if err != nil {
		return nil, err
	}
	if len(vals) == 1 {
		return m.itemsOf(idx[vals[0]]), nil
	}
	seen := map[ObjectName]struct{}{}
	for _, v := range vals {
		for k := range idx[v] {
			seen[k] = struct{}{}
		}
	}
	return m.itemsOf(seen), nil
}

func (m *threadSafeMap[T]) ByIndex(indexName, value string) ([]T, error) {
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

func (m *threadSafeMap[T]) IndexKeys(indexName, value string) ([]ObjectName, error) {
	m.lock.RLock()
	defer m.lock.RUnlock()
	if indexName == NamespaceIndex {
		byName := m.items[value]
		out := make([]ObjectName, 0, len(byName))
		for name := range byName {
			out = append(out, ObjectName{value, name})
		}
		return out, nil
	}
	_, idx, err := m.indexLocked(indexName)
	if err != nil {
		return nil, err
	}
	out := make([]ObjectName, 0, len(idx[value]))
	for k := range idx[value] {
		out = append(out, k)
	}
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
	sort.Strings(out)
	return out
}

func (m *threadSafeMap[T]) AddIndexers(newIndexers Indexers[T]) error {
	m.lock.Lock()
	defer m.lock.Unlock()
	for name := range newIndexers {
		if name == NamespaceIndex {
			continue // built in; callers often pass client-go's default
		}
		if _, ok := m.indexers[name]; ok {
			return fmt.Errorf("indexer %q already exists", name)
		}
	}
	for name, fn := range newIndexers {
		if name == NamespaceIndex {
			continue
		}
		m.indexers[name] = fn
		idx := index{}
		m.indices[name] = idx
		for ns, byName := range m.items {
			for n, obj := range byName {
				vals, err := fn(obj)
				if err != nil {
					return fmt.Errorf("index %q of %s/%s: %w", name, ns, n, err)
				}
				for _, v := range vals {
					set := idx[v]
					if set == nil {
						set = map[ObjectName]struct{}{}
						idx[v] = set
					}
					set[ObjectName{ns, n}] = struct{}{}
				}
			}
		}
	}
	return nil
}

func (m *threadSafeMap[T]) GetIndexers() Indexers[T] {
	m.lock.RLock()
	defer m.lock.RUnlock()
	out := Indexers[T]{NamespaceIndex: MetaNamespaceIndexFunc[T]}
	for k, v := range m.indexers {
		out[k] = v
	}
	return out
}

func (m *threadSafeMap[T]) indexLocked(name string) (IndexFunc[T], index, error) {
	fn, ok := m.indexers[name]
	if !ok {
		return nil, nil, fmt.Errorf("index with name %s does not exist", name)
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

// MetaNamespaceIndexFunc indexes an object by its namespace.
func MetaNamespaceIndexFunc[T Object](obj T) ([]string, error) {
	return []string{obj.GetNamespace()}, nil
}

// swap stores obj and returns the object it replaced.
func (m *threadSafeMap[T]) swap(obj T) (old T, existed bool) {
	m.lock.Lock()
	defer m.lock.Unlock()
	return m.putLocked(obj)
}

// remove deletes key and returns the object it held.
func (m *threadSafeMap[T]) remove(key ObjectName) (old T, existed bool) {
	m.lock.Lock()
	defer m.lock.Unlock()
	return m.deleteLocked(key)
}
