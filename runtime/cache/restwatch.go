package cache

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ctrlgen/ctrlgen/runtime/wire"
)

// RESTResource is what a typed client's Watch puts into its request (see
// wire.RESTResource).
type RESTResource = wire.RESTResource

// RESTWatchStream returns a ListWatch's WatchStreamFunc that reads each
// watch's response body in the Reflector's goroutine, as
// wire.RESTWatchStream does, or nil, and the ListWatch keeps its
// WatchFunc, where that reads none. The generated informers call it.
func RESTWatchStream[T Object](r RESTResource, tweak func(*metav1.ListOptions)) func(context.Context, metav1.ListOptions) (EventStream[T], error) {
	start := wire.RESTWatchStream[T](r, tweak)
	if start == nil {
		return nil
	}
	return func(ctx context.Context, opts metav1.ListOptions) (EventStream[T], error) {
		s, err := start(ctx, opts)
		if err != nil {
			return nil, err
		}
		return s, nil
	}
}
