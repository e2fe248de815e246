package controller

import (
	"context"
	"hash/fnv"

	"github.com/ctrlgen/ctrlgen/runtime/cache"
)

// Shards split the keys of every controller among the processes that run
// them: a process reconciles a key only while it holds the key's bucket.
// runtime/manager implements them on Leases (--shards).
type Shards interface {
	// Begin reports whether key's bucket is held, and then keeps it held
	// until end is called: a bucket is given up only once the reconciles
	// begun in it have ended.
	Begin(key cache.ObjectName) (end func(), ok bool)
	// OnGain calls queue with each bucket this process gains, for the
	// controller to queue the bucket's cached keys (those for which owns
	// is true). cancel stops the calls.
	OnGain(queue func(owns func(cache.ObjectName) bool)) (cancel func())
}

// Bucket is the bucket of key among n: a stable hash of "namespace/name",
// so that every process agrees. An owned object's events queue its
// owner's key, so children fall in their controlling owner's bucket.
func Bucket(key cache.ObjectName, n int) int {
	h := fnv.New32a()
	h.Write([]byte(key.Namespace))
	h.Write([]byte{'/'})
	h.Write([]byte(key.Name))
	return int(h.Sum32() % uint32(n))
}

type shardsKey struct{}

// WithShards makes the controllers Run with ctx reconcile only the keys of
// the buckets s holds. The shards travel in the context because that is
// all a manager hands the controllers it runs: Run(ctx, workers), which
// the generated ones forward to Controller.Run.
func WithShards(ctx context.Context, s Shards) context.Context {
	return context.WithValue(ctx, shardsKey{}, s)
}

func shardsFrom(ctx context.Context) Shards {
	s, _ := ctx.Value(shardsKey{}).(Shards)
	return s
}
