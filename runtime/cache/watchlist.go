package cache

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"
)

var errInitialEventsCut = errors.New("the watch ended before the end of its initial events")

// watchList reads the resource's whole state with a streamed list: a watch
// that sends every object as an ADDED event, then a bookmark annotated
// "k8s.io/initial-events-end" at the state's resourceVersion. It replaces
// the store with those objects and returns the watch, past that bookmark,
// for the caller to carry on with, or nil when the caller should start a
// plain watch from that bookmark's version (see LeftAfterInitialEvents).
//
// As client-go, the first streamed list asks for the latest state (""),
// and a later one for a state at least as new as the last version seen:
// the server serves it from its watch cache with no history needed, and
// never sends an older state than the store holds. When that version is
// gone or not yet reached, it asks for the latest state at once.
func (r *Reflector[T]) watchList(ctx context.Context) (*openWatch[T], error) {
	for {
		rv := r.LastSyncResourceVersion()
		if r.relistConsistent {
			rv = ""
		}
		timeout := r.watchTimeout()
		start := r.opts.Clock.Now()
		w, err := startWatch(ctx, r.lw, metav1.ListOptions{
			ResourceVersion:      rv,
			ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan,
			SendInitialEvents:    ptr.To(true),
			AllowWatchBookmarks:  true,
			TimeoutSeconds:       &timeout,
		})
		if err == nil {
			var open *openWatch[T]
			if open, err = r.streamInitialEvents(ctx, w, start); err == nil {
				// A bookmark without a version could not be watched from.
				if s, ok := w.(LeftAfterInitialEvents); ok && s.LeaveAfterInitialEvents() && r.LastSyncResourceVersion() != "" {
					w.Stop()
					return nil, nil
				}
				return open, nil
			}
			w.Stop()
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if (isExpired(err) || isTooLargeResourceVersion(err)) && rv != "" {
			r.relistConsistent = true
			continue
		}
		return nil, fmt.Errorf("%s: streamed list: %w", r.opts.Name, err)
	}
}

// streamInitialEvents collects w's objects up to the bookmark that ends
// its initial events, then replaces the store with them.
func (r *Reflector[T]) streamInitialEvents(ctx context.Context, w EventStream[T], start time.Time) (*openWatch[T], error) {
	var transform TransformFunc[T]
	ts, transforms := r.store.(TransformingStore[T])
	if transforms {
		transform = ts.Transformer()
	}
	var objs initialObjects[T]
	events := 0
	for {
		typ, obj, err := w.Next()
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case err == io.EOF && events == 0 && r.opts.Clock.Since(start) < time.Second:
			return nil, errVeryShortWatch
		case err == io.EOF:
			return nil, errInitialEventsCut
		case err != nil && events > 0:
			return nil, midStreamError{err}
		case err != nil:
			return nil, err
		}
		events++
		switch typ {
		case watch.Added, watch.Modified, watch.Deleted:
			if transform != nil {
				obj = transform(obj)
			}
			objs.apply(typ, obj)
		case watch.Bookmark:
			if obj.GetAnnotations()[metav1.InitialEventsAnnotationKey] != "true" {
				continue
			}
			rv := obj.GetResourceVersion()
			list := objs.list()
			var err error
			if transforms {
				err = ts.ReplaceTransformed(list, rv)
			} else {
				err = r.store.Replace(list, rv)
			}
			if err != nil {
				return nil, fmt.Errorf("replace: %w", err)
			}
			r.relistConsistent = false
			r.setLastRV(rv)
			return &openWatch[T]{w: w, start: start, events: events}, nil
		default:
			return nil, fmt.Errorf("unknown watch event type %q", typ)
		}
	}
}

// initialObjects are the objects of a streamed list, in the order they
// came. A server sends each object once, as ADDED; the index by key, to
// apply a later change to an object, is built only if one comes.
type initialObjects[T Object] struct {
	objs []T
	// index holds the position of each key in objs once built; a deleted
	// object's slot is left zero.
	index map[ObjectName]int
}

func (o *initialObjects[T]) apply(t watch.EventType, obj T) {
	if o.index == nil {
		if t == watch.Added {
			o.objs = append(o.objs, obj)
			return
		}
		o.index = make(map[ObjectName]int, len(o.objs))
		for i, obj := range o.objs {
			o.index[MetaObjectName(obj)] = i
		}
	}
	key := MetaObjectName(obj)
	i, ok := o.index[key]
	switch {
	case t == watch.Deleted && ok:
		var zero T
		o.objs[i] = zero
		delete(o.index, key)
	case t == watch.Deleted:
	case ok:
		o.objs[i] = obj
	default:
		o.index[key] = len(o.objs)
		o.objs = append(o.objs, obj)
	}
}

// list returns the objects, without the deleted ones' slots.
func (o *initialObjects[T]) list() []T {
	if o.index == nil || len(o.index) == len(o.objs) {
		return o.objs
	}
	var zero T
	out := o.objs[:0]
	for _, obj := range o.objs {
		if obj != zero {
			out = append(out, obj)
		}
	}
	return out
}

// midStreamError is an error event that came after some of a streamed
// list's objects: the server was serving the stream, so it is no refusal.
type midStreamError struct{ err error }

func (e midStreamError) Error() string { return "after the stream began: " + e.err.Error() }
func (e midStreamError) Unwrap() error { return e.err }

// streamAgain reports whether a failed streamed list is retried as one after
// a backoff rather than followed by a list, as client-go's watchList does:
// the server unreachable, 429, a version expired or not yet reached, and a
// stream cut short after it began (client-go reads it again at once).
// Anything else (a 503 from a proxy, a transport error, an error event,
// an object that did not decode) is listed instead.
func streamAgain(err error) bool {
	return utilnet.IsConnectionRefused(err) || apierrors.IsTooManyRequests(err) ||
		isExpired(err) || isTooLargeResourceVersion(err) || errors.Is(err, errInitialEventsCut)
}

// isWatchListRefused reports whether a streamed list failed because the
// server will not serve one, so that listing is the way: an apiserver with
// the WatchList feature off or older than 1.27 answers 422 Invalid (or 400)
// to its options, and one whose storage cannot serve it answers 500 before
// any object. Other failures (the server unreachable, 429, 503, 504, an
// expired version, the stream cut short, an error after the stream began,
// a watch event the client could not decode) are no refusal: the next
// cycle streams again.
func isWatchListRefused(err error) bool {
	var status apierrors.APIStatus
	if !errors.As(err, &status) || errors.As(err, new(midStreamError)) {
		return false
	}
	if details := status.Status().Details; details != nil {
		for _, c := range details.Causes {
			if c.Type == "ClientWatchDecoding" {
				return false
			}
		}
	}
	switch status.Status().Code {
	case http.StatusBadRequest, http.StatusMethodNotAllowed, http.StatusNotAcceptable,
		http.StatusUnsupportedMediaType, http.StatusUnprocessableEntity,
		http.StatusInternalServerError, http.StatusNotImplemented:
		return true
	}
	return false
}
