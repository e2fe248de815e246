package cache

import (
	"errors"
	"sync"
)

// DeltaType says what happened to an object.
type DeltaType uint8

const (
	Added DeltaType = iota + 1
	Updated
	Deleted
	// Replaced is an object seen in a relist.
	Replaced
	// Sync is a periodic resync of a cached object.
	Sync
)

func (t DeltaType) String() string {
	switch t {
	case Added:
		return "Added"
	case Updated:
		return "Updated"
	case Deleted:
		return "Deleted"
	case Replaced:
		return "Replaced"
	case Sync:
		return "Sync"
	}
	return "Unknown"
}

// Delta is one change to an object.
type Delta[T any] struct {
	Type   DeltaType
	Object T
	// FinalStateUnknown marks a Deleted delta that was inferred from a
	// relist: Object is the last state the informer knew, which may be older
	// than the object's state when it was deleted.
	FinalStateUnknown bool
}

// Deltas are the changes to one object, oldest first.
type Deltas[T any] []Delta[T]

// Newest returns the most recent delta, or false if there is none.
func (d Deltas[T]) Newest() (Delta[T], bool) {
	if len(d) == 0 {
		return Delta[T]{}, false
	}
	return d[len(d)-1], true
}

// KnownObjects is what a DeltaFIFO consults to find deletions on a relist and
// objects to resync: in an informer, its Indexer.
type KnownObjects[T any] interface {
	GetByName(key ObjectName) (T, bool)
	ListNames() []ObjectName
	Len() int
}

// ErrFIFOClosed is returned by Pop once the queue is closed.
var ErrFIFOClosed = errors.New("DeltaFIFO: manipulating with closed queue")

// PopProcessFunc handles the deltas of one key. It runs with the queue
// locked, so a Replace or Resync never sees the key half-processed.
type PopProcessFunc[T any] func(key ObjectName, deltas Deltas[T], isInInitialList bool)

// popBatch is how many keys one Pop hands over under one lock acquisition.
const popBatch = 64

// shrinkAbove is the size past which an emptied queue gives its storage
// back, so that a large initial list leaves nothing behind once synced.
const shrinkAbove = 1024

// DeltaFIFO queues the deltas of each key in the order the keys first
// changed. A key is in the queue at most once, with all of its deltas.
type DeltaFIFO[T Object] struct {
	lock sync.Mutex
	cond sync.Cond

	items map[ObjectName]Deltas[T]
	// queue holds the keys of items in FIFO order, from head on.
	queue []ObjectName
	head  int
	// highWater is the largest len(items) since it was last emptied.
	highWater int

	// knownObjects, transform, replaced and inline are DeltaFIFOOptions'.
	knownObjects KnownObjects[T]
	transform    TransformFunc[T]
	replaced     func(resourceVersion string)
	inline       PopProcessFunc[T]
	// replaceRV is the last Replace's resourceVersion, and replaceLeft how
	// many of the keys queued then are still to pop.
	replaceRV   string
	replaceLeft int
	// replaces counts the Replace calls, and replacedUpTo is the count at
	// the last one whose keys were all popped (with replaced set).
	replaces, replacedUpTo int64

	// populated turns true at the first Add, Update, Delete or Replace;
	// initialPopulationCount is how many keys of the first Replace have not
	// been popped yet.
	populated              bool
	initialPopulationCount int
	closed                 bool
	// synced is closed once HasSynced turns true.
	synced chan struct{}
}

// DeltaFIFOOptions configure NewDeltaFIFOWithOptions; all are optional.
type DeltaFIFOOptions[T any] struct {
	// KnownObjects are the objects already handled (an informer's
	// Indexer). Without them a Replace cannot find objects deleted while
	// disconnected, nor Resync anything to resync.
	KnownObjects KnownObjects[T]
	// Transformer rewrites every object the queue is given before it is
	// queued.
	Transformer TransformFunc[T]
	// Replaced is told the resourceVersion of a Replace once every key
	// queued when it was called has been popped: an informer then puts its
	// store at the list's version, as client-go's does.
	Replaced func(resourceVersion string)
	// Inline processes a watch event (Add, Update or Delete) at once, in
	// the caller's goroutine, when the queue has synced, is empty and is
	// open: Pop would process it next anyway, under the same lock, so
	// nothing can tell the difference but the goroutine the Pop loop did
	// not have to wake. It must do what the function given to Pop does.
	Inline PopProcessFunc[T]
}

