package workqueue

// RateLimiting is a Delaying queue whose retries are paced by a RateLimiter.
type RateLimiting[T comparable] interface {
	Delaying[T]
	// AddRateLimited adds item after the delay the rate limiter gives it.
	AddRateLimited(item T)
	// Forget clears the rate limiter's failure history of item. Call it once
	// an item has been processed successfully.
	Forget(item T)
	// NumRequeues returns how many times the rate limiter has delayed item
	// since it was last forgotten.
	NumRequeues(item T) int
}

// NewRateLimitingQueue returns a new delaying work queue whose
// AddRateLimited uses limiter.
func NewRateLimitingQueue[T comparable](limiter RateLimiter[T], cfg Config) RateLimiting[T] {
	return &rateLimitingQueue[T]{delayingQueue: newDelayingQueue[T](cfg), limiter: limiter}
}

type rateLimitingQueue[T comparable] struct {
	*delayingQueue[T]
	limiter RateLimiter[T]
}

func (q *rateLimitingQueue[T]) AddRateLimited(item T) {
	q.AddAfter(item, q.limiter.When(item))
}

func (q *rateLimitingQueue[T]) Forget(item T) { q.limiter.Forget(item) }

func (q *rateLimitingQueue[T]) NumRequeues(item T) int { return q.limiter.NumRequeues(item) }
