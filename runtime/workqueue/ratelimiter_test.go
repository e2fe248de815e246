package workqueue

import (
	"math"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"
)

func TestExponentialLimiterDoublesPerFailure(t *testing.T) {
	l := NewItemExponentialFailureRateLimiter[string](5*time.Millisecond, 1000*time.Second)
	want := 5 * time.Millisecond
	for i := range 10 {
		if got := l.When("a"); got != want {
			t.Fatalf("failure %d: When = %v, want %v", i, got, want)
		}
		want *= 2
	}
	if got := l.NumRequeues("a"); got != 10 {
		t.Fatalf("NumRequeues = %d, want 10", got)
	}
	// Items are tracked separately.
	if got := l.When("b"); got != 5*time.Millisecond {
		t.Fatalf("first failure of b: When = %v, want 5ms", got)
	}
	l.Forget("a")
	if got := l.NumRequeues("a"); got != 0 {
		t.Fatalf("NumRequeues after Forget = %d, want 0", got)
	}
	if got := l.When("a"); got != 5*time.Millisecond {
		t.Fatalf("When after Forget = %v, want 5ms", got)
	}
}

func TestExponentialLimiterStopsAtMax(t *testing.T) {
	l := NewItemExponentialFailureRateLimiter[string](5*time.Millisecond, time.Second)
	// 5ms·2^7 = 640ms, 5ms·2^8 = 1.28s > 1s.
	var got []time.Duration
	for range 10 {
		got = append(got, l.When("a"))
	}
	if got[7] != 640*time.Millisecond {
		t.Fatalf("8th failure: %v, want 640ms", got[7])
	}
	for i := 8; i < 10; i++ {
		if got[i] != time.Second {
			t.Fatalf("failure %d: %v, want the 1s cap", i, got[i])
		}
	}
}

// TestExponentialLimiterNeverOverflows checks that the delay stays within
// [0, max] and never decreases, well past the point where base·2^n
// overflows an int64.
func TestExponentialLimiterNeverOverflows(t *testing.T) {
	for _, tc := range []struct {
		name      string
		base, max time.Duration
	}{
		{"default", 5 * time.Millisecond, 1000 * time.Second},
		{"unbounded max", 5 * time.Millisecond, time.Duration(math.MaxInt64)},
		{"1ns base", 1, time.Duration(math.MaxInt64)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := NewItemExponentialFailureRateLimiter[int](tc.base, tc.max)
			var prev time.Duration
			for i := range 5000 {
				d := l.When(0)
				if d < prev || d > tc.max {
					t.Fatalf("failure %d: When = %v after %v (max %v)", i, d, prev, tc.max)
				}
				prev = d
			}
			if prev != tc.max {
				t.Fatalf("after 5000 failures: When = %v, want the cap %v", prev, tc.max)
			}
		})
	}
	// The largest delay that fits: 1ns·2^62, then the cap.
	if got := backoff(1, math.MaxInt64, 62); got != 1<<62 {
		t.Fatalf("backoff(1ns, max, 62) = %v, want 2^62ns", got)
	}
	if got := backoff(1, math.MaxInt64, 63); got != math.MaxInt64 {
		t.Fatalf("backoff(1ns, max, 63) = %v, want max", got)
	}
	if got := backoff(3, math.MaxInt64, 62); got != math.MaxInt64 {
		t.Fatalf("backoff(3ns, max, 62) = %v, want max", got)
	}
}

// newTestBucket returns a bucket limiter whose clock is c.
func newTestBucket(c *clocktesting.FakeClock, qps float64, burst int) *bucketLimiter[string] {
	l := NewBucketRateLimiter[string](qps, burst).(*bucketLimiter[string])
	l.now = c.Now
	return l
}

func TestBucketLimiterAllowsBurstThenSpacesAtQPS(t *testing.T) {
	c := clocktesting.NewFakeClock(time.Unix(1_000_000, 0))
	l := newTestBucket(c, 10, 100)
	for i := range 100 {
		if got := l.When("x"); got != 0 {
			t.Fatalf("call %d within the burst: When = %v, want 0", i, got)
		}
	}
	for i := 1; i <= 3; i++ {
		if got, want := l.When("x"), time.Duration(i)*100*time.Millisecond; got != want {
			t.Fatalf("call %d past the burst: When = %v, want %v", 100+i, got, want)
		}
	}
	// The bucket is shared by all items and keeps no per-item history.
	if got := l.NumRequeues("x"); got != 0 {
		t.Fatalf("NumRequeues = %d, want 0", got)
	}

	// After the reservations are paid for, tokens refill at 10 qps.
	c.Step(300*time.Millisecond + time.Second)
	for i := range 10 {
		if got := l.When("y"); got != 0 {
			t.Fatalf("call %d after 1s refill: When = %v, want 0", i, got)
		}
	}
	if got := l.When("y"); got != 100*time.Millisecond {
		t.Fatalf("call past the refill: When = %v, want 100ms", got)
	}
}