// NewDeltaFIFO returns an empty queue. knownObjects may be nil; without it
// a Replace cannot find objects deleted while disconnected.
func NewDeltaFIFO[T Object](knownObjects KnownObjects[T], transform TransformFunc[T]) *DeltaFIFO[T] {
	return NewDeltaFIFOWithOptions(DeltaFIFOOptions[T]{KnownObjects: knownObjects, Transformer: transform})
}

// NewDeltaFIFOWithOptions returns an empty queue.
func NewDeltaFIFOWithOptions[T Object](opts DeltaFIFOOptions[T]) *DeltaFIFO[T] {
	f := &DeltaFIFO[T]{
		items:        map[ObjectName]Deltas[T]{},
		knownObjects: opts.KnownObjects,
		transform:    opts.Transformer,
		replaced:     opts.Replaced,
		inline:       opts.Inline,
		synced:       make(chan struct{}),
	}
	f.cond.L = &f.lock
	return f
}

// Add queues an Added delta.
func (f *DeltaFIFO[T]) Add(obj T) error { return f.queueFromServer(Added, obj) }

// Update queues an Updated delta.
func (f *DeltaFIFO[T]) Update(obj T) error { return f.queueFromServer(Updated, obj) }

func (f *DeltaFIFO[T]) queueFromServer(t DeltaType, obj T) error {
	f.lock.Lock()
	defer f.lock.Unlock()
	f.populated = true
	obj = f.transformed(obj) // first: a transform may rename what is cached
	f.queueEventLocked(MetaObjectName(obj), Delta[T]{Type: t, Object: obj})
	f.noteSyncedLocked()
	return nil
}

// Delete queues a Deleted delta carrying obj, the object's final state. A
// delete of an object that is neither known nor queued is ignored; without
// a known-objects store, one that is not queued is.
func (f *DeltaFIFO[T]) Delete(obj T) error {
	f.lock.Lock()
	defer f.lock.Unlock()
	f.populated = true
	defer f.noteSyncedLocked()
	obj = f.transformed(obj)
	key := MetaObjectName(obj)
	if _, queued := f.items[key]; !queued {
		// Neither queued nor known: a relist has reported it already.
		if f.knownObjects == nil {
			return nil
		}
		if _, known := f.knownObjects.GetByName(key); !known {
			return nil
		}
	}
	f.queueEventLocked(key, Delta[T]{Type: Deleted, Object: obj})
	return nil
}

// Replace queues a Replaced delta for every object in list, and a Deleted
// delta carrying the last known state for every known or queued object that
// is not in list: those were deleted while the watch was down. An object
// whose UID changed was deleted and created again, so it gets a Deleted
// delta for the old object before the Replaced one.
func (f *DeltaFIFO[T]) Replace(list []T, resourceVersion string) error {
	return f.replace(list, resourceVersion, f.transform)
}

// Transformer and ReplaceTransformed make the queue a TransformingStore,
// to which a Reflector hands a streamed list's objects transformed as they
// arrived.
func (f *DeltaFIFO[T]) Transformer() TransformFunc[T] { return f.transform }

func (f *DeltaFIFO[T]) ReplaceTransformed(list []T, resourceVersion string) error {
	return f.replace(list, resourceVersion, nil)
}

