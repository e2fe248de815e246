package cache

import (
	"context"
	"fmt"
	"hash/fnv"
	"math/bits"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/util/watchlist"
)

// Scope is the part of a resource an informer holds: the objects
// Contains accepts. ShardSelector, when set, asks the server to send only
// those (metav1.ListOptions.ShardSelector, the ShardedListAndWatch
// feature); a server without the feature ignores it and sends
// everything, and Contains keeps the cache to the scope either way.
type Scope[T any] struct {
	ShardSelector string
	Contains      func(obj T) bool
}

// Rescoper is an informer whose scope can change while it runs:
// ctrlgen's. Rescope ends the list or watch under way, evicts the cached
// objects outside the new scope without telling the handlers (an evicted
// object is not a deleted one: no handler sees a delete), and lists the
// new scope, whose objects new to the cache reach the handlers as adds.
// The channel it returns is closed once that list has been handled
// entirely: the cache then holds the new scope. A nil Contains holds
// everything. Rescope must not be called from the informer's handlers.
type Rescoper[T any] interface {
	Rescope(scope Scope[T]) (synced <-chan struct{})
}

// HashRanges is a scope by hash range: the 64-bit FNV-1a hash of a field
// of each object (its namespace or its UID), over which n equal ranges,
// buckets, are numbered from 0, as the ShardedListAndWatch selector's
// shardRange() hashes.
type HashRanges struct {
	// Field is the selector's field path: "object.metadata.namespace" or
	// "object.metadata.uid".
	Field string
	N     int
}

// Namespaces hashes objects' namespaces: an object and the children in
// its namespace fall in one bucket.
func Namespaces(n int) HashRanges { return HashRanges{Field: "object.metadata.namespace", N: n} }

// Bucket is the bucket of a field value.
func (h HashRanges) Bucket(value string) int {
	f := fnv.New64a()
	f.Write([]byte(value))
	hi, _ := bits.Mul64(f.Sum64(), uint64(h.N))
	return int(hi)
}

// start is bucket i's lowest hash, ceil(i·2⁶⁴/N), as a selector bound;
// bucket N's is 2⁶⁴, the end of the last range.
func (h HashRanges) start(i int) string {
	if i == h.N {
		return "0x10000000000000000"
	}
	q, r := bits.Div64(uint64(i), 0, uint64(h.N))
	if r != 0 {
		q++
	}
	return fmt.Sprintf("0x%016x", q)
}

// Selector is the ShardSelector of the buckets held, in order, adjacent
// ones merged into one range; "" for none.
func (h HashRanges) Selector(held []int) string {
	var parts []string
	for i := 0; i < len(held); {
		j := i
		for j+1 < len(held) && held[j+1] == held[j]+1 {
			j++
		}
		parts = append(parts, fmt.Sprintf("shardRange(%s, '%s', '%s')", h.Field, h.start(held[i]), h.start(held[j]+1)))
		i = j + 1
	}
	return strings.Join(parts, " || ")
}

// Scope is the scope of the buckets held (sorted), for objects whose
// field value value returns.
func HashRangeScope[T Object](h HashRanges, held []int, value func(T) string) Scope[T] {
	in := make([]bool, h.N)
	for _, b := range held {
		in[b] = true
	}
	return Scope[T]{
		ShardSelector: h.Selector(held),
		Contains:      func(obj T) bool { return in[h.Bucket(value(obj))] },
	}
}

// scopedLW sets the current scope's ShardSelector on every list and watch.
type scopedLW[T Object] struct {
	ListerWatcher[T]
	selector func() string
}

func (lw scopedLW[T]) with(opts metav1.ListOptions) metav1.ListOptions {
	opts.ShardSelector = lw.selector()
	return opts
}

func (lw scopedLW[T]) List(ctx context.Context, opts metav1.ListOptions) (ListPage[T], error) {
	return lw.ListerWatcher.List(ctx, lw.with(opts))
}

func (lw scopedLW[T]) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	return lw.ListerWatcher.Watch(ctx, lw.with(opts))
}

func (lw scopedLW[T]) WatchStream(ctx context.Context, opts metav1.ListOptions) (EventStream[T], error) {
	if ws, ok := lw.ListerWatcher.(WatchStreamer[T]); ok {
		return ws.WatchStream(ctx, lw.with(opts))
	}
	return nil, nil
}

func (lw scopedLW[T]) IsWatchListSemanticsUnSupported() bool {
	return watchlist.DoesClientNotSupportWatchListSemantics(lw.ListerWatcher)
}
