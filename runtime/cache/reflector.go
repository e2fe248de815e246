package cache

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	clientfeatures "k8s.io/client-go/features"
	"k8s.io/client-go/util/watchlist"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// ReflectorStore is what a Reflector writes into: a DeltaFIFO in an informer.
type ReflectorStore[T any] interface {
	Add(obj T) error
	Update(obj T) error
	Delete(obj T) error
	Replace(list []T, resourceVersion string) error
}

// TransformingStore is a ReflectorStore that transforms the objects it is
// given before it keeps them, as an informer's DeltaFIFO does. A Reflector
// that writes into one transforms a streamed list's objects as they
// arrive, so that only what will be kept is held until the list ends, and
// hands them over with ReplaceTransformed.
type TransformingStore[T any] interface {
	ReflectorStore[T]
	// Transformer is the transform the store applies; nil for none.
	Transformer() TransformFunc[T]
	// ReplaceTransformed is Replace of objects Transformer has already
	// transformed.
	ReplaceTransformed(list []T, resourceVersion string) error
}

// BackoffConfig is the Reflector's retry backoff: exponential from Initial
// to Max, each wait stretched by a random factor in [1, 1+Jitter). It
// starts again from Initial after a successful list, and after ResetAfter
// without a wait.
type BackoffConfig struct {
	Initial, Max time.Duration
	Jitter       float64
	// ResetAfter is how long the Reflector must go without backing off for
	// its next failure to wait Initial again; default 2 minutes.
	ResetAfter time.Duration
}

// DefaultBackoff is client-go's: 800ms doubling to 30s, jitter 1, reset
// after 2 healthy minutes.
var DefaultBackoff = BackoffConfig{Initial: 800 * time.Millisecond, Max: 30 * time.Second, Jitter: 1, ResetAfter: 2 * time.Minute}

// ReflectorOptions tune a Reflector; zero values take the defaults.
type ReflectorOptions struct {
	// Name labels log lines and errors.
	Name string
	// PageSize is the limit of each List page; default 500.
	PageSize int64
	// MinWatchTimeout is the lower bound of the server-side watch timeout,
	// which is jittered up to twice it; default 5 minutes.
	MinWatchTimeout time.Duration
	Backoff         BackoffConfig
	// WatchErrorHandler is called for every error that ends a list or a
	// watch; default logs it.
	WatchErrorHandler WatchErrorHandler
	// Clock times backoff waits and watches, and an informer's resync
	// checks; default the real clock.
	Clock clock.Clock
	// DisableWatchList makes the Reflector read the whole state with a
	// paginated LIST, never with a streamed initial list (see Reflector).
	// client-go's WatchListClient feature gate, which the environment
	// variable KUBE_FEATURE_WatchListClient=false turns off, disables it
	// too, and so does a ListerWatcher whose
	// IsWatchListSemanticsUnSupported returns true.
	DisableWatchList bool
}

// Reflector lists a resource, then watches it from the list's
// resourceVersion, and keeps a store in step. A watch that ends or fails is
// resumed from the last resourceVersion seen (bookmarks included); only a
// 410 Gone, when the server no longer has that version, makes it relist.
//
// It reads the whole state, at the start and after a 410, as client-go's
// does by default: with a streamed initial list (WatchList), a watch with
// sendInitialEvents=true that sends every object as an ADDED event, then a
// bookmark annotated "k8s.io/initial-events-end"; the store is replaced
// with what came before it, and the same watch carries on. The objects are
// decoded one by one instead of as one response and one list, so the peak
// memory of a sync is about that of the cache. When the server refuses
// such a watch (a server with the WatchList feature off, an older one, or
// one whose storage cannot serve it), the Reflector falls back to a
// paginated LIST, and keeps listing from then on.
type Reflector[T Object] struct {
	lw    ListerWatcher[T]
	store ReflectorStore[T]
	opts  ReflectorOptions

	// streamLists is whether the whole state is read by a streamed initial
	// list; it turns false for good when the server refuses one.
	streamLists bool

	rvLock sync.RWMutex
	lastRV string
	// relistConsistent asks the next list to be a consistent read from etcd
	// because the last one, from the watch cache, could not be served.
	relistConsistent bool
	// pagedAtZero records that a list at "0" came back in pages: the
	// apiserver has no watch cache for the resource, so relists page too.
	pagedAtZero bool
	// cycleMu guards current, the list-and-watch cycle under way, which
	// Relist ends, and paused, how many Relists are running their
	// function, during which no cycle may start (resumed signals each
	// end); wake cuts a backoff wait short for a Relist between cycles.
	cycleMu sync.Mutex
	current *cycle
	paused  int
	resumed *sync.Cond
	wake    chan struct{}
}