func (f *DeltaFIFO[T]) replace(list []T, resourceVersion string, transform TransformFunc[T]) error {
	f.lock.Lock()
	defer f.lock.Unlock()

	// With nothing queued or known, as on the first list, nothing can have
	// vanished or changed UID, and the list needs no key set.
	if len(f.items) == 0 && f.knownLen() == 0 {
		for _, obj := range list {
			if transform != nil {
				obj = transform(obj)
			}
			f.queueLocked(MetaObjectName(obj), Delta[T]{Type: Replaced, Object: obj})
		}
		f.markPopulatedLocked(resourceVersion)
		return nil
	}

	inList := make(map[ObjectName]struct{}, len(list))
	for _, obj := range list {
		if transform != nil {
			obj = transform(obj)
		}
		key := MetaObjectName(obj)
		inList[key] = struct{}{}
		if old, ok := f.lastKnownLocked(key); ok && old.GetUID() != obj.GetUID() && old.GetUID() != "" && obj.GetUID() != "" {
			f.queueLocked(key, Delta[T]{Type: Deleted, Object: old, FinalStateUnknown: true})
		}
		f.queueLocked(key, Delta[T]{Type: Replaced, Object: obj})
	}

	for key, deltas := range f.items {
		if _, ok := inList[key]; ok {
			continue
		}
		if newest, _ := deltas.Newest(); newest.Type != Deleted {
			f.queueLocked(key, Delta[T]{Type: Deleted, Object: newest.Object, FinalStateUnknown: true})
		}
	}
	if f.knownObjects != nil {
		for _, key := range f.knownObjects.ListNames() {
			if _, ok := inList[key]; ok {
				continue
			}
			if _, queued := f.items[key]; queued {
				continue // handled above
			}
			if old, known := f.knownObjects.GetByName(key); known {
				f.queueLocked(key, Delta[T]{Type: Deleted, Object: old, FinalStateUnknown: true})
			}
		}
	}

	f.markPopulatedLocked(resourceVersion)
	return nil
}

// markPopulatedLocked ends a Replace: the first one sets how many keys
// must be popped before the queue has synced.
func (f *DeltaFIFO[T]) markPopulatedLocked(resourceVersion string) {
	f.replaces++
	if f.replaced != nil {
		f.replaceRV, f.replaceLeft = resourceVersion, len(f.items)
		if f.replaceLeft == 0 {
			f.replacedUpTo = f.replaces
			f.replaced(resourceVersion)
		}
	}
	if !f.populated {
		f.populated = true
		f.initialPopulationCount = len(f.items)
	}
	f.noteSyncedLocked()
}

// noteSyncedLocked closes synced when the queue has just synced.
func (f *DeltaFIFO[T]) noteSyncedLocked() {
	if f.hasSyncedLocked() {
		select {
		case <-f.synced:
		default:
			close(f.synced)
		}
	}
}

func (f *DeltaFIFO[T]) knownLen() int {
	if f.knownObjects == nil {
		return 0
	}
	return f.knownObjects.Len()
}

// lastKnownLocked returns the newest state of key: its newest queued delta,
// or else the known object. A queued delete means there is none.
func (f *DeltaFIFO[T]) lastKnownLocked(key ObjectName) (T, bool) {
	if newest, ok := f.items[key].Newest(); ok {
		if newest.Type == Deleted {
			var zero T
			return zero, false
		}
		return newest.Object, true
	}
	if f.knownObjects == nil {
		var zero T
		return zero, false
	}
	return f.knownObjects.GetByName(key)
}

// Resync queues a Sync delta for every known object that has no delta
// queued.
func (f *DeltaFIFO[T]) Resync() error {
	f.lock.Lock()
	defer f.lock.Unlock()
	if f.knownObjects == nil {
		return nil
	}
	for _, key := range f.knownObjects.ListNames() {
		if _, queued := f.items[key]; queued {
			continue
		}
		if obj, ok := f.knownObjects.GetByName(key); ok {
			f.queueLocked(key, Delta[T]{Type: Sync, Object: obj})
		}
	}
	return nil
}

func (f *DeltaFIFO[T]) transformed(obj T) T {
	if f.transform != nil {
		return f.transform(obj)
	}
	return obj
}

// queueEventLocked queues a watch event's delta, or hands it to inline.
func (f *DeltaFIFO[T]) queueEventLocked(key ObjectName, d Delta[T]) {
	if f.inline != nil && !f.closed && f.head == len(f.queue) && f.replaceLeft == 0 && f.hasSyncedLocked() {
		f.inline(key, Deltas[T]{d}, false)
		return
	}
	f.queueLocked(key, d)
}

