package cache_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/ctrlgen/ctrlgen/runtime/cache"
)

// These tests pin cachetest.Server to the apiserver's list and watch
// semantics, which the Reflector's tests rely on.

// historyServer returns a server whose state differs at every version:
//
//	1: a@1   2: a@1 b@2   3: a@3 b@2   4: a@3   5: a@3 c@5
func historyServer() *server {
	s := newServer()
	create(s, cm("ns", "a", "1"))
	create(s, cm("ns", "b", "2"))
	update(s, "ns", "a", "3")
	del(s, "ns", "b")
	create(s, cm("ns", "c", "5"))
	return s
}

// describePage renders a page as "a@3 c@5 rv=5", with " continue" when it
// has a continue token.
func describePage(p cache.ListPage[*corev1.ConfigMap]) string {
	var b strings.Builder
	for _, o := range p.Items {
		fmt.Fprintf(&b, "%s@%s ", o.Name, o.ResourceVersion)
	}
	fmt.Fprintf(&b, "rv=%s", p.ResourceVersion)
	if p.Continue != "" {
		b.WriteString(" continue")
	}
	return b.String()
}

func TestServerListResourceVersionSemantics(t *testing.T) {
	exact, notOlder := metav1.ResourceVersionMatchExact, metav1.ResourceVersionMatchNotOlderThan
	for _, tc := range []struct {
		name        string
		opts        metav1.ListOptions
		noCache     bool
		want        string
		wantErr     func(error) bool
		wantErrText string
	}{
		{name: "consistent", opts: metav1.ListOptions{}, want: "a@3 c@5 rv=5"},
		{name: "consistent paged", opts: metav1.ListOptions{Limit: 1}, want: "a@3 rv=5 continue"},
		{name: "0 from the watch cache ignores limit", opts: metav1.ListOptions{ResourceVersion: "0", Limit: 1}, want: "a@3 c@5 rv=5"},
		{name: "0 from etcd honours limit", noCache: true, opts: metav1.ListOptions{ResourceVersion: "0", Limit: 1}, want: "a@3 rv=5 continue"},
		{name: "0 not older than", opts: metav1.ListOptions{ResourceVersion: "0", ResourceVersionMatch: notOlder, Limit: 1}, want: "a@3 c@5 rv=5"},
		{name: "X without limit is at least X", opts: metav1.ListOptions{ResourceVersion: "2"}, want: "a@3 c@5 rv=5"},
		{name: "X not older than, paged", opts: metav1.ListOptions{ResourceVersion: "2", ResourceVersionMatch: notOlder, Limit: 1}, want: "a@3 rv=5 continue"},
		{name: "X with limit is exact (legacy)", opts: metav1.ListOptions{ResourceVersion: "2", Limit: 10}, want: "a@1 b@2 rv=2"},
		{name: "X with limit is exact without watch cache", noCache: true, opts: metav1.ListOptions{ResourceVersion: "4", Limit: 10}, want: "a@3 rv=4"},
		{name: "X exact", opts: metav1.ListOptions{ResourceVersion: "3", ResourceVersionMatch: exact}, want: "a@3 b@2 rv=3"},
		{name: "X exact paged", opts: metav1.ListOptions{ResourceVersion: "3", ResourceVersionMatch: exact, Limit: 1}, want: "a@3 rv=3 continue"},
		{name: "X exact at current", opts: metav1.ListOptions{ResourceVersion: "5", ResourceVersionMatch: exact}, want: "a@3 c@5 rv=5"},
		{name: "future X", opts: metav1.ListOptions{ResourceVersion: "6"}, wantErr: isTooLarge},
		{name: "future X with limit", opts: metav1.ListOptions{ResourceVersion: "6", Limit: 10}, wantErr: isTooLarge},
		{name: "future X exact", opts: metav1.ListOptions{ResourceVersion: "6", ResourceVersionMatch: exact}, wantErr: isTooLarge},
		{name: "future X not older than", opts: metav1.ListOptions{ResourceVersion: "6", ResourceVersionMatch: notOlder}, wantErr: isTooLarge},
		{name: "match without version", opts: metav1.ListOptions{ResourceVersionMatch: notOlder}, wantErr: apierrors.IsInvalid, wantErrText: "unless resourceVersion is provided"},
		{name: "exact at 0", opts: metav1.ListOptions{ResourceVersion: "0", ResourceVersionMatch: exact}, wantErr: apierrors.IsInvalid, wantErrText: `forbidden for resourceVersion "0"`},
		{name: "unknown match", opts: metav1.ListOptions{ResourceVersion: "1", ResourceVersionMatch: "Newest"}, wantErr: apierrors.IsInvalid},
		{name: "match with continue", opts: metav1.ListOptions{ResourceVersion: "1", ResourceVersionMatch: notOlder, Continue: "1/1"}, wantErr: apierrors.IsInvalid, wantErrText: "forbidden when continue is provided"},
		{name: "version with continue", opts: metav1.ListOptions{ResourceVersion: "1", Continue: "1/1"}, wantErr: apierrors.IsBadRequest, wantErrText: "not allowed when using continue"},
		{name: "bad version", opts: metav1.ListOptions{ResourceVersion: "x"}, wantErr: apierrors.IsBadRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := historyServer()
			if tc.noCache {
				s.DisableWatchCache()
			}
			page, err := s.List(context.Background(), tc.opts)
			if tc.wantErr != nil {
				if err == nil || !tc.wantErr(err) || !strings.Contains(err.Error(), tc.wantErrText) {
					t.Fatalf("List(%+v) = %s, %v; want an error like %q", tc.opts, describePage(page), err, tc.wantErrText)
				}
				return
			}
			if err != nil || describePage(page) != tc.want {
				t.Fatalf("List(%+v) = %s, %v; want %s", tc.opts, describePage(page), err, tc.want)
			}
		})
	}
}

