package controller

import (
	"context"
	"time"

	"github.com/ctrlgen/ctrlgen/runtime/cache"
)

// Reconciled is a reconcile a controller has finished.
type Reconciled struct {
	Controller string
	Key        cache.ObjectName
	// Start and End bracket the whole reconcile: the finalizer, Reconcile
	// or Deleted, and the status write.
	Start, End time.Time
	// Err is what the reconcile failed with, a recovered panic included.
	Err error
}

type observerKey struct{}

// WithReconcileObserver makes the controllers Run with ctx, or with a
// context derived from it such as the one a manager's Run passes on, call
// observe after each reconcile, for tracing or auditing. observe runs on
// the worker that reconciled, before the worker takes the next key, and
// with WithShards while the key's bucket is still held; it must be safe
// for concurrent use, and quick.
func WithReconcileObserver(ctx context.Context, observe func(Reconciled)) context.Context {
	return context.WithValue(ctx, observerKey{}, observe)
}

func observerFrom(ctx context.Context) func(Reconciled) {
	observe, _ := ctx.Value(observerKey{}).(func(Reconciled))
	return observe
}
