package fakeclient

import (
	"sync"

	"k8s.io/apimachinery/pkg/watch"
)

// watcher is one watch on a Tracker: events wait in an unbounded queue
// until the reader takes them.
type watcher struct {
	namespace string
	sel       selector
	remove    func(*watcher)

	mu     sync.Mutex
	queue  []watch.Event
	wake   chan struct{} // a token when the queue has grown
	result chan watch.Event
	done   chan struct{}
	stop   sync.Once
}

func newWatcher(namespace string, sel selector, remove func(*watcher)) *watcher {
	w := &watcher{
		namespace: namespace,
		sel:       sel,
		remove:    remove,
		wake:      make(chan struct{}, 1),
		result:    make(chan watch.Event),
		done:      make(chan struct{}),
	}
	go w.run()
	return w
}

// push queues a copy of ev: every reader may change what it gets.
func (w *watcher) push(ev watch.Event) {
	ev.Object = ev.Object.DeepCopyObject()
	w.mu.Lock()
	w.queue = append(w.queue, ev)
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *watcher) ResultChan() <-chan watch.Event { return w.result }

// Stop ends the watch and closes the result channel.
func (w *watcher) Stop() {
	w.stop.Do(func() {
		close(w.done)
		w.remove(w)
	})
}

func (w *watcher) run() {
	defer close(w.result)
	for {
		w.mu.Lock()
		if len(w.queue) == 0 {
			w.mu.Unlock()
			select {
			case <-w.wake:
				continue
			case <-w.done:
				return
			}
		}
		ev := w.queue[0]
		w.queue[0] = watch.Event{}
		w.queue = w.queue[1:]
		w.mu.Unlock()
		select {
		case w.result <- ev:
		case <-w.done:
			return
		}
	}
}