func isTooLarge(err error) bool {
	return apierrors.IsTimeout(err) && apierrors.HasStatusCause(err, metav1.CauseTypeResourceVersionTooLarge)
}

func TestServerContinuePagesReadTheFirstPagesVersion(t *testing.T) {
	s := historyServer()
	first, err := s.List(context.Background(), metav1.ListOptions{ResourceVersion: "2", Limit: 1})
	if err != nil || describePage(first) != "a@1 rv=2 continue" {
		t.Fatalf("first page = %s, %v", describePage(first), err)
	}
	create(s, cm("ns", "b", "late")) // rv 6: b again, but not the b of version 2
	update(s, "ns", "a", "late")     // rv 7
	rest, err := s.List(context.Background(), metav1.ListOptions{Limit: 1, Continue: first.Continue})
	if err != nil || describePage(rest) != "b@2 rv=2" {
		t.Fatalf("second page = %s, %v; want b@2 at rv 2", describePage(rest), err)
	}
}

func TestServerCompactionExpiresExactReadsAndContinues(t *testing.T) {
	s := historyServer()
	first, err := s.List(context.Background(), metav1.ListOptions{Limit: 1})
	if err != nil || first.Continue == "" {
		t.Fatalf("first page = %s, %v", describePage(first), err)
	}
	update(s, "ns", "c", "6")
	s.Compact() // at 6
	for _, opts := range []metav1.ListOptions{
		{ResourceVersion: "5", Limit: 10},
		{ResourceVersion: "5", ResourceVersionMatch: metav1.ResourceVersionMatchExact},
		{Limit: 1, Continue: first.Continue},
	} {
		if page, err := s.List(context.Background(), opts); !apierrors.IsResourceExpired(err) {
			t.Errorf("List(%+v) after compaction = %s, %v; want 410 Expired", opts, describePage(page), err)
		}
	}
	// The compacted state itself, and what follows, can still be read.
	update(s, "ns", "a", "7")
	for _, tc := range []struct {
		opts metav1.ListOptions
		want string
	}{
		{metav1.ListOptions{ResourceVersion: "5"}, "a@7 c@6 rv=7"},
		{metav1.ListOptions{ResourceVersion: "6", Limit: 10}, "a@3 c@6 rv=6"},
		{metav1.ListOptions{ResourceVersion: "7", Limit: 10}, "a@7 c@6 rv=7"},
	} {
		if page, err := s.List(context.Background(), tc.opts); err != nil || describePage(page) != tc.want {
			t.Errorf("List(%+v) = %s, %v; want %s", tc.opts, describePage(page), err, tc.want)
		}
	}
}

// nextEvent reads one event, or reports that the watch ended.
func nextEvent(t *testing.T, w watch.Interface) (watch.Event, bool) {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		return ev, ok
	case <-time.After(10 * time.Second):
		t.Fatal("no event from the watch")
		return watch.Event{}, false
	}
}

