// Package cachetest is an in-memory apiserver for one resource, for unit
// tests of informers and controllers. It keeps a change log that watches
// replay from any resourceVersion newer than the last compaction, checks
// resourceVersions on update as the apiserver does, and lets a test close
// or fail watches, compact the log, send bookmarks and take the server away.
//
// Lists follow the apiserver's resourceVersion semantics (see List), with a
// watch cache in front of "etcd" as on a real apiserver: the watch cache
// serves lists at "0" and "not older than" reads, and watches; etcd serves
// consistent and exact reads and continue pages, from the change log, until
// a compaction. The watch cache's history can be cut short of etcd's
// (TrimWatchCache), or the watch cache turned off (DisableWatchCache).
//
// Watches serve streamed lists (sendInitialEvents, see Watch) as the
// apiserver does, so that a Reflector takes its WatchList path; the server
// can refuse them (SetWatchListDisabled), or its ListerWatcher say that it
// cannot ask for them (SetWatchListSemanticsUnsupported), for the LIST
// path.
package cachetest

import (
	"context"
	"fmt"
	"net"
	"os"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"sync"
	"syscall"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/ctrlgen/ctrlgen/runtime/cache"
)

// Server serves one resource.
type Server[T cache.Object] struct {
	resource schema.GroupResource

	mu   sync.Mutex
	rv   int64
	uid  int64
	objs map[cache.ObjectName]T
	// base is the state at compacted, and log every change after it: the
	// state at any version from compacted on is base with the log replayed
	// up to that version.
	base      map[cache.ObjectName]T
	log       []watch.Event
	compacted int64
	// watchCacheFrom is the oldest version the watch cache can serve a
	// watch from, when it is past compacted.
	watchCacheFrom int64
	noWatchCache   bool
	watchers       map[*watcher]struct{}
	down           bool

	listErrs        []error
	watchErrs       []error
	rv0Unservable   bool
	expireContinues int
	// watchListOff refuses streamed lists, as an apiserver with the
	// WatchList feature off; watchListUnsupported makes ListerWatcher say
	// it cannot stream them, as client-go's fake clientsets.
	watchListOff         bool
	watchListUnsupported bool
	// shards, when set, serves ShardSelector as an apiserver with the
	// ShardedListAndWatch feature: it turns a selector into the objects
	// it selects.
	shards func(selector string) (func(obj any) bool, error)

	lists   []metav1.ListOptions
	watches []metav1.ListOptions
}

// NewServer returns an empty server; resource names it in errors.
func NewServer[T cache.Object](resource schema.GroupResource) *Server[T] {
	return &Server[T]{
		resource: resource,
		objs:     map[cache.ObjectName]T{},
		base:     map[cache.ObjectName]T{},
		watchers: map[*watcher]struct{}{},
	}
}

// ServeShardSelectors makes lists and watches with a ShardSelector send
// only the objects parse's function selects, as an apiserver with the
// ShardedListAndWatch feature on; a parse error is a 400. Without it the
// server ignores ShardSelector, as one with the feature off.
func (s *Server[T]) ServeShardSelectors(parse func(selector string) (func(obj any) bool, error)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.shards = parse
}

// shardFilterLocked is what opts' ShardSelector selects; nil for all.
func (s *Server[T]) shardFilterLocked(opts metav1.ListOptions) (func(obj any) bool, error) {
	if s.shards == nil || opts.ShardSelector == "" {
		return nil, nil
	}
	f, err := s.shards(opts.ShardSelector)
	if err != nil {
		return nil, apierrors.NewBadRequest("invalid shard selector: " + err.Error())
	}
	return f, nil
}

// ErrRefused is what List and Watch return while the server is down: the
// dial error Go's transport returns, wrapping ECONNREFUSED.
var ErrRefused error = &net.OpError{Op: "dial", Net: "tcp",
	Addr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 6443},
	Err:  os.NewSyscallError("connect", syscall.ECONNREFUSED)}

