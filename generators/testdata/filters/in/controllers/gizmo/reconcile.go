package gizmo

import (
	"context"

	widgetsv1 "example.com/filters/apis/widgets/v1"
	"github.com/ctrlgen/ctrlgen/runtime/controller"
)

// Reconcile does nothing.
func (c *Controller) Reconcile(ctx context.Context, obj *widgetsv1.Gizmo) (controller.Result, error) {
	return controller.Result{}, nil
}

// FilterUpdate passes an update that pauses or resumes the Gizmo; the
// wiring passes it along with the marker's annotationsChanged.
func (c *Controller) FilterUpdate(old, obj *widgetsv1.Gizmo) bool {
	return old.Spec.Paused != obj.Spec.Paused
}