// fixedLimiter returns a fixed delay and counts calls.
type fixedLimiter struct {
	delay    time.Duration
	requeues int
	forgot   int
}

func (l *fixedLimiter) When(string) time.Duration { l.requeues++; return l.delay }
func (l *fixedLimiter) Forget(string)             { l.forgot++ }
func (l *fixedLimiter) NumRequeues(string) int    { return l.requeues }

func TestMaxOfLimiter(t *testing.T) {
	short, long := &fixedLimiter{delay: time.Millisecond}, &fixedLimiter{delay: time.Second}
	long.requeues = 5 // pretend it has history
	l := NewMaxOfRateLimiter[string](short, long)
	if got := l.When("a"); got != time.Second {
		t.Fatalf("When = %v, want the longest, 1s", got)
	}
	if short.requeues != 1 || long.requeues != 6 {
		t.Fatalf("When was not passed to every limiter: %d, %d", short.requeues, long.requeues)
	}
	if got := l.NumRequeues("a"); got != 6 {
		t.Fatalf("NumRequeues = %d, want the largest, 6", got)
	}
	l.Forget("a")
	if short.forgot != 1 || long.forgot != 1 {
		t.Fatalf("Forget was not passed to every limiter: %d, %d", short.forgot, long.forgot)
	}
	if got := NewMaxOfRateLimiter[string]().When("a"); got != 0 {
		t.Fatalf("empty MaxOf: When = %v, want 0", got)
	}
}

func TestDefaultControllerRateLimiter(t *testing.T) {
	l := DefaultControllerRateLimiter[string]()
	// Well within the bucket's burst of 100, so the exponential part wins.
	for i, want := range []time.Duration{5 * time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond} {
		if got := l.When("a"); got != want {
			t.Fatalf("failure %d: When = %v, want %v", i, got, want)
		}
	}
	if got := l.NumRequeues("a"); got != 3 {
		t.Fatalf("NumRequeues = %d, want 3", got)
	}
	l.Forget("a")
	if got := l.NumRequeues("a"); got != 0 {
		t.Fatalf("NumRequeues after Forget = %d, want 0", got)
	}

	// The parts are the exponential limiter (5ms to 1000s) and a 10 qps,
	// burst 100 bucket.
	parts := l.(maxOfLimiter[string])
	if len(parts) != 2 {
		t.Fatalf("%d limiters, want 2", len(parts))
	}
	exp := parts[0].(*exponentialLimiter[string])
	if exp.base != 5*time.Millisecond || exp.maxDelay != 1000*time.Second {
		t.Fatalf("exponential limiter %v..%v, want 5ms..1000s", exp.base, exp.maxDelay)
	}
	bucket := parts[1].(*bucketLimiter[string])
	if bucket.limiter.Limit() != 10 || bucket.limiter.Burst() != 100 {
		t.Fatalf("bucket %v qps burst %d, want 10 qps burst 100", bucket.limiter.Limit(), bucket.limiter.Burst())
	}
}

func TestRateLimitingQueueDelaysByLimiter(t *testing.T) {
	c := clocktesting.NewFakeClock(time.Unix(1_000_000, 0))
	limiter := NewItemExponentialFailureRateLimiter[string](time.Second, time.Minute)
	q := NewRateLimitingQueue(limiter, Config{Clock: c})
	defer q.ShutDown()
	dq := q.(*rateLimitingQueue[string]).delayingQueue

	q.AddRateLimited("a") // 1s
	q.AddRateLimited("a") // 2s, but the earlier 1s ready time is kept
	if got := q.NumRequeues("a"); got != 2 {
		t.Fatalf("NumRequeues = %d, want 2", got)
	}
	c.Step(999 * time.Millisecond)
	dq.addReady()
	assertLen(t, q, 0)
	c.Step(time.Millisecond)
	process(t, q, "a")

	q.AddRateLimited("a") // third failure: 4s
	c.Step(3 * time.Second)
	dq.addReady()
	assertLen(t, q, 0)
	c.Step(time.Second)
	dq.addReady()
	assertLen(t, q, 1)

	q.Forget("a")
	if got := q.NumRequeues("a"); got != 0 {
		t.Fatalf("NumRequeues after Forget = %d, want 0", got)
	}
}