func deepCopy[T cache.Object](obj T) T { return obj.DeepCopyObject().(T) }

// ListerWatcher lists and watches the server. It says it cannot stream
// initial lists when SetWatchListSemanticsUnsupported(true) was called
// before.
func (s *Server[T]) ListerWatcher() *cache.ListWatch[T] {
	s.mu.Lock()
	defer s.mu.Unlock()
	return &cache.ListWatch[T]{ListFunc: s.List, WatchFunc: s.Watch, WatchListSemanticsUnsupported: s.watchListUnsupported}
}

// SetWatchListDisabled makes the server refuse streamed lists
// (sendInitialEvents) with the 422 Invalid of an apiserver run with
// --feature-gates=WatchList=false.
func (s *Server[T]) SetWatchListDisabled(v bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.watchListOff = v
}

// SetWatchListSemanticsUnsupported makes the ListerWatchers returned from
// now on say that they cannot stream initial lists
// (IsWatchListSemanticsUnSupported), so that a Reflector never tries.
func (s *Server[T]) SetWatchListSemanticsUnsupported(v bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.watchListUnsupported = v
}

// Create stores a copy of obj with a new UID and resourceVersion.
func (s *Server[T]) Create(obj T) (T, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var zero T
	key := cache.MetaObjectName(obj)
	if _, ok := s.objs[key]; ok {
		return zero, apierrors.NewAlreadyExists(s.resource, key.Name)
	}
	obj = deepCopy(obj)
	s.uid++
	obj.SetUID(types.UID("uid-" + strconv.FormatInt(s.uid, 10)))
	obj.SetGeneration(1)
	s.commitLocked(watch.Added, obj)
	return deepCopy(obj), nil
}

// Update replaces the stored object. A non-empty resourceVersion that is
// not the stored one is a conflict, as on a real apiserver.
func (s *Server[T]) Update(obj T) (T, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var zero T
	key := cache.MetaObjectName(obj)
	cur, ok := s.objs[key]
	if !ok {
		return zero, apierrors.NewNotFound(s.resource, key.Name)
	}
	if rv := obj.GetResourceVersion(); rv != "" && rv != cur.GetResourceVersion() {
		return zero, apierrors.NewConflict(s.resource, key.Name, fmt.Errorf("the object has been modified"))
	}
	obj = deepCopy(obj)
	obj.SetUID(cur.GetUID())
	obj.SetGeneration(cur.GetGeneration())
	s.commitLocked(watch.Modified, obj)
	return deepCopy(obj), nil
}

// Mutate applies fn to a copy of the stored object and stores it.
func (s *Server[T]) Mutate(key cache.ObjectName, fn func(T)) (T, error) {
	cur, err := s.Get(key)
	if err != nil {
		return cur, err
	}
	fn(cur)
	return s.Update(cur)
}

// Delete removes the object and returns its final state.
func (s *Server[T]) Delete(key cache.ObjectName) (T, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var zero T
	cur, ok := s.objs[key]
	if !ok {
		return zero, apierrors.NewNotFound(s.resource, key.Name)
	}
	obj := deepCopy(cur)
	s.commitLocked(watch.Deleted, obj)
	return deepCopy(obj), nil
}

// Get returns a copy of the stored object.
func (s *Server[T]) Get(key cache.ObjectName) (T, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var zero T
	cur, ok := s.objs[key]
	if !ok {
		return zero, apierrors.NewNotFound(s.resource, key.Name)
	}
	return deepCopy(cur), nil
}

func (s *Server[T]) commitLocked(t watch.EventType, obj T) {
	s.rv++
	obj.SetResourceVersion(strconv.FormatInt(s.rv, 10))
	if t == watch.Deleted {
		delete(s.objs, cache.MetaObjectName(obj))
	} else {
		s.objs[cache.MetaObjectName(obj)] = obj
	}
	ev := watch.Event{Type: t, Object: obj}
	s.log = append(s.log, ev)
	for w := range s.watchers {
		w.send(ev)
	}
}