// cycle is one list and the watches after it, until a relist.
type cycle struct {
	cancel   context.CancelFunc
	done     chan struct{}
	relisted bool
}

// NewReflector returns a Reflector that keeps store in step with lw.
func NewReflector[T Object](lw ListerWatcher[T], store ReflectorStore[T], opts ReflectorOptions) *Reflector[T] {
	if opts.PageSize == 0 {
		opts.PageSize = 500
	}
	if opts.MinWatchTimeout == 0 {
		opts.MinWatchTimeout = 5 * time.Minute
	}
	if opts.Backoff.Initial == 0 {
		opts.Backoff = DefaultBackoff
	}
	if opts.Backoff.Max < opts.Backoff.Initial {
		opts.Backoff.Max = opts.Backoff.Initial
	}
	if opts.Backoff.ResetAfter == 0 {
		opts.Backoff.ResetAfter = DefaultBackoff.ResetAfter
	}
	if opts.WatchErrorHandler == nil {
		opts.WatchErrorHandler = defaultWatchErrorHandler(opts.Name)
	}
	if opts.Clock == nil {
		opts.Clock = clock.RealClock{}
	}
	streamLists := !opts.DisableWatchList &&
		clientfeatures.FeatureGates().Enabled(clientfeatures.WatchListClient) &&
		!watchlist.DoesClientNotSupportWatchListSemantics(lw)
	r := &Reflector[T]{lw: lw, store: store, opts: opts, streamLists: streamLists, wake: make(chan struct{}, 1)}
	r.resumed = sync.NewCond(&r.cycleMu)
	return r
}

func defaultWatchErrorHandler(name string) WatchErrorHandler {
	return func(ctx context.Context, err error) {
		logger := klog.FromContext(ctx)
		if isExpired(err) || errors.Is(err, errVeryShortWatch) {
			logger.V(2).Info("Watch restarted", "reflector", name, "reason", err.Error())
			return
		}
		logger.Error(err, "List or watch failed", "reflector", name)
	}
}

// LastSyncResourceVersion is the resourceVersion of the last list, event or
// bookmark seen.
func (r *Reflector[T]) LastSyncResourceVersion() string {
	r.rvLock.RLock()
	defer r.rvLock.RUnlock()
	return r.lastRV
}

func (r *Reflector[T]) setLastRV(rv string) {
	r.rvLock.Lock()
	r.lastRV = rv
	r.rvLock.Unlock()
}

// Run lists and watches until ctx is done.
//
// Every failed list or watch backs off before the next try, and so does
// every relist after a 410. The backoff starts again from its initial step
// after a successful list (unless the watch before it expired at once),
// after a watch that ends normally, and once ResetAfter has passed without
// a wait.
func (r *Reflector[T]) Run(ctx context.Context) {
	b := newBackoff(r.opts.Backoff, r.opts.Clock)
	expiredAtOnce := false
	for ctx.Err() == nil {
		cycleCtx, end := r.startCycle(ctx)
		backoff := r.runCycle(cycleCtx, b, &expiredAtOnce)
		if end() && ctx.Err() == nil {
			continue // relisted: list again at once, from the last version seen
		}
		if ctx.Err() != nil || backoff && !r.backoff(ctx, b) {
			return
		}
	}
}

