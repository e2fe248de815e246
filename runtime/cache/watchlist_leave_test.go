package cache

import (
	"context"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// scriptedStream gives its events, then waits until it is stopped or its
// context is done. leave says whether it is left after its initial
// events, as a REST body stream is.
type scriptedStream struct {
	ctx     context.Context
	events  []watch.Event
	leave   bool
	stopped chan struct{}
	once    sync.Once
}

func (s *scriptedStream) Next() (watch.EventType, *corev1.ConfigMap, error) {
	if len(s.events) > 0 {
		ev := s.events[0]
		s.events = s.events[1:]
		return ev.Type, ev.Object.(*corev1.ConfigMap), nil
	}
	select {
	case <-s.stopped:
		return "", nil, io.EOF
	case <-s.ctx.Done():
		return "", nil, s.ctx.Err()
	}
}

func (s *scriptedStream) Stop() { s.once.Do(func() { close(s.stopped) }) }

func (s *scriptedStream) LeaveAfterInitialEvents() bool { return s.leave }

// recordingStore records what the Reflector puts into it.
type recordingStore struct {
	mu      sync.Mutex
	objs    map[string]string // name → resourceVersion
	changed chan struct{}
}

func (s *recordingStore) set(f func()) error {
	s.mu.Lock()
	f()
	s.mu.Unlock()
	select {
	case s.changed <- struct{}{}:
	default:
	}
	return nil
}
func (s *recordingStore) Add(o *corev1.ConfigMap) error {
	return s.set(func() { s.objs[o.Name] = o.ResourceVersion })
}
func (s *recordingStore) Update(o *corev1.ConfigMap) error { return s.Add(o) }
func (s *recordingStore) Delete(o *corev1.ConfigMap) error {
	return s.set(func() { delete(s.objs, o.Name) })
}
func (s *recordingStore) Replace(list []*corev1.ConfigMap, _ string) error {
	return s.set(func() {
		clear(s.objs)
		for _, o := range list {
			s.objs[o.Name] = o.ResourceVersion
		}
	})
}

// TestReflectorLeavesAStreamedListMarkedSoAtItsBookmark: a stream that is
// to be left after its initial events (a REST body stream, which the
// server may have gzipped) is stopped at the initial-events-end bookmark,
// and the Reflector carries on with a plain watch from the bookmark's
// version, whose changes reach the store; one that is not to be left is
// carried on. A bookmark without a version is never left, since no watch
// could start from it.
func TestReflectorLeavesAStreamedListMarkedSoAtItsBookmark(t *testing.T) {
	for _, tc := range []struct {
		name        string
		leave       bool
		bookmarkRV  string
		wantWatches int
	}{
		{"left", true, "5", 2},
		{"carried on", false, "5", 1},
		{"no version", true, "", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			cm := func(name, rv string) *corev1.ConfigMap {
				return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv}}
			}
			bookmark := cm("", tc.bookmarkRV)
			bookmark.Annotations = map[string]string{metav1.InitialEventsAnnotationKey: "true"}
			var (
				mu      sync.Mutex
				opts    []metav1.ListOptions
				streams []*scriptedStream
			)
			lw := &ListWatch[*corev1.ConfigMap]{
				WatchStreamFunc: func(ctx context.Context, o metav1.ListOptions) (EventStream[*corev1.ConfigMap], error) {
					mu.Lock()
					defer mu.Unlock()
					s := &scriptedStream{ctx: ctx, leave: tc.leave, stopped: make(chan struct{})}
					if len(opts) == 0 {
						s.events = []watch.Event{
							{Type: watch.Added, Object: cm("a", "3")},
							{Type: watch.Added, Object: cm("b", "4")},
							{Type: watch.Bookmark, Object: bookmark},
							// Past the bookmark: read only if the stream is carried on.
							{Type: watch.Modified, Object: cm("b", "6")},
						}
					} else {
						s.events = []watch.Event{{Type: watch.Modified, Object: cm("a", "7")}}
					}
					opts = append(opts, o)
					streams = append(streams, s)
					return s, nil
				},
			}
			store := &recordingStore{objs: map[string]string{}, changed: make(chan struct{}, 1)}
			r := NewReflector[*corev1.ConfigMap](lw, store, ReflectorOptions{MinWatchTimeout: time.Minute})
			done := make(chan struct{})
			go func() { defer close(done); r.Run(ctx) }()
			defer func() { cancel(); <-done }()

			want := map[string]string{"a": "3", "b": "6"}
			if tc.wantWatches == 2 {
				want = map[string]string{"a": "7", "b": "4"}
			}
			deadline := time.After(time.Minute)
			for {
				store.mu.Lock()
				got := fmt.Sprint(store.objs)
				store.mu.Unlock()
				if got == fmt.Sprint(want) {
					break
				}
				select {
				case <-store.changed:
				case <-deadline:
					t.Fatalf("store %s, want %s", got, fmt.Sprint(want))
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if len(opts) != tc.wantWatches {
				t.Fatalf("%d watches (%+v), want %d", len(opts), opts, tc.wantWatches)
			}
			if tc.wantWatches == 2 {
				select {
				case <-streams[0].stopped:
				default:
					t.Error("the streamed list was not stopped")
				}
				o := opts[1]
				if o.SendInitialEvents != nil || o.ResourceVersion != "5" || o.ResourceVersionMatch != "" || !o.AllowWatchBookmarks {
					t.Errorf("second watch %+v, want a plain watch from 5 with bookmarks", o)
				}
			}
		})
	}
}