func (f *DeltaFIFO[T]) queueLocked(key ObjectName, d Delta[T]) {
	old, queued := f.items[key]
	deltas := dedupDeltas(append(old, d))
	f.items[key] = deltas
	if !queued {
		f.queue = append(f.queue, key)
		if len(f.items) > f.highWater {
			f.highWater = len(f.items)
		}
		f.cond.Signal()
	}
}

// dedupDeltas collapses two deletes at the end into one, as client-go's
// isDeletionDup: it keeps the older, unless the older's final state is
// unknown and so the newer says more.
func dedupDeltas[T any](d Deltas[T]) Deltas[T] {
	n := len(d)
	if n < 2 || d[n-1].Type != Deleted || d[n-2].Type != Deleted {
		return d
	}
	if d[n-2].FinalStateUnknown {
		d[n-2] = d[n-1]
	}
	var zero Delta[T]
	d[n-1] = zero
	return d[:n-1]
}

// Pop waits for at least one key and hands up to popBatch keys to process,
// oldest first, with the queue locked. It returns ErrFIFOClosed once the
// queue is closed and empty.
func (f *DeltaFIFO[T]) Pop(process PopProcessFunc[T]) error {
	f.lock.Lock()
	defer f.lock.Unlock()
	for f.head == len(f.queue) {
		if f.closed {
			return ErrFIFOClosed
		}
		f.cond.Wait()
	}
	for n := 0; n < popBatch && f.head < len(f.queue); n++ {
		key := f.queue[f.head]
		f.queue[f.head] = ObjectName{}
		f.head++
		deltas := f.items[key]
		delete(f.items, key)
		isInInitialList := !f.hasSyncedLocked()
		if f.initialPopulationCount > 0 {
			f.initialPopulationCount--
		}
		process(key, deltas, isInInitialList)
		if f.replaceLeft > 0 {
			if f.replaceLeft--; f.replaceLeft == 0 {
				f.replacedUpTo = f.replaces
				f.replaced(f.replaceRV)
			}
		}
	}
	f.noteSyncedLocked()
	f.compactLocked()
	return nil
}

func (f *DeltaFIFO[T]) compactLocked() {
	if f.head < len(f.queue) {
		if f.head > shrinkAbove && f.head > len(f.queue)/2 {
			n := copy(f.queue, f.queue[f.head:])
			f.queue = f.queue[:n]
			f.head = 0
		}
		return
	}
	f.head = 0
	if cap(f.queue) > shrinkAbove {
		f.queue = nil
	} else {
		f.queue = f.queue[:0]
	}
	if f.highWater > shrinkAbove {
		f.items = map[ObjectName]Deltas[T]{}
		f.highWater = 0
	}
}

// HasSynced is true once the first Replace (or any other change, when there
// was none) has been popped entirely.
func (f *DeltaFIFO[T]) HasSynced() bool {
	f.lock.Lock()
	defer f.lock.Unlock()
	return f.hasSyncedLocked()
}

// Synced is closed once HasSynced is true.
func (f *DeltaFIFO[T]) Synced() <-chan struct{} { return f.synced }

func (f *DeltaFIFO[T]) hasSyncedLocked() bool {
	return f.populated && f.initialPopulationCount == 0
}

// Len is the number of queued keys.
func (f *DeltaFIFO[T]) Len() int {
	f.lock.Lock()
	defer f.lock.Unlock()
	return len(f.items)
}

// Close wakes Pop, which returns ErrFIFOClosed once the queue is empty.
func (f *DeltaFIFO[T]) Close() {
	f.lock.Lock()
	f.closed = true
	f.lock.Unlock()
	f.cond.Broadcast()
}

// withLock runs fn with the queue locked, so that no deltas are processed
// while it runs.
func (f *DeltaFIFO[T]) withLock(fn func()) {
	f.lock.Lock()
	defer f.lock.Unlock()
	fn()
}