// startCycle begins a cycle that Relist can end; end ends it and reports
// whether Relist did.
func (r *Reflector[T]) startCycle(ctx context.Context) (context.Context, func() (relisted bool)) {
	cycleCtx, cancel := context.WithCancel(ctx)
	c := &cycle{cancel: cancel, done: make(chan struct{})}
	r.cycleMu.Lock()
	for r.paused > 0 {
		r.resumed.Wait()
	}
	r.current = c
	r.cycleMu.Unlock()
	return cycleCtx, func() bool {
		r.cycleMu.Lock()
		r.current = nil
		relisted := c.relisted
		r.cycleMu.Unlock()
		cancel()
		close(c.done)
		return relisted
	}
}

// backoff waits a backoff step, cut short by a Relist; false when ctx is
// done.
func (r *Reflector[T]) backoff(ctx context.Context, b *backoff) bool {
	waitCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		select {
		case <-r.wake:
			cancel()
		case <-stop:
		}
	}()
	return b.wait(waitCtx) || ctx.Err() == nil
}

// runCycle lists and then watches until the watch needs a relist, or ctx
// is done. It reports whether the next list should wait a backoff step:
// after a failed list, and after a watch that returned for a 410.
func (r *Reflector[T]) runCycle(ctx context.Context, b *backoff, expiredAtOnce *bool) (backoff bool) {
	streamed, err := r.sync(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return false
		}
		r.opts.WatchErrorHandler(ctx, err)
		return true
	}
	// A good list ends an outage: the next failure should not wait as
	// long as the outage's last. But when the watch from the previous
	// list expired at once, lists succeed while the reflector gets
	// nowhere; then relists keep backing off, lest a server that keeps
	// answering 410 be hammered with full lists.
	if !*expiredAtOnce {
		b.reset()
	}
	*expiredAtOnce = r.watch(ctx, b, streamed)
	return true
}

// Relist ends the list or watch under way, runs between, when no list
// or watch is under way, if it is not nil, and makes Run list again at
// once: what the lister-watcher lists has changed (an informer's
// Rescope), and between's changes to the store come before the new list.
// Between cycles it cuts a backoff wait short. It must not be called
// from the goroutine that calls the store.
func (r *Reflector[T]) Relist(between func()) {
	r.cycleMu.Lock()
	c := r.current
	if c != nil {
		c.relisted = true
		c.cancel()
	}
	r.paused++
	r.cycleMu.Unlock()
	if c != nil {
		<-c.done
	}
	if between != nil {
		between()
	}
	r.cycleMu.Lock()
	r.paused--
	r.resumed.Broadcast()
	r.cycleMu.Unlock()
	if c == nil {
		select {
		case r.wake <- struct{}{}:
		default: // one pending is enough
		}
	}
}

// sync replaces the store's content with the resource's whole state: by a
// streamed initial list, whose watch it returns for the caller to carry
// on with (unless the stream is left after its initial events), or else
// by a paginated list; streamed is nil when the caller starts the watch.
//
// As client-go's, a streamed list that fails is followed by a paginated
// list in the same cycle, unless the failure is one client-go streams again
// after (see streamAgain). A server that refuses streamed lists outright is
// listed from then on.
func (r *Reflector[T]) sync(ctx context.Context) (streamed *openWatch[T], err error) {
	if r.streamLists {
		streamed, err = r.watchList(ctx)
		switch {
		case err == nil || ctx.Err() != nil || streamAgain(err):
			return streamed, err
		case isWatchListRefused(err):
			klog.FromContext(ctx).V(2).Info("The server refused a streamed list; listing from now on", "reflector", r.opts.Name, "err", err)
			r.streamLists = false
		default:
			klog.FromContext(ctx).V(4).Info("The streamed list failed; listing instead", "reflector", r.opts.Name, "err", err)
		}
	}
	return nil, r.list(ctx)
}

