package cache_test

import (
	"errors"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/ctrlgen/ctrlgen/runtime/cache"
)

// waitClock is a fake clock that tells the test of every timer the
// Reflector starts, that is of every backoff wait, and lets the test end it.
type waitClock struct {
	*clocktesting.FakeClock
	waits chan time.Duration
}

func newWaitClock() *waitClock {
	return &waitClock{FakeClock: clocktesting.NewFakeClock(time.Unix(1e9, 0)), waits: make(chan time.Duration, 100)}
}

func (c *waitClock) NewTimer(d time.Duration) clock.Timer {
	t := c.FakeClock.NewTimer(d)
	c.waits <- d
	return t
}

// waiting expects the Reflector to start waiting for want.
func (c *waitClock) waiting(t *testing.T, want time.Duration) {
	t.Helper()
	select {
	case d := <-c.waits:
		if d != want {
			t.Fatalf("backed off for %v, want %v", d, want)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("no backoff; want one of %v", want)
	}
}

// backOff expects the Reflector to start waiting for want, and ends the wait.
func (c *waitClock) backOff(t *testing.T, want time.Duration) {
	t.Helper()
	c.waiting(t, want)
	c.Step(want)
}

// noWaits checks that the Reflector has started no wait the test has not
// seen.
func (c *waitClock) noWaits(t *testing.T) {
	t.Helper()
	select {
	case d := <-c.waits:
		t.Fatalf("unexpected backoff for %v", d)
	default:
	}
}

// Jitter off, so that every wait is exact.
var steadyBackoff = cache.BackoffConfig{Initial: time.Second, Max: 16 * time.Second}

var internalError = &metav1.Status{Status: metav1.StatusFailure, Code: 500, Reason: metav1.StatusReasonInternalError, Message: "etcd hiccup"}

// After an outage has grown the backoff, a successful list shows the
// server is back: the next failure must wait the initial step, not the
// outage's longest.
func TestReflectorBackoffResetsAfterSuccessfulList(t *testing.T) {
	s := newServer()
	create(s, cm("ns", "a", ""))
	s.SetDown(true)
	clk := newWaitClock()
	h := runReflector(t, s, cache.ReflectorOptions{Backoff: steadyBackoff, Clock: clk, DisableWatchList: true})
	for _, d := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second} {
		clk.backOff(t, d)
	}
	clk.waiting(t, 16*time.Second) // after the sixth failed list
	s.SetDown(false)
	clk.Step(16 * time.Second)
	h.until(t, "the watch", func() bool { return s.OpenWatches() == 1 })
	clk.noWaits(t)

	s.FailWatches(internalError)
	clk.backOff(t, time.Second)
	h.until(t, "the watch again", func() bool { return s.OpenWatches() == 1 })
	if n := len(h.lists()); n != 7 {
		t.Fatalf("%d lists, want 6 failed and 1 good", n)
	}
}

// Watch failures grow the backoff; once no backoff has been needed for
// ResetAfter (2 minutes by default), the next failure waits the initial step.
func TestReflectorBackoffResetsAfterHealthyPeriod(t *testing.T) {
	s := newServer()
	create(s, cm("ns", "a", ""))
	clk := newWaitClock()
	h := runReflector(t, s, cache.ReflectorOptions{Backoff: steadyBackoff, Clock: clk, DisableWatchList: true})
	h.until(t, "the watch", func() bool { return s.OpenWatches() == 1 })
	for _, d := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second} {
		s.FailWatches(internalError)
		clk.backOff(t, d)
		h.until(t, "the watch again", func() bool { return s.OpenWatches() == 1 })
	}

	clk.Step(2*time.Minute - time.Second) // not quite healthy long enough
	s.FailWatches(internalError)
	clk.backOff(t, 8*time.Second)
	h.until(t, "the watch again", func() bool { return s.OpenWatches() == 1 })

	clk.Step(2 * time.Minute) // healthy: no backoff needed for 2 minutes
	s.FailWatches(internalError)
	clk.backOff(t, time.Second)
	h.until(t, "the watch again", func() bool { return s.OpenWatches() == 1 })
	clk.noWaits(t)
	if n := len(h.lists()); n != 1 {
		t.Fatalf("relisted after internal errors: %d lists", n)
	}
}

// Failures to open a watch (refused, 429, 500) are retried from the last
// version, with the backoff growing across the kinds of failure.
func TestReflectorBackoffGrowsAcrossWatchFailures(t *testing.T) {
	s := newServer()
	create(s, cm("ns", "a", ""))
	gr := schema.GroupResource{Resource: "configmaps"}
	s.FailNextWatches(
		apierrors.NewTooManyRequests("slow down", 1),
		apierrors.NewInternalError(errors.New("boom")),
		apierrors.NewServiceUnavailable("not ready"),
		apierrors.NewForbidden(gr, "", errors.New("denied")),
	)
	clk := newWaitClock()
	h := runReflector(t, s, cache.ReflectorOptions{Backoff: steadyBackoff, Clock: clk, DisableWatchList: true})
	for _, d := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second} {
		clk.backOff(t, d)
	}
	h.until(t, "the watch", func() bool { return s.OpenWatches() == 1 })
	clk.noWaits(t)
	watches := h.watches()
	if len(watches) != 5 || len(h.lists()) != 1 {
		t.Fatalf("%d watches and %d lists, want 5 watches from one list", len(watches), len(h.lists()))
	}
	for _, w := range watches {
		if w.ResourceVersion != "1" {
			t.Fatalf("watch retried from %q, want 1", w.ResourceVersion)
		}
	}
}

// A list that succeeds but whose watch expires at once with nothing
// delivered is no sign of health: relists keep backing off, so that a
// server that keeps answering 410 is not hammered with full lists.
func TestReflectorBackoffGrowsWhileEveryWatchExpiresAtOnce(t *testing.T) {
	s := newServer()
	create(s, cm("ns", "a", ""))
	expired := apierrors.NewResourceExpired("too old resource version")
	s.FailNextWatches(expired, expired, expired)
	clk := newWaitClock()
	h := runReflector(t, s, cache.ReflectorOptions{Backoff: steadyBackoff, Clock: clk, DisableWatchList: true})
	for _, d := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second} {
		clk.backOff(t, d)
	}
	h.until(t, "the watch", func() bool { return s.OpenWatches() == 1 })
	if n := len(h.lists()); n != 4 {
		t.Fatalf("%d lists, want 4", n)
	}

	// Once a watch delivers, the relist after its 410 counts as healthy
	// again; the wait before that relist is still part of the old run.
	update(s, "ns", "a", "2")
	h.until(t, "the update", h.inSync)
	s.FailWatches(&metav1.Status{Status: metav1.StatusFailure, Code: 410, Reason: metav1.StatusReasonExpired, Message: "too old resource version"})
	clk.backOff(t, 8*time.Second)
	h.until(t, "the watch after the relist", func() bool { return s.OpenWatches() == 1 && len(h.lists()) == 5 })
	s.FailWatches(internalError)
	clk.backOff(t, time.Second)
}
