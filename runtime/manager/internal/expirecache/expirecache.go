// Package expirecache is a bounded cache whose entries expire: when full,
// adding evicts the least recently used entry.
package expirecache

import (
	"container/list"
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// Cache maps K to V for a time given per entry. It is safe for concurrent
// use.
type Cache[K comparable, V any] struct {
	clock clock.PassiveClock
	size  int

	mu    sync.Mutex
	order *list.List // of *entry[K, V], most recently used first
	items map[K]*list.Element
}

type entry[K comparable, V any] struct {
	key     K
	value   V
	expires time.Time
}

// New returns a cache holding at most size entries, timed by clock.
func New[K comparable, V any](size int, clock clock.PassiveClock) *Cache[K, V] {
	if size < 1 {
		size = 1
	}
	return &Cache[K, V]{clock: clock, size: size, order: list.New(), items: map[K]*list.Element{}}
}

// Get returns the value stored under k, unless it has expired.
func (c *Cache[K, V]) Get(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var zero V
	el, ok := c.items[k]
	if !ok {
		return zero, false
	}
	e := el.Value.(*entry[K, V])
	if !c.clock.Now().Before(e.expires) {
		c.remove(el)
		return zero, false
	}
	c.order.MoveToFront(el)
	return e.value, true
}

// Add stores v under k for ttl, replacing what was there.
func (c *Cache[K, V]) Add(k K, v V, ttl time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := &entry[K, V]{key: k, value: v, expires: c.clock.Now().Add(ttl)}
	if el, ok := c.items[k]; ok {
		el.Value = e
		c.order.MoveToFront(el)
		return
	}
	c.items[k] = c.order.PushFront(e)
	for c.order.Len() > c.size {
		c.remove(c.order.Back())
	}
}

// Len is the number of entries, expired ones not yet dropped included.
func (c *Cache[K, V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}

func (c *Cache[K, V]) remove(el *list.Element) {
	c.order.Remove(el)
	delete(c.items, el.Value.(*entry[K, V]).key)
}