// list replaces the store's content with a full list. The first list reads
// the apiserver's watch cache (resourceVersion "0"); a relist asks for at
// least the last version seen; when either cannot be served, or a page's
// continue token has expired, it falls back to a consistent list.
func (r *Reflector[T]) list(ctx context.Context) error {
	opts := r.listOptions()
	var items []T
	for {
		page, err := r.lw.List(ctx, opts)
		if err != nil {
			if (isExpired(err) || isTooLargeResourceVersion(err)) && (opts.ResourceVersion != "" || opts.Continue != "") {
				// A page whose continue token expired is not retried page by
				// page, where it could expire again: the list is read whole.
				limit := r.opts.PageSize
				if opts.Continue != "" {
					limit = 0
				}
				r.relistConsistent = true
				opts = metav1.ListOptions{Limit: limit}
				items = nil
				continue
			}
			return fmt.Errorf("%s: list: %w", r.opts.Name, err)
		}
		if opts.ResourceVersion == "0" && page.Continue != "" {
			r.pagedAtZero = true
		}
		if items == nil && page.Continue == "" {
			items = page.Items
		} else {
			items = append(items, page.Items...)
		}
		if page.Continue == "" {
			if err := r.store.Replace(items, page.ResourceVersion); err != nil {
				return fmt.Errorf("%s: replace: %w", r.opts.Name, err)
			}
			r.relistConsistent = false
			r.setLastRV(page.ResourceVersion)
			return nil
		}
		opts = metav1.ListOptions{Limit: r.opts.PageSize, Continue: page.Continue}
	}
}

// listOptions are the options of a list's first page.
//
// A relist at the last version seen, X, must not be read as an exact read:
// the apiserver reads X with a limit and no resourceVersionMatch as exactly
// X, from etcd, which after a 410 is a state older than the watch cache's
// window; the watch from it would get 410 again, and the cache would stay
// stale as the reflector relisted in a loop. So, as client-go does, a relist
// at X asks for no limit, which the watch cache serves with at least X. If
// lists at "0" came back paged, there is no watch cache to spare etcd a
// full read, so the relist keeps its pages and asks for NotOlderThan, which
// servers without resourceVersionMatch ignore, reading X exactly and
// replaying the watch from there.
func (r *Reflector[T]) listOptions() metav1.ListOptions {
	opts := metav1.ListOptions{ResourceVersion: r.relistResourceVersion(), Limit: r.opts.PageSize}
	if opts.ResourceVersion != "" && opts.ResourceVersion != "0" {
		if r.pagedAtZero {
			opts.ResourceVersionMatch = metav1.ResourceVersionMatchNotOlderThan
		} else {
			opts.Limit = 0
		}
	}
	return opts
}

func (r *Reflector[T]) relistResourceVersion() string {
	if r.relistConsistent {
		return ""
	}
	if rv := r.LastSyncResourceVersion(); rv != "" {
		return rv
	}
	return "0"
}

// watch watches from the last resourceVersion until ctx is done or the
// server says that version is gone; then the caller relists. Other
// failures (connection refused, 429, internal errors, ...) back off and
// watch again from the last version. It reports whether the version the
// list returned was gone at once: the first watch expired before it
// delivered anything. The first watch is streamed when it is not nil.
func (r *Reflector[T]) watch(ctx context.Context, b *backoff, streamed *openWatch[T]) (expiredAtOnce bool) {
	defer func() {
		if streamed != nil {
			streamed.w.Stop()
		}
	}()
	for first := true; ctx.Err() == nil; first = false {
		events, err := r.watchOnce(ctx, streamed)
		streamed = nil
		if ctx.Err() != nil {
			return false
		}
		if err == nil {
			b.reset()
			continue
		}
		r.opts.WatchErrorHandler(ctx, err)
		if isExpired(err) {
			return first && events == 0
		}
		if !b.wait(ctx) {
			return false
		}
	}
	return false
}

