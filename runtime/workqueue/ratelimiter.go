package workqueue

import (
	"math"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
)

// RateLimiter decides how long an item waits before it is retried.
type RateLimiter[T comparable] interface {
	// When records a failure of item and returns how long to wait before
	// retrying it.
	When(item T) time.Duration
	// Forget clears the failure history of item.
	Forget(item T)
	// NumRequeues returns how many failures of item have been recorded
	// since it was last forgotten.
	NumRequeues(item T) int
}

// DefaultControllerRateLimiter returns the usual limiter for controllers:
// the larger of a per-item exponential backoff from 5ms up to 1000s and an
// overall token bucket of 10 qps with a burst of 100.
func DefaultControllerRateLimiter[T comparable]() RateLimiter[T] {
	return NewMaxOfRateLimiter(
		NewItemExponentialFailureRateLimiter[T](5*time.Millisecond, 1000*time.Second),
		NewBucketRateLimiter[T](10, 100),
	)
}

// NewItemExponentialFailureRateLimiter returns a limiter that waits
// base·2^n for an item's n-th consecutive failure (counting from 0), capped
// at max. The computation cannot overflow, however many failures there are.
func NewItemExponentialFailureRateLimiter[T comparable](base, max time.Duration) RateLimiter[T] {
	return &exponentialLimiter[T]{failures: make(map[T]int), base: base, maxDelay: max}
}

type exponentialLimiter[T comparable] struct {
	mu       sync.Mutex
	failures map[T]int
	// tracked is len(failures), readable without mu, so that Forget and
	// NumRequeues need no lock in the common case where no item has
	// failed.
	tracked  atomic.Int64
	base     time.Duration
	maxDelay time.Duration
}

func (r *exponentialLimiter[T]) When(item T) time.Duration {
	r.mu.Lock()
	n := r.failures[item]
	r.failures[item] = n + 1
	r.tracked.Store(int64(len(r.failures)))
	r.mu.Unlock()
	return backoff(r.base, r.maxDelay, n)
}

// backoff returns base·2^n capped at maxDelay, without overflowing: base<<n
// is only computed once it is known to fit in an int64.
func backoff(base, maxDelay time.Duration, n int) time.Duration {
	if base <= 0 {
		return min(0, maxDelay)
	}
	if n >= 63 || base > time.Duration(math.MaxInt64)>>n || base<<n > maxDelay {
		return maxDelay
	}
	return base << n
}

func (r *exponentialLimiter[T]) NumRequeues(item T) int {
	if r.tracked.Load() == 0 {
		return 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failures[item]
}

func (r *exponentialLimiter[T]) Forget(item T) {
	if r.tracked.Load() == 0 {
		return // nothing to forget
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.failures, item)
	r.tracked.Store(int64(len(r.failures)))
}

// NewBucketRateLimiter returns a limiter that spaces all retries, whatever
// the item, with a token bucket refilled at qps tokens per second and holding
// at most burst tokens. It starts full. It keeps no per-item state, so
// NumRequeues is always 0.
func NewBucketRateLimiter[T comparable](qps float64, burst int) RateLimiter[T] {
	return &bucketLimiter[T]{limiter: rate.NewLimiter(rate.Limit(qps), burst), now: time.Now}
}

type bucketLimiter[T comparable] struct {
	limiter *rate.Limiter
	now     func() time.Time // time.Now; replaced in tests
}

func (r *bucketLimiter[T]) When(T) time.Duration {
	now := r.now()
	return r.limiter.ReserveN(now, 1).DelayFrom(now)
}

func (r *bucketLimiter[T]) Forget(T) {}

func (r *bucketLimiter[T]) NumRequeues(T) int { return 0 }

// NewMaxOfRateLimiter returns a limiter that asks every limiter and waits for
// the longest answer. NumRequeues is the largest count among them; Forget
// forgets in all of them.
func NewMaxOfRateLimiter[T comparable](limiters ...RateLimiter[T]) RateLimiter[T] {
	return maxOfLimiter[T](limiters)
}

type maxOfLimiter[T comparable] []RateLimiter[T]

func (r maxOfLimiter[T]) When(item T) time.Duration {
	var d time.Duration
	for _, l := range r {
		d = max(d, l.When(item))
	}
	return d
}

func (r maxOfLimiter[T]) NumRequeues(item T) int {
	var n int
	for _, l := range r {
		n = max(n, l.NumRequeues(item))
	}
	return n
}

func (r maxOfLimiter[T]) Forget(item T) {
	for _, l := range r {
		l.Forget(item)
	}
}
