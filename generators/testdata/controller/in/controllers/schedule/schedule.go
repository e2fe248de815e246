package schedule

import (
	"context"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/klog/v2"

	opsv1 "example.com/controller/apis/ops/v1"
	"github.com/ctrlgen/ctrlgen/runtime/cache"
	"github.com/ctrlgen/ctrlgen/runtime/controller"
)

// Reconcile is hand-written before the first run, in a file of its own
// name: ctrlgen writes no reconcile.go next to it.
func (c *Controller) Reconcile(ctx context.Context, obj *opsv1.Schedule) (controller.Result, error) {
	backups, err := c.backupLister.List(labels.Everything())
	if err != nil {
		return controller.Result{}, err
	}
	klog.FromContext(ctx).Info("Schedule", "schedule", klog.KObj(obj), "backups", len(backups))
	return controller.Result{}, nil
}

// Deleted is wired because it is defined.
func (c *Controller) Deleted(ctx context.Context, key cache.ObjectName) error {
	klog.FromContext(ctx).Info("Schedule deleted", "key", key)
	return nil
}