func TestServerWatchHistoryWindow(t *testing.T) {
	s := historyServer()
	s.TrimWatchCache() // the watch cache now starts at 5; etcd at 0

	w, err := s.Watch(context.Background(), metav1.ListOptions{ResourceVersion: "3"})
	if err != nil {
		t.Fatalf("watch from a version the watch cache dropped failed at once (%v); the apiserver sends an error event", err)
	}
	ev, _ := nextEvent(t, w)
	if ev.Type != watch.Error || !apierrors.IsResourceExpired(apierrors.FromObject(ev.Object)) {
		t.Fatalf("first event = %+v, want a 410 error event", ev)
	}
	if _, ok := nextEvent(t, w); ok {
		t.Fatal("watch did not end after its error event")
	}
	w.Stop()

	// etcd still has version 3: an exact list reads it.
	if page, err := s.List(context.Background(), metav1.ListOptions{ResourceVersion: "3", Limit: 10}); err != nil || describePage(page) != "a@3 b@2 rv=3" {
		t.Fatalf("exact list at 3 after trimming the watch cache = %s, %v", describePage(page), err)
	}

	// Without a watch cache, watches come from etcd and reach back further.
	s.DisableWatchCache()
	w, err = s.Watch(context.Background(), metav1.ListOptions{ResourceVersion: "3"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	var got []string
	for range 2 {
		ev, _ := nextEvent(t, w)
		got = append(got, fmt.Sprintf("%s %s@%s", ev.Type, ev.Object.(*corev1.ConfigMap).Name, ev.Object.(*corev1.ConfigMap).ResourceVersion))
	}
	if want := []string{"DELETED b@4", "ADDED c@5"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("replay from 3 = %v, want %v", got, want)
	}
}

func TestServerWatchFromZeroSendsCurrentObjects(t *testing.T) {
	s := historyServer()
	w, err := s.Watch(context.Background(), metav1.ListOptions{ResourceVersion: "0"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	var got []string
	for range 2 {
		ev, _ := nextEvent(t, w)
		got = append(got, fmt.Sprintf("%s %s@%s", ev.Type, ev.Object.(*corev1.ConfigMap).Name, ev.Object.(*corev1.ConfigMap).ResourceVersion))
	}
	if want := []string{"ADDED a@3", "ADDED c@5"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("watch from 0 = %v, want %v", got, want)
	}
}

// streamEvents opens a streamed list on s and renders what it sends, up to
// and including the end bookmark or an error, as "a@3 c@5 end@5".
func streamEvents(t *testing.T, s *server, rv string) (string, error) {
	t.Helper()
	w, err := s.Watch(context.Background(), metav1.ListOptions{
		ResourceVersion: rv, ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan,
		SendInitialEvents: ptrTo(true), AllowWatchBookmarks: true,
	})
	if err != nil {
		return "", err
	}
	defer w.Stop()
	var b strings.Builder
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				return b.String() + "closed", nil
			}
			switch ev.Type {
			case watch.Error:
				return b.String(), apierrors.FromObject(ev.Object)
			case watch.Bookmark:
				o := ev.Object.(*corev1.ConfigMap)
				if o.Annotations[metav1.InitialEventsAnnotationKey] != "true" {
					t.Fatalf("bookmark without the initial-events-end annotation: %+v", o.ObjectMeta)
				}
				return b.String() + "end@" + o.ResourceVersion, nil
			default:
				o := ev.Object.(*corev1.ConfigMap)
				fmt.Fprintf(&b, "%s %s@%s ", ev.Type, o.Name, o.ResourceVersion)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no end bookmark; got %s", b.String())
		}
	}
}

func ptrTo[T any](v T) *T { return &v }

func TestServerStreamedListSemantics(t *testing.T) {
	for _, tc := range []struct {
		name    string
		rv      string
		noCache bool
		trim    bool
		want    string
		wantErr func(error) bool
	}{
		{name: "latest", rv: "", want: "ADDED a@3 ADDED c@5 end@5"},
		{name: "watch cache: any version it reached gives the latest", rv: "2", want: "ADDED a@3 ADDED c@5 end@5"},
		{name: "watch cache: needs no history", rv: "1", trim: true, want: "ADDED a@3 ADDED c@5 end@5"},
		{name: "watch cache: too large", rv: "9", wantErr: isTooLarge},
		{name: "etcd: exactly the version", rv: "2", noCache: true, want: "ADDED a@1 ADDED b@2 end@2"},
		{name: "etcd: 0 is the latest", rv: "0", noCache: true, want: "ADDED a@3 ADDED c@5 end@5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := historyServer()
			if tc.noCache {
				s.DisableWatchCache()
			}
			if tc.trim {
				s.TrimWatchCache()
			}
			got, err := streamEvents(t, s, tc.rv)
			if tc.wantErr != nil {
				if err == nil || !tc.wantErr(err) {
					t.Fatalf("got %q, %v; want the error", got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// Without a watch cache, a streamed list at a compacted version gets 410;
// refused streamed lists and watch options the apiserver rejects get its
// 422 Invalid.
func TestServerStreamedListErrors(t *testing.T) {
	s := historyServer()
	s.DisableWatchCache()
	s.Compact()
	if _, err := streamEvents(t, s, "2"); !isExpired(err) {
		t.Fatalf("streamed list at a compacted version: %v, want 410", err)
	}

	s.SetWatchListDisabled(true)
	_, err := streamEvents(t, s, "")
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled") {
		t.Fatalf("refused streamed list: %v, want the apiserver's 422", err)
	}
	_, err = s.Watch(context.Background(), metav1.ListOptions{ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided") {
		t.Fatalf("watch with resourceVersionMatch alone: %v, want the apiserver's 422", err)
	}
}
