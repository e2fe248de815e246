package controller_test

import (
	"context"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/ctrlgen/ctrlgen/runtime/cache"
	"github.com/ctrlgen/ctrlgen/runtime/cache/cachetest"
	"github.com/ctrlgen/ctrlgen/runtime/controller"
)

// fakeShards holds buckets as a test says, out of 4.
type fakeShards struct {
	mu   sync.Mutex
	held map[int]bool
	gain []func(func(cache.ObjectName) bool)
}

const fakeBuckets = 4

func (f *fakeShards) Begin(key cache.ObjectName) (func(), bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return func() {}, f.held[controller.Bucket(key, fakeBuckets)]
}

func (f *fakeShards) OnGain(queue func(func(cache.ObjectName) bool)) func() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.gain = append(f.gain, queue)
	return func() {}
}

func (f *fakeShards) take(b int) {
	f.mu.Lock()
	f.held[b] = true
	gain := f.gain
	f.mu.Unlock()
	for _, g := range gain {
		g(func(k cache.ObjectName) bool { return controller.Bucket(k, fakeBuckets) == b })
	}
}

func TestShardedControllerReconcilesOnlyHeldBucketsAndQueuesGainedOnes(t *testing.T) {
	s := cachetest.NewServer[*corev1.ConfigMap](gr)
	byBucket := map[int][]string{}
	for i := 0; len(byBucket[0]) < 3 || len(byBucket[1]) < 3; i++ {
		name := "cm-" + string(rune('a'+i%26)) + string(rune('a'+i/26))
		b := controller.Bucket(key(name), fakeBuckets)
		if b > 1 || len(byBucket[b]) == 3 {
			continue
		}
		byBucket[b] = append(byBucket[b], name)
		s.Create(cm(name))
	}
	var mu sync.Mutex
	seen := map[string]int{}
	count := func(names []string) (n int) {
		mu.Lock()
		defer mu.Unlock()
		for _, name := range names {
			n += seen[name]
		}
		return n
	}
	shards := &fakeShards{held: map[int]bool{0: true}}
	inf := cache.NewSharedIndexInformer[*corev1.ConfigMap](s.ListerWatcher(), 0, nil)
	opts := options(s, inf, t.Name(), func(_ context.Context, o *corev1.ConfigMap) (controller.Result, error) {
		mu.Lock()
		seen[o.Name]++
		mu.Unlock()
		return controller.Result{}, nil
	})
	opts.UpdateStatus, opts.SetObservedGeneration = nil, nil
	c, err := controller.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	runUntilCleanup(t, c, 2, func(ctx context.Context) context.Context { return controller.WithShards(ctx, shards) }, inf)

	eventually(t, "bucket 0's keys", func() bool { return count(byBucket[0]) == 3 })
	// Bucket 1's keys were taken from the queue and dropped; gaining the
	// bucket queues them again.
	if n := count(byBucket[1]); n != 0 {
		t.Fatalf("%d reconciles of keys in a bucket not held", n)
	}
	shards.take(1)
	eventually(t, "bucket 1's keys after gaining it", func() bool { return count(byBucket[1]) == 3 })
	if n := count(byBucket[0]); n != 3 {
		t.Fatalf("gaining bucket 1 queued bucket 0's keys again (%d reconciles)", n)
	}
}
