package cache

import (
	"context"
	"fmt"
	"io"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// EventStream is a watch read event by event by its caller: the Reflector
// decodes each event in its own goroutine, where a watch.Interface hands
// events over a channel from a goroutine of its own.
type EventStream[T Object] interface {
	// Next returns the next event. It returns io.EOF once the watch has
	// ended normally (the server closed it, or the connection dropped), the
	// context's error once it is done, and any other error for an ERROR
	// event (apierrors.FromObject of its Status) or an event that could not
	// be decoded (an *apierrors.StatusError with the cause
	// "ClientWatchDecoding", as client-go's watches report it). After an
	// error the stream is over.
	Next() (watch.EventType, T, error)
	// Stop ends the watch and releases its connection.
	Stop()
}

// LeftAfterInitialEvents is an EventStream that may be better stopped once
// a streamed list's initial events are read: the Reflector then carries on
// with a plain watch from the bookmark's resourceVersion. A kube-apiserver
// with WatchListCompression (beta, on by default since 1.37) gzips a
// streamed list's whole response when the client accepts gzip, which Go's
// transport asks for by default: once the initial events are sent, each
// later event is flushed as a gzip member of its own, which both the
// server and the client pay for per event. A plain watch is never
// compressed.
type LeftAfterInitialEvents interface {
	// LeaveAfterInitialEvents reports whether the stream should be stopped
	// at the bookmark that ends its initial events.
	LeaveAfterInitialEvents() bool
}

// WatchStreamer is a ListerWatcher that can start its watches as
// EventStreams. The Reflector asks it first, and uses Watch when
// WatchStream returns a nil stream and no error.
type WatchStreamer[T Object] interface {
	WatchStream(ctx context.Context, opts metav1.ListOptions) (EventStream[T], error)
}

// WatchStream starts a watch with WatchStreamFunc, or returns nil when it
// is not set, so that the Reflector calls Watch.
func (lw *ListWatch[T]) WatchStream(ctx context.Context, opts metav1.ListOptions) (EventStream[T], error) {
	if lw.WatchStreamFunc == nil {
		return nil, nil
	}
	return lw.WatchStreamFunc(ctx, opts)
}

// startWatch starts a watch on lw: an EventStream if lw can start one,
// else its watch.Interface read through one.
func startWatch[T Object](ctx context.Context, lw ListerWatcher[T], opts metav1.ListOptions) (EventStream[T], error) {
	if ws, ok := lw.(WatchStreamer[T]); ok {
		if s, err := ws.WatchStream(ctx, opts); s != nil || err != nil {
			return s, err
		}
	}
	w, err := lw.Watch(ctx, opts)
	if err != nil {
		return nil, err
	}
	return &channelStream[T]{ctx: ctx, w: w}, nil
}

// channelStream reads a watch.Interface's result channel as an
// EventStream.
type channelStream[T Object] struct {
	ctx context.Context
	w   watch.Interface
}

func (s *channelStream[T]) Next() (watch.EventType, T, error) {
	var zero T
	select {
	case <-s.ctx.Done():
		return "", zero, s.ctx.Err()
	case ev, ok := <-s.w.ResultChan():
		if !ok {
			return "", zero, io.EOF
		}
		if ev.Type == watch.Error {
			return ev.Type, zero, apierrors.FromObject(ev.Object)
		}
		obj, ok := ev.Object.(T)
		if !ok {
			return ev.Type, zero, fmt.Errorf("unexpected %T in %s event", ev.Object, ev.Type)
		}
		return ev.Type, obj, nil
	}
}

func (s *channelStream[T]) Stop() { s.w.Stop() }
