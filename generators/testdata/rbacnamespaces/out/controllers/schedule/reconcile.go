package schedule

import (
	"context"

	opsv1 "example.com/rbacnamespaces/apis/ops/v1"
	"github.com/ctrlgen/ctrlgen/runtime/controller"
	klog "k8s.io/klog/v2"
)

// This file is yours: ctrlgen wrote it once, because the package had no
// Reconcile, and never touches it again. The wiring it calls into is in
// zz_generated.controller.go, which ctrlgen rewrites on every run.
//
// To act on a Schedule that is gone from the cache, define
//
//	func (c *Controller) Deleted(ctx context.Context, key cache.ObjectName) error
//
// and run ctrlgen again: the wiring then calls it.

// Reconcile makes the world match obj, a deep copy of the cached
// Schedule that Reconcile may change.
//
// Return an error to retry with backoff, controller.Permanent(err) for one
// that retrying cannot fix, or a Result to reconcile again later.
func (c *Controller) Reconcile(ctx context.Context, obj *opsv1.Schedule) (controller.Result, error) {
	klog.FromContext(ctx).Info("Reconciling Schedule", "schedule", klog.KObj(obj), "generation", obj.Generation)
	return controller.Result{}, nil
}
