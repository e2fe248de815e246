package controller

import (
	"maps"
	"slices"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ctrlgen/ctrlgen/runtime/cache"
)

// UpdateFilter says whether an update of a controller's primary object,
// from old to obj, queues it for Reconcile (Options.UpdateFilter). It is
// controller-runtime's predicate.Predicate for update events: adds and
// deletes are never filtered, nor are the events of owned objects, Run's
// queueing of every cached key or a RequeueAfter. A resync (old and obj
// at the same resourceVersion) is an update like any other: it passes no
// filter below, as it passes none of controller-runtime's.
type UpdateFilter[T cache.Object] func(old, obj T) bool

// GenerationChanged passes an update that changed metadata.generation:
// for a custom resource with a status subresource, a change of anything
// but metadata and status (controller-runtime's
// GenerationChangedPredicate). Status writes, by this controller or
// anyone, and metadata-only changes are dropped; so is a status someone
// wiped, which the controller then does not restore until the next spec
// change. Some built-in kinds bump the generation on other changes too
// (a Deployment's annotations).
func GenerationChanged[T cache.Object](old, obj T) bool {
	return old.GetGeneration() != obj.GetGeneration()
}

// LabelsChanged passes an update that changed metadata.labels
// (controller-runtime's LabelChangedPredicate). A nil and an empty map
// are equal.
func LabelsChanged[T cache.Object](old, obj T) bool {
	return !maps.Equal(old.GetLabels(), obj.GetLabels())
}

// AnnotationsChanged passes an update that changed metadata.annotations
// (controller-runtime's AnnotationChangedPredicate).
func AnnotationsChanged[T cache.Object](old, obj T) bool {
	return !maps.Equal(old.GetAnnotations(), obj.GetAnnotations())
}

// Or passes an update that any of filters passes; with none, no update
// (controller-runtime's predicate.Or).
func Or[T cache.Object](filters ...UpdateFilter[T]) UpdateFilter[T] {
	return func(old, obj T) bool {
		for _, f := range filters {
			if f(old, obj) {
				return true
			}
		}
		return false
	}
}

// And passes an update that every one of filters passes; with none,
// every update (controller-runtime's predicate.And).
func And[T cache.Object](filters ...UpdateFilter[T]) UpdateFilter[T] {
	return func(old, obj T) bool {
		for _, f := range filters {
			if !f(old, obj) {
				return false
			}
		}
		return true
	}
}

// ownWrites remembers, per key, the controller's last status write
// (Options.SkipOwnStatusWrites): the resourceVersion it was made on and
// the one it made, so that the update event it causes is recognised and
// dropped. The event may arrive before the write returns: an update from
// the write's resourceVersion is then held, and released or dropped when
// the write returns. A key's writes are never concurrent: the workqueue
// gives a key to one worker at a time. Only the last write is remembered:
// when a reconcile (on a cache that does not show the last write yet)
// writes again before the last write's update arrives, that update is
// reconciled. The error is always on the side of reconciling.
type ownWrites struct {
	mu sync.Mutex
	m  map[cache.ObjectName]*ownWrite
}

type ownWrite struct {
	// from is the resourceVersion the write was made on; to the one it
	// made, empty while the write is in flight.
	from, to string
	// held is the update from from that arrived while the write was in
	// flight.
	held *heldUpdate
}

type heldUpdate struct {
	// rv is the update's resourceVersion; same says that nothing outside
	// status changed; pass that UpdateFilter passed it.
	rv         string
	same, pass bool
}

func newOwnWrites() *ownWrites { return &ownWrites{m: map[cache.ObjectName]*ownWrite{}} }

// begin notes that a status write of key on resourceVersion from is about
// to be sent. release says that an update held for an earlier attempt
// (whose write conflicted) must be queued.
func (w *ownWrites) begin(key cache.ObjectName, from string) (release bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	release = w.m[key].release("")
	w.m[key] = &ownWrite{from: from}
	return release
}

// end notes that the write begun last returned resourceVersion to (empty:
// it failed). release says that the update held meanwhile was not the
// write's own and must be queued.
func (w *ownWrites) end(key cache.ObjectName, to string) (release bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	rec := w.m[key]
	if rec == nil {
		return false
	}
	release = rec.release(to)
	if to == "" || rec.held != nil {
		delete(w.m, key)
		return release
	}
	rec.to = to
	return false
}

// release reports whether rec's held update is to be queued, once the
// write is known to have made resourceVersion to.
func (rec *ownWrite) release(to string) bool {
	if rec == nil || rec.held == nil {
		return false
	}
	return rec.held.pass && (to == "" || rec.held.rv != to || !rec.held.same)
}

// forget drops key's record, when its object is deleted.
func (w *ownWrites) forget(key cache.ObjectName) {
	w.mu.Lock()
	delete(w.m, key)
	w.mu.Unlock()
}

// claim reports whether the update from old to obj is the controller's
// own status write of key, to be dropped, or is held until that write
// returns; pass is what UpdateFilter says of it. The update must go from
// the write's resourceVersion to the one it made with nothing outside
// status changed: one that merely ends at the write (after a relist that
// skipped other writes) passes. A resync is never claimed.
func (w *ownWrites) claim(key cache.ObjectName, old, obj metav1.Object, pass bool) bool {
	from, rv := old.GetResourceVersion(), obj.GetResourceVersion()
	if from == rv {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	rec := w.m[key]
	switch {
	case rec == nil || rec.from != from:
		return false
	case rec.to == "":
		rec.held = &heldUpdate{rv: rv, same: sameOutsideStatus(old, obj), pass: pass}
		return true
	}
	delete(w.m, key)
	return rec.to == rv && sameOutsideStatus(old, obj)
}

// sameOutsideStatus reports whether old and obj agree on everything a
// status subresource write cannot change that the controller may act on:
// the generation (which stands for the spec) and the metadata users and
// controllers write. A status write by server-side apply carries no
// resourceVersion precondition, so its from is the cached object's,
// which someone else's write may have followed unseen (a relist); this
// catches such a write unless it too touched only status.
func sameOutsideStatus(old, obj metav1.Object) bool {
	return old.GetGeneration() == obj.GetGeneration() &&
		old.GetDeletionTimestamp().Equal(obj.GetDeletionTimestamp()) &&
		maps.Equal(old.GetLabels(), obj.GetLabels()) &&
		maps.Equal(old.GetAnnotations(), obj.GetAnnotations()) &&
		slices.Equal(old.GetFinalizers(), obj.GetFinalizers()) &&
		slices.EqualFunc(old.GetOwnerReferences(), obj.GetOwnerReferences(), ownerRefEqual)
}

func ownerRefEqual(a, b metav1.OwnerReference) bool {
	return a.APIVersion == b.APIVersion && a.Kind == b.Kind && a.Name == b.Name && a.UID == b.UID &&
		equalBoolPtr(a.Controller, b.Controller) && equalBoolPtr(a.BlockOwnerDeletion, b.BlockOwnerDeletion)
}

func equalBoolPtr(a, b *bool) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
