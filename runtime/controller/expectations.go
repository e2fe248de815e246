package controller

import (
	"sync"
	"time"

	"k8s.io/utils/clock"

	"github.com/ctrlgen/ctrlgen/runtime/cache"
)

// ExpectationsTimeout is how long an owner's expectations may stay unmet
// before they count as met, so that a lost event cannot wedge an owner:
// kube-controller-manager's 5 minutes.
const ExpectationsTimeout = 5 * time.Minute

// Expectations remember, per owner, the creations and deletions of owned
// objects that Reconcile has asked for and the owned informer has not yet
// observed, as kube-controller-manager's ControllerExpectations do for
// ReplicaSets. Until they are met, the owner's cached view of its
// children is stale, and acting on it would create duplicates or delete
// twice.
//
// Reconcile raises them before it writes: ExpectCreations(owner, n) before
// n creates, ExpectDeletions(owner, keys) before deleting keys. A write
// that fails lowers them at once (CreationObserved, DeletionObserved),
// since no event will. The wiring of the owned watch (WatchOwned) lowers
// them as the informer observes each add and delete, and the controller
// skips Reconcile for an owner whose expectations are not met.
type Expectations[T cache.Object] struct {
	clock   clock.PassiveClock
	timeout time.Duration

	mu      sync.Mutex
	pending map[cache.ObjectName]*expectation
}

type expectation struct {
	creations int
	// deletions are the keys still to be seen deleted. Keys, not a count,
	// so that the update that starts a graceful deletion and the delete
	// that ends it lower the expectation once.
	deletions map[cache.ObjectName]struct{}
	// raised is when the expectation was last raised; it expires from then.
	raised time.Time
}

func (e *expectation) met() bool { return e.creations <= 0 && len(e.deletions) == 0 }

// NewExpectations returns empty expectations that expire after timeout
// (ExpectationsTimeout when 0), as told by clk (the real clock when nil).
func NewExpectations[T cache.Object](clk clock.PassiveClock, timeout time.Duration) *Expectations[T] {
	if clk == nil {
		clk = clock.RealClock{}
	}
	if timeout <= 0 {
		timeout = ExpectationsTimeout
	}
	return &Expectations[T]{clock: clk, timeout: timeout, pending: map[cache.ObjectName]*expectation{}}
}

// ExpectCreations records that owner is about to create n objects.
func (x *Expectations[T]) ExpectCreations(owner T, n int) {
	if n <= 0 {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	e := x.raise(cache.MetaObjectName(owner))
	e.creations += n
}

// ExpectDeletions records that owner is about to delete the objects keys.
func (x *Expectations[T]) ExpectDeletions(owner T, keys []cache.ObjectName) {
	if len(keys) == 0 {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	e := x.raise(cache.MetaObjectName(owner))
	if e.deletions == nil {
		e.deletions = make(map[cache.ObjectName]struct{}, len(keys))
	}
	for _, k := range keys {
		e.deletions[k] = struct{}{}
	}
}

func (x *Expectations[T]) raise(owner cache.ObjectName) *expectation {
	e := x.pending[owner]
	if e == nil {
		e = &expectation{}
		x.pending[owner] = e
	}
	e.raised = x.clock.Now()
	return e
}

// CreationObserved lowers owner's expected creations by one. Reconcile
// calls it for a create that failed; the owned watch calls it for each
// object it sees added.
func (x *Expectations[T]) CreationObserved(owner T) {
	x.creationObserved(cache.MetaObjectName(owner))
}

// DeletionObserved removes key from owner's expected deletions. Reconcile
// calls it for a delete that failed; the owned watch calls it for each
// object it sees deleted or being deleted.
func (x *Expectations[T]) DeletionObserved(owner T, key cache.ObjectName) {
	x.deletionObserved(cache.MetaObjectName(owner), key)
}

// Satisfied reports whether owner may be reconciled: it expects nothing,
// everything it expected has been observed, or its expectations have
// expired.
func (x *Expectations[T]) Satisfied(owner T) bool {
	_, ok := x.satisfied(cache.MetaObjectName(owner))
	return ok
}

func (x *Expectations[T]) creationObserved(owner cache.ObjectName) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if e := x.pending[owner]; e != nil && e.creations > 0 {
		e.creations--
		x.dropIfMet(owner, e)
	}
}

func (x *Expectations[T]) deletionObserved(owner, key cache.ObjectName) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if e := x.pending[owner]; e != nil {
		delete(e.deletions, key)
		x.dropIfMet(owner, e)
	}
}

func (x *Expectations[T]) dropIfMet(owner cache.ObjectName, e *expectation) {
	if e.met() {
		delete(x.pending, owner)
	}
}

// satisfied is Satisfied by key; when it is false, wait is how long until
// the expectations expire.
func (x *Expectations[T]) satisfied(owner cache.ObjectName) (wait time.Duration, ok bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	e := x.pending[owner]
	if e == nil {
		return 0, true
	}
	if e.met() {
		delete(x.pending, owner)
		return 0, true
	}
	age := x.clock.Since(e.raised)
	if age >= x.timeout {
		delete(x.pending, owner)
		return 0, true
	}
	return x.timeout - age, false
}

// forget drops owner's expectations, when the owner is gone.
func (x *Expectations[T]) forget(owner cache.ObjectName) {
	x.mu.Lock()
	delete(x.pending, owner)
	x.mu.Unlock()
}

// Len is how many owners have pending expectations.
func (x *Expectations[T]) Len() int {
	x.mu.Lock()
	defer x.mu.Unlock()
	return len(x.pending)
}
