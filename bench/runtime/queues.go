package runtimebench

import (
	cgworkqueue "k8s.io/client-go/util/workqueue"

	"github.com/ctrlgen/ctrlgen/runtime/workqueue"
)

// Queue is the part of a rate-limiting work queue the workload uses. Both
// implementations return an interface, so both are called through one.
type Queue interface {
	Add(item string)
	Get() (item string, shutdown bool)
	Done(item string)
	ShutDown()
}

// QueueImpl builds an empty queue.
type QueueImpl struct {
	Name string
	New  func() Queue
}

// QueueImpls are the implementations compared, ours first. Both are the
// rate-limiting queue a controller uses, with the default controller rate
// limiter and a name; neither reports metrics, as no metrics provider is
// registered with either.
var QueueImpls = []QueueImpl{
	{Name: "ctrlgen", New: func() Queue {
		return workqueue.NewRateLimitingQueue(workqueue.DefaultControllerRateLimiter[string](),
			workqueue.Config{Name: "bench"})
	}},
	{Name: "client-go", New: func() Queue {
		return cgworkqueue.NewTypedRateLimitingQueueWithConfig(cgworkqueue.DefaultTypedControllerRateLimiter[string](),
			cgworkqueue.TypedRateLimitingQueueConfig[string]{Name: "bench"})
	}},
}