// openWatch is a watch already under way: a streamed list's, past its
// initial events.
type openWatch[T Object] struct {
	w      EventStream[T]
	start  time.Time
	events int
}

var errVeryShortWatch = errors.New("very short watch: the watch ended at once with no events")

// watchOnce runs one watch to its end, and returns how many events it
// delivered: open's, carrying on, or else a new one from the last
// resourceVersion. The error is nil when the server ended the watch
// normally after it had lasted or delivered something.
func (r *Reflector[T]) watchOnce(ctx context.Context, open *openWatch[T]) (events int, err error) {
	if open == nil {
		timeout := r.watchTimeout()
		start := r.opts.Clock.Now()
		w, err := startWatch(ctx, r.lw, metav1.ListOptions{
			ResourceVersion:     r.LastSyncResourceVersion(),
			TimeoutSeconds:      &timeout,
			AllowWatchBookmarks: true,
		})
		if err != nil {
			return 0, fmt.Errorf("%s: watch: %w", r.opts.Name, err)
		}
		open = &openWatch[T]{w: w, start: start}
	}
	w, start, events := open.w, open.start, open.events
	defer w.Stop()
	for {
		typ, obj, err := w.Next()
		switch {
		case ctx.Err() != nil:
			return events, nil
		case err == io.EOF:
			if events == 0 && r.opts.Clock.Since(start) < time.Second {
				return 0, errVeryShortWatch
			}
			return events, nil
		case err != nil:
			return events, fmt.Errorf("%s: watch: %w", r.opts.Name, err)
		}
		events++
		switch typ {
		case watch.Added:
			err = r.store.Add(obj)
		case watch.Modified:
			err = r.store.Update(obj)
		case watch.Deleted:
			err = r.store.Delete(obj)
		case watch.Bookmark:
		default:
			err = fmt.Errorf("unknown watch event type %q", typ)
		}
		if err != nil {
			return events, fmt.Errorf("%s: watch: %w", r.opts.Name, err)
		}
		r.setLastRV(obj.GetResourceVersion())
	}
}

// watchTimeout is a watch's server-side timeout in seconds: between
// MinWatchTimeout and twice it, so that watches do not all end together.
func (r *Reflector[T]) watchTimeout() int64 {
	return int64(r.opts.MinWatchTimeout.Seconds() * (1 + rand.Float64()))
}

// isExpired reports a 410 Gone or "too old resource version": the server
// no longer has the resourceVersion asked for.
func isExpired(err error) bool {
	return apierrors.IsResourceExpired(err) || apierrors.IsGone(err) ||
		strings.Contains(err.Error(), "too old resource version")
}

func isTooLargeResourceVersion(err error) bool {
	return apierrors.HasStatusCause(err, metav1.CauseTypeResourceVersionTooLarge)
}

type backoff struct {
	cfg   BackoffConfig
	clock clock.Clock
	// next is the last wait's step before jitter; 0 starts from Initial.
	next time.Duration
	// lastWait is when the last wait ended.
	lastWait time.Time
}

func newBackoff(cfg BackoffConfig, c clock.Clock) *backoff { return &backoff{cfg: cfg, clock: c} }

func (b *backoff) reset() { b.next = 0 }

// wait sleeps for the next backoff step; false means ctx ended first. The
// steps start again from Initial when no wait was needed for ResetAfter.
func (b *backoff) wait(ctx context.Context) bool {
	if b.next != 0 && b.clock.Since(b.lastWait) >= b.cfg.ResetAfter {
		b.next = 0
	}
	if b.next == 0 {
		b.next = b.cfg.Initial
	} else if b.next = 2 * b.next; b.next > b.cfg.Max {
		b.next = b.cfg.Max
	}
	d := b.next
	if b.cfg.Jitter > 0 {
		d += time.Duration(rand.Float64() * b.cfg.Jitter * float64(d))
	}
	t := b.clock.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C():
		b.lastWait = b.clock.Now()
		return true
	}
}
