// Package workqueue is a typed work queue for controllers, behaviourally
// compatible with k8s.io/client-go/util/workqueue but built for throughput:
// a single mutex, one map holding the per-item state (one map operation per
// Add when no metrics are reported), a ring-buffer FIFO, no metric work at all unless a
// MetricsProvider is configured, and producers that yield to the workers
// once a backlog builds up, which keeps the working set in the CPU caches.
//
// The queue guarantees that
//   - an item is never handed to two workers at once: Get returns an item only
//     after the previous holder of that item has called Done;
//   - an Add of an item that is being processed re-queues it exactly once, when
//     Done is called;
//   - Adds of an item that is already queued collapse into one;
//   - after ShutDown, Get drains the queued items and then reports shutdown,
//     and Adds are ignored;
//   - ShutDownWithDrain returns only once nothing is queued or being processed.
//
// Delaying adds AddAfter, served by a single timer goroutine over a heap, and
// RateLimiting adds AddRateLimited, which delays an item by what its
// RateLimiter says.
//
// Differences from client-go's workqueue:
//   - ShutDownWithDrain also waits for items that are queued but not yet
//     handed out, not only for those being processed.
//   - AddAfter with a delay <= 0 replaces a pending AddAfter of the same
//     item instead of leaving it to fire later.
//   - The retries metric counts only additions with a positive delay, as
//     controller-runtime does.
//   - The delaying queue's timer goroutine starts on the first delayed add
//     and is stopped by both ShutDown and ShutDownWithDrain.
package workqueue
