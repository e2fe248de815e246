package controller

import (
	"context"

	"github.com/ctrlgen/ctrlgen/runtime/cache"
)

// WriteStatus is the status write-back of a reconcile, for tests.
func WriteStatus[T cache.Object](ctx context.Context, c *Controller[T], cached, obj T, observedGeneration bool) error {
	return c.writeStatus(ctx, cache.MetaObjectName(obj), cached, obj, observedGeneration)
}

// StatusApplyFields are the fields a status apply would send, for tests.
func StatusApplyFields[T cache.Object](c *Controller[T], cached, obj T, observedGeneration bool) (map[string]any, error) {
	return c.statusApplier.fields(cached, obj, observedGeneration)
}