// State returns the stored objects by key. They must not be modified.
func (s *Server[T]) State() map[cache.ObjectName]T {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[cache.ObjectName]T, len(s.objs))
	for k, v := range s.objs {
		out[k] = v
	}
	return out
}

// Compact forgets the change log, as etcd's compaction does: watches and
// exact lists at older versions, and continue tokens from them, get 410.
func (s *Server[T]) Compact() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.compacted = s.rv
	s.base = make(map[cache.ObjectName]T, len(s.objs))
	for k, v := range s.objs {
		s.base[k] = v
	}
	s.log = nil
}

// TrimWatchCache drops the watch cache's history up to now, as a watch cache
// does when its window fills: watches from older versions get 410, while
// etcd, not compacted, still serves exact lists at them.
func (s *Server[T]) TrimWatchCache() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.watchCacheFrom = s.rv
}

// DisableWatchCache serves everything from etcd, as an apiserver run with
// --watch-cache=false: lists at "0" honour the limit, and watches reach back
// to the last compaction whatever TrimWatchCache did.
func (s *Server[T]) DisableWatchCache() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.noWatchCache = true
}

// CloseWatches ends every open watch, as a server-side timeout would.
func (s *Server[T]) CloseWatches() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closeWatchesLocked()
}

func (s *Server[T]) closeWatchesLocked() {
	for w := range s.watchers {
		w.close()
		delete(s.watchers, w)
	}
}

// FailWatches sends an error event carrying status to every open watch,
// then ends it.
func (s *Server[T]) FailWatches(status *metav1.Status) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for w := range s.watchers {
		w.send(watch.Event{Type: watch.Error, Object: status})
		w.close()
		delete(s.watchers, w)
	}
}

// Bookmark sends a bookmark at the current resourceVersion to every open
// watch.
func (s *Server[T]) Bookmark() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for w := range s.watchers {
		w.send(watch.Event{Type: watch.Bookmark, Object: s.bookmarkLocked(s.rv)})
	}
}

// bookmarkLocked returns an empty object at version rv.
func (s *Server[T]) bookmarkLocked(rv int64) T {
	var zero T
	bm := reflect.New(reflect.TypeOf(zero).Elem()).Interface().(T)
	bm.SetResourceVersion(strconv.FormatInt(rv, 10))
	return bm
}

// SetDown cuts the ListerWatcher off (List and Watch fail with ErrRefused
// and open watches end) or connects it again. Writes still go through, as
// other clients' would during the informer's outage.
func (s *Server[T]) SetDown(down bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.down = down
	if down {
		s.closeWatchesLocked()
	}
}

// Detached runs fn with no watch open to its changes and the server up:
// what fn does is seen only through a relist or a replay of the log.
func (s *Server[T]) Detached(fn func()) {
	s.mu.Lock()
	saved, wasDown := s.watchers, s.down
	s.watchers, s.down = map[*watcher]struct{}{}, false
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.watchers, s.down = saved, wasDown
		s.mu.Unlock()
	}()
	fn()
}

// FailNextLists makes the next List calls return errs, one each.
func (s *Server[T]) FailNextLists(errs ...error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.listErrs = append(s.listErrs, errs...)
}

// FailNextWatches makes the next Watch calls return errs, one each.
func (s *Server[T]) FailNextWatches(errs ...error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.watchErrs = append(s.watchErrs, errs...)
}

// SetRV0Unservable makes lists at resourceVersion "0" fail with 410, as
// when the watch cache cannot serve them. It has no effect once
// DisableWatchCache is called.
func (s *Server[T]) SetRV0Unservable(v bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rv0Unservable = v
}

// ExpireNextContinues makes the next n continue tokens expired.
func (s *Server[T]) ExpireNextContinues(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expireContinues = n
}

// OpenWatches is the number of watches open now.
func (s *Server[T]) OpenWatches() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.watchers)
}

// Calls returns the options of every List and Watch call so far.
func (s *Server[T]) Calls() (lists, watches []metav1.ListOptions) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]metav1.ListOptions(nil), s.lists...), append([]metav1.ListOptions(nil), s.watches...)
}

// List serves a page with the apiserver's semantics for resourceVersion
// (RV), resourceVersionMatch and limit:
//
//   - RV "": a consistent read of the latest state; limit is honoured.
//   - RV "0" (match unset or NotOlderThan): any state, from the watch cache,
//     which ignores limit; here the latest.
//   - RV X with match NotOlderThan, or unset with no limit: a state at least
//     as new as X, from the watch cache; here the latest. X newer than the
//     server's version is "too large resource version".
//   - RV X with match Exact, or unset with a limit (the legacy reading): the
//     state at exactly X, from etcd: 410 Expired once X is compacted, "too
//     large resource version" past the server's version.
//
// A continue token is "<list rv>/<offset>" into the state at that version;
// it reads etcd at exactly that version, so it expires with a compaction
// past it. Options the apiserver rejects are rejected alike.
func (s *Server[T]) List(ctx context.Context, opts metav1.ListOptions) (cache.ListPage[T], error) {
	page, err := s.list(ctx, opts)
	if err != nil {
		return page, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	keep, err := s.shardFilterLocked(opts)
	if err != nil || keep == nil {
		return page, err
	}
	page.Items = slices.DeleteFunc(page.Items, func(obj T) bool { return !keep(obj) })
	return page, nil
}

func (s *Server[T]) list(_ context.Context, opts metav1.ListOptions) (cache.ListPage[T], error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lists = append(s.lists, opts)
	if s.down {
		return cache.ListPage[T]{}, ErrRefused
	}
	if len(s.listErrs) > 0 {
		err := s.listErrs[0]
		s.listErrs = s.listErrs[1:]
		return cache.ListPage[T]{}, err
	}
	if err := validateListOptions(opts); err != nil {
		return cache.ListPage[T]{}, err
	}
	limit := opts.Limit
	if opts.Continue != "" {
		var tokRV int64
		var start int
		if _, err := fmt.Sscanf(opts.Continue, "%d/%d", &tokRV, &start); err != nil || tokRV <= 0 || start < 0 {
			return cache.ListPage[T]{}, apierrors.NewBadRequest("invalid continue token")
		}
		if opts.ResourceVersion != "" && opts.ResourceVersion != "0" {
			return cache.ListPage[T]{}, apierrors.NewBadRequest("specifying resource version is not allowed when using continue")
		}
		if tokRV < s.compacted || s.expireContinues > 0 {
			if s.expireContinues > 0 {
				s.expireContinues--
			}
			return cache.ListPage[T]{}, apierrors.NewResourceExpired("The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.")
		}
		if tokRV > s.rv {
			return cache.ListPage[T]{}, apierrors.NewBadRequest("invalid continue token")
		}
		return s.pageLocked(tokRV, start, limit), nil
	}
	if opts.ResourceVersion == "" {
		return s.pageLocked(s.rv, 0, limit), nil
	}
	rv, err := strconv.ParseInt(opts.ResourceVersion, 10, 64)
	if err != nil || rv < 0 {
		return cache.ListPage[T]{}, apierrors.NewBadRequest("invalid resource version: " + opts.ResourceVersion)
	}
	exact := opts.ResourceVersionMatch == metav1.ResourceVersionMatchExact ||
		opts.ResourceVersionMatch == "" && limit > 0 && rv > 0
	if exact {
		if rv > s.rv {
			return cache.ListPage[T]{}, tooLargeResourceVersion(rv, s.rv)
		}
		if rv < s.compacted {
			return cache.ListPage[T]{}, apierrors.NewResourceExpired("The resourceVersion for the provided list is too old.")
		}
		return s.pageLocked(rv, 0, limit), nil
	}
	if rv == 0 && !s.noWatchCache {
		if s.rv0Unservable {
			return cache.ListPage[T]{}, apierrors.NewResourceExpired("too old resource version: 0")
		}
		limit = 0
	}
	if rv > s.rv {
		return cache.ListPage[T]{}, tooLargeResourceVersion(rv, s.rv)
	}
	return s.pageLocked(s.rv, 0, limit), nil
}

// validateListOptions rejects what the apiserver's validation of list
// options rejects, with the same 422 Invalid.
func validateListOptions(opts metav1.ListOptions) error {
	var errs field.ErrorList
	path := field.NewPath("resourceVersionMatch")
	if match := opts.ResourceVersionMatch; match != "" {
		if opts.ResourceVersion == "" {
			errs = append(errs, field.Forbidden(path, "resourceVersionMatch is forbidden unless resourceVersion is provided"))
		}
		if opts.Continue != "" {
			errs = append(errs, field.Forbidden(path, "resourceVersionMatch is forbidden when continue is provided"))
		}
		if match != metav1.ResourceVersionMatchExact && match != metav1.ResourceVersionMatchNotOlderThan {
			errs = append(errs, field.NotSupported(path, match, []string{string(metav1.ResourceVersionMatchExact), string(metav1.ResourceVersionMatchNotOlderThan), ""}))
		}
		if match == metav1.ResourceVersionMatchExact && opts.ResourceVersion == "0" {
			errs = append(errs, field.Forbidden(path, `resourceVersionMatch "exact" is forbidden for resourceVersion "0"`))
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: "ListOptions"}, "", errs)
}

// tooLargeResourceVersion is the apiserver's error for a version it has not
// reached: a timeout with a ResourceVersionTooLarge cause.
func tooLargeResourceVersion(asked, current int64) *apierrors.StatusError {
	err := apierrors.NewTimeoutError(fmt.Sprintf("Too large resource version: %d, current: %d", asked, current), 1)
	err.ErrStatus.Details.Causes = []metav1.StatusCause{{Type: metav1.CauseTypeResourceVersionTooLarge, Message: "Too large resource version"}}
	return err
}

// pageLocked returns up to limit objects (all when limit is 0) from the
// state at version at, from offset start in key order.
func (s *Server[T]) pageLocked(at int64, start int, limit int64) cache.ListPage[T] {
	objs := s.stateAtLocked(at)
	keys := make([]cache.ObjectName, 0, len(objs))
	for k := range objs {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	start = min(start, len(keys))
	end := len(keys)
	page := cache.ListPage[T]{ResourceVersion: strconv.FormatInt(at, 10)}
	if limit > 0 && int64(end-start) > limit {
		end = start + int(limit)
		page.Continue = fmt.Sprintf("%d/%d", at, end)
	}
	for _, k := range keys[start:end] {
		page.Items = append(page.Items, deepCopy(objs[k]))
	}
	return page
}

// stateAtLocked returns the objects as they were at version at, which must
// be between the last compaction and the current version. The result must
// not be modified.
func (s *Server[T]) stateAtLocked(at int64) map[cache.ObjectName]T {
	if at == s.rv {
		return s.objs
	}
	objs := make(map[cache.ObjectName]T, len(s.base))
	for k, v := range s.base {
		objs[k] = v
	}
	for _, ev := range s.log {
		if rvOf(ev) > at {
			break
		}
		obj := ev.Object.(T)
		if ev.Type == watch.Deleted {
			delete(objs, cache.MetaObjectName(obj))
		} else {
			objs[cache.MetaObjectName(obj)] = obj
		}
	}
	return objs
}

// Watch replays the log after opts.ResourceVersion, then streams changes.
// From "" or "0" it first sends the current objects as Added, as the
// apiserver does. A version older than the server's history (the last
// compaction, or the watch cache's window) gets a watch that delivers one
// 410 Expired error event and ends, as from the apiserver.
//
// A streamed list (sendInitialEvents=true, resourceVersionMatch
// NotOlderThan) sends the objects of a state as Added, then, when
// bookmarks are allowed, a bookmark annotated "k8s.io/initial-events-end"
// at that state's version, then the changes after it. As on the
// apiserver, the watch cache serves the latest state for any version it
// has reached, "" included, and a version past the server's gets a "too
// large resource version" error event; with the watch cache disabled,
// etcd serves the state at exactly that version ("" and "0": the latest),
// and 410 once it is compacted. Options the apiserver rejects get its 422
// Invalid, and so do streamed lists when SetWatchListDisabled(true).
func (s *Server[T]) Watch(_ context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.watches = append(s.watches, opts)
	if s.down {
		return nil, ErrRefused
	}
	if len(s.watchErrs) > 0 {
		err := s.watchErrs[0]
		s.watchErrs = s.watchErrs[1:]
		return nil, err
	}
	if err := validateWatchOptions(opts, !s.watchListOff); err != nil {
		return nil, err
	}
	keep, err := s.shardFilterLocked(opts)
	if err != nil {
		return nil, err
	}
	var from int64
	if opts.ResourceVersion != "" {
		var err error
		if from, err = strconv.ParseInt(opts.ResourceVersion, 10, 64); err != nil || from < 0 {
			return nil, apierrors.NewBadRequest("invalid resource version: " + opts.ResourceVersion)
		}
	}
	w := newWatcher(func(w *watcher) {
		s.mu.Lock()
		delete(s.watchers, w)
		s.mu.Unlock()
	})
	w.keep = keep
	if opts.SendInitialEvents != nil {
		if *opts.SendInitialEvents {
			s.streamListLocked(w, from, opts.AllowWatchBookmarks)
		} else {
			s.watchers[w] = struct{}{}
		}
		return w, nil
	}
	if from == 0 {
		for _, obj := range s.pageLocked(s.rv, 0, 0).Items {
			w.send(watch.Event{Type: watch.Added, Object: obj})
		}
		s.watchers[w] = struct{}{}
		return w, nil
	}
	oldest := s.compacted
	if !s.noWatchCache {
		oldest = max(oldest, s.watchCacheFrom)
	}
	if from < oldest {
		failWatch(w, apierrors.NewResourceExpired(fmt.Sprintf("too old resource version: %d (%d)", from, oldest)))
		return w, nil
	}
	for _, ev := range s.log {
		if rvOf(ev) > from {
			w.send(ev)
		}
	}
	s.watchers[w] = struct{}{}
	return w, nil
}

// streamListLocked starts a streamed list at least as new as from (the
// watch cache) or at exactly from (etcd), 0 meaning the latest.
func (s *Server[T]) streamListLocked(w *watcher, from int64, bookmark bool) {
	if from > s.rv {
		failWatch(w, tooLargeResourceVersion(from, s.rv))
		return
	}
	at := s.rv
	if s.noWatchCache && from != 0 {
		if from < s.compacted {
			failWatch(w, apierrors.NewResourceExpired(fmt.Sprintf("too old resource version: %d (%d)", from, s.compacted)))
			return
		}
		at = from
	}
	for _, obj := range s.pageLocked(at, 0, 0).Items {
		w.send(watch.Event{Type: watch.Added, Object: obj})
	}
	if bookmark {
		bm := s.bookmarkLocked(at)
		bm.SetAnnotations(map[string]string{metav1.InitialEventsAnnotationKey: "true"})
		w.send(watch.Event{Type: watch.Bookmark, Object: bm})
	}
	for _, ev := range s.log {
		if rvOf(ev) > at {
			w.send(ev)
		}
	}
	s.watchers[w] = struct{}{}
}

// failWatch sends err as the watch's one event, and ends it.
func failWatch(w *watcher, err *apierrors.StatusError) {
	status := err.Status()
	w.send(watch.Event{Type: watch.Error, Object: &status})
	w.close()
}

// validateWatchOptions rejects what the apiserver's validation of watch
// options rejects, with the same 422 Invalid; watchList is whether its
// WatchList feature is on.
func validateWatchOptions(opts metav1.ListOptions, watchList bool) error {
	var errs field.ErrorList
	match := opts.ResourceVersionMatch
	if opts.SendInitialEvents != nil {
		if match != metav1.ResourceVersionMatchNotOlderThan {
			errs = append(errs, field.Forbidden(field.NewPath("resourceVersionMatch"), fmt.Sprintf("sendInitialEvents requires setting resourceVersionMatch to %s", metav1.ResourceVersionMatchNotOlderThan)))
		}
		if !watchList {
			errs = append(errs, field.Forbidden(field.NewPath("sendInitialEvents"), "sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled"))
		}
	}
	if match != "" {
		if opts.SendInitialEvents == nil {
			errs = append(errs, field.Forbidden(field.NewPath("resourceVersionMatch"), "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"))
		}
		if match != metav1.ResourceVersionMatchNotOlderThan {
			errs = append(errs, field.NotSupported(field.NewPath("resourceVersionMatch"), match, []string{string(metav1.ResourceVersionMatchNotOlderThan)}))
		}
		if opts.Continue != "" {
			errs = append(errs, field.Forbidden(field.NewPath("resourceVersionMatch"), "resourceVersionMatch is forbidden when continue is provided"))
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: "ListOptions"}, "", errs)
}

func rvOf(ev watch.Event) int64 {
	n, _ := strconv.ParseInt(ev.Object.(metav1.Object).GetResourceVersion(), 10, 64)
	return n
}

// watcher delivers events through an unbounded queue, so the server never
// blocks on a slow reader.
type watcher struct {
	onStop func(*watcher)
	// keep, when set, selects the objects of the events sent (a shard
	// selector's).
	keep    func(obj any) bool
	mu      sync.Mutex
	cond    sync.Cond
	queue   []watch.Event
	closed  bool
	stopped bool
	ch      chan watch.Event
	done    chan struct{}
}

func newWatcher(onStop func(*watcher)) *watcher {
	w := &watcher{onStop: onStop, ch: make(chan watch.Event), done: make(chan struct{})}
	w.cond.L = &w.mu
	go w.pump()
	return w
}

func (w *watcher) send(ev watch.Event) {
	if w.keep != nil && (ev.Type == watch.Added || ev.Type == watch.Modified || ev.Type == watch.Deleted) && !w.keep(ev.Object) {
		return
	}
	w.mu.Lock()
	w.queue = append(w.queue, ev)
	w.mu.Unlock()
	w.cond.Signal()
}

func (w *watcher) close() {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	w.cond.Signal()
}

func (w *watcher) pump() {
	defer close(w.ch)
	for {
		w.mu.Lock()
		for len(w.queue) == 0 && !w.closed && !w.stopped {
			w.cond.Wait()
		}
		if w.stopped || len(w.queue) == 0 {
			w.mu.Unlock()
			return
		}
		ev := w.queue[0]
		w.queue = w.queue[1:]
		w.mu.Unlock()
		// Each watcher gets its own copy, as each client of an apiserver
		// decodes its own: the stored objects are shared, and a client may
		// change what it receives (an informer interns it in place).
		ev.Object = ev.Object.DeepCopyObject()
		select {
		case w.ch <- ev:
		case <-w.done:
			return
		}
	}
}

func (w *watcher) Stop() {
	w.onStop(w)
	w.mu.Lock()
	if !w.stopped {
		w.stopped = true
		close(w.done)
	}
	w.mu.Unlock()
	w.cond.Signal()
}

func (w *watcher) ResultChan() <-chan watch.Event { return w.ch }
