package e2e

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	"github.com/ctrlgen/ctrlgen/runtime/cache"
	"github.com/ctrlgen/ctrlgen/runtime/controller"
	clientcache "k8s.io/client-go/tools/cache"
)

// observer records what an informer's handler and a controller saw, per
// key: the handler's last state (nil once deleted) and every delete, and
// the data the controller last reconciled ("<gone>" once it saw NotFound).
type observer struct {
	mu         sync.Mutex
	last       map[cache.ObjectName]*corev1.ConfigMap
	deletes    map[cache.ObjectName][]deleteEvent
	reconciled map[cache.ObjectName]string
	watchErrs  []error
}

type deleteEvent struct {
	obj     *corev1.ConfigMap
	unknown bool
}

const gone = "<gone>"

func newObserver() *observer {
	return &observer{last: map[cache.ObjectName]*corev1.ConfigMap{}, deletes: map[cache.ObjectName][]deleteEvent{},
		reconciled: map[cache.ObjectName]string{}}
}

// handler is client-go's untyped handler, as existing controllers register
// it: a delete whose final state is unknown comes as a
// DeletedFinalStateUnknown holding the last known object.
func (o *observer) handler() clientcache.ResourceEventHandler {
	set := func(obj any) {
		o.mu.Lock()
		cm := obj.(*corev1.ConfigMap)
		o.last[cache.MetaObjectName(cm)] = cm
		o.mu.Unlock()
	}
	return clientcache.ResourceEventHandlerFuncs{
		AddFunc:    set,
		UpdateFunc: func(_, obj any) { set(obj) },
		DeleteFunc: func(obj any) {
			unknown := false
			if tomb, ok := obj.(clientcache.DeletedFinalStateUnknown); ok {
				obj, unknown = tomb.Obj, true
			}
			cm := obj.(*corev1.ConfigMap)
			o.mu.Lock()
			defer o.mu.Unlock()
			key := cache.MetaObjectName(cm)
			o.last[key] = nil
			o.deletes[key] = append(o.deletes[key], deleteEvent{cm, unknown})
		},
	}
}

// converged reports whether the informer's cache, the handler and the
// controller all agree with the server.
func (o *observer) converged(ctx context.Context, c kubernetes.Interface, ns string, idx cache.FastIndexer[*corev1.ConfigMap]) (bool, string) {
	list, err := c.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return false, err.Error()
	}
	server := map[cache.ObjectName]*corev1.ConfigMap{}
	for i := range list.Items {
		if list.Items[i].Name != "kube-root-ca.crt" {
			server[cache.MetaObjectName(&list.Items[i])] = &list.Items[i]
		}
	}
	cached := 0
	for _, key := range idx.ListNames() {
		if key.Name != "kube-root-ca.crt" {
			cached++
		}
	}
	if cached != len(server) {
		return false, fmt.Sprintf("cache holds %d objects, server %d", cached, len(server))
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for key, want := range server {
		got, ok := idx.GetByName(key)
		if !ok || got.ResourceVersion != want.ResourceVersion {
			return false, fmt.Sprintf("cache has %s at a stale version", key)
		}
		if h := o.last[key]; h == nil || h.ResourceVersion != want.ResourceVersion {
			return false, fmt.Sprintf("handler has not seen the last state of %s", key)
		}
		if o.reconciled[key] != want.Data["v"] {
			return false, fmt.Sprintf("%s reconciled at %q, server has %q", key, o.reconciled[key], want.Data["v"])
		}
	}
	for key, h := range o.last {
		if _, live := server[key]; !live && key.Name != "kube-root-ca.crt" {
			if h != nil {
				return false, fmt.Sprintf("handler never saw %s deleted", key)
			}
			if o.reconciled[key] != gone {
				return false, fmt.Sprintf("deletion of %s not reconciled", key)
			}
		}
	}
	return true, ""
}

// reader is an informer and a controller over one namespace's ConfigMaps,
// with an observer of what they saw.
type reader struct {
	name string
	inf  cache.SharedIndexInformer[*corev1.ConfigMap]
	obs  *observer
	// lists counts List calls.
	lists atomic.Int32
}

// startReader starts a reader over client; disableWatchList picks how its
// Reflector reads the whole state.
func startReader(t *testing.T, ctx context.Context, client kubernetes.Interface, ns string, disableWatchList bool) *reader {
	t.Helper()
	r := &reader{name: map[bool]string{false: "watchlist", true: "list"}[disableWatchList], obs: newObserver()}
	cms := client.CoreV1().ConfigMaps(ns)
	lw := &cache.ListWatch[*corev1.ConfigMap]{
		ListFunc: func(ctx context.Context, o metav1.ListOptions) (cache.ListPage[*corev1.ConfigMap], error) {
			r.lists.Add(1)
			l, err := cms.List(ctx, o)
			if err != nil {
				return cache.ListPage[*corev1.ConfigMap]{}, err
			}
			return cache.ListPage[*corev1.ConfigMap]{Items: cache.PointersWithAlloc(l.Items), ResourceVersion: l.ResourceVersion, Continue: l.Continue}, nil
		},
		WatchFunc: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) { return cms.Watch(ctx, o) },
	}
	r.inf = cache.NewSharedIndexInformerWithOptions[*corev1.ConfigMap](lw, cache.SharedIndexInformerOptions{
		Reflector: cache.ReflectorOptions{
			Backoff:          cache.BackoffConfig{Initial: 50 * time.Millisecond, Max: time.Second, Jitter: 0.5},
			DisableWatchList: disableWatchList,
		},
	})
	obs := r.obs
	r.inf.SetWatchErrorHandlerWithContext(func(_ context.Context, _ *clientcache.Reflector, err error) {
		obs.mu.Lock()
		obs.watchErrs = append(obs.watchErrs, err)
		obs.mu.Unlock()
	})
	r.inf.AddEventHandler(obs.handler())
	ctrl, err := controller.New(controller.Options[*corev1.ConfigMap]{
		Name: "e2e-faults-" + r.name, Informer: r.inf, DeepCopy: (*corev1.ConfigMap).DeepCopy,
		Reconcile: func(_ context.Context, cm *corev1.ConfigMap) (controller.Result, error) {
			obs.mu.Lock()
			obs.reconciled[cache.MetaObjectName(cm)] = cm.Data["v"]
			obs.mu.Unlock()
			return controller.Result{}, nil
		},
		Deleted: func(_ context.Context, key cache.ObjectName) error {
			obs.mu.Lock()
			obs.reconciled[key] = gone
			obs.mu.Unlock()
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { r.inf.RunWithContext(ctx) })
	wg.Go(func() { ctrl.Run(ctx, 2) })
	t.Cleanup(func() { cancel(); wg.Wait() })
	return r
}

// TestInformerAndControllerLoseNothingThroughFaults runs two informers and
// controllers over ConfigMaps through a proxy that can cut them off, one
// reading the whole state with streamed lists (WatchList), the other with
// paginated lists, and checks after each fault that each cache equals the
// server, that each handler saw every object's last state, that every last
// change was reconciled, and that deletes carry the last object. Both go
// through the same faults at once, so the second way costs no extra time.
// They run as the ServiceAccount of mydemo's generated config/rbac (which
// reads ConfigMaps), and the apiserver refuses none of their requests but
// while it restarts, before it is ready (its authorizer has not read the
// roles yet).
func TestInformerAndControllerLoseNothingThroughFaults(t *testing.T) {
	e := env(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	writer := kubernetes.NewForConfigOrDie(e.Config())
	ns := namespace(t, writer)
	account := newMydemoAccount(t, e, ns)

	p, readerCfg := proxied(t, e)
	readerCfg.BearerToken, readerCfg.WrapTransport = account.token, account.log.wrap
	client := kubernetes.NewForConfigOrDie(readerCfg)
	readers := []*reader{startReader(t, ctx, client, ns, false), startReader(t, ctx, client, ns, true)}

	names := make([]string, 60)
	for i := range names {
		names[i] = fmt.Sprintf("cm-%02d", i)
		_, err := writer.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: names[i]}, Data: map[string]string{"v": "0"}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
	}
	converge := func(what string) {
		t.Helper()
		for _, r := range readers {
			eventually(t, 60*time.Second, r.name+": "+what, func() (bool, string) { return r.obs.converged(ctx, writer, ns, r.inf.FastIndexer()) })
		}
	}
	converge("initial sync")
	defer func() {
		if n := readers[0].lists.Load(); n != 0 {
			t.Errorf("the watchlist reader listed %d times; it must stream every sync", n)
		}
	}()

	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	live := slices.Clone(names)
	step := 0
	// write changes n random live objects, retrying while the apiserver is
	// away; every third change is a delete.
	write := func(n int) {
		for range n {
			step++
			i := rng.IntN(len(live))
			name := live[i]
			for {
				var err error
				if step%3 == 0 {
					err = writer.CoreV1().ConfigMaps(ns).Delete(ctx, name, metav1.DeleteOptions{})
				} else {
					_, err = writer.CoreV1().ConfigMaps(ns).Update(ctx, &corev1.ConfigMap{
						ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"v": fmt.Sprint(step)}}, metav1.UpdateOptions{})
				}
				if err == nil || apierrors.IsNotFound(err) {
					break
				}
				if ctx.Err() != nil {
					t.Fatal(err)
				}
				time.Sleep(50 * time.Millisecond) // the apiserver is restarting
			}
			if step%3 == 0 {
				live = slices.Delete(live, i, i+1)
			}
		}
	}

	t.Run("apiserver killed mid-stream", func(t *testing.T) {
		done := make(chan struct{})
		go func() { defer close(done); write(20) }()
		stopped := time.Now()
		if err := e.StopAPIServer(ctx); err != nil {
			t.Fatal(err)
		}
		if err := e.StartAPIServer(ctx); err != nil {
			t.Fatal(err)
		}
		// A new apiserver serves before its RBAC authorizer has read the
		// roles: until /readyz is ok (StartAPIServer waits for it), it may
		// refuse what the role grants.
		account.log.excuse(stopped, time.Now(), "the apiserver was starting")
		<-done
		write(5)
		converge("convergence after an apiserver restart")
	})

	t.Run("deletes while disconnected arrive with the final state", func(t *testing.T) {
		p.Cut()
		before := make([]int, len(readers))
		for i, r := range readers {
			before[i] = len(r.obs.snapshotDeletes())
		}
		victims := live[:3]
		for _, name := range victims {
			if err := writer.CoreV1().ConfigMaps(ns).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		live = live[3:]
		p.Restore()
		converge("convergence after a disconnection")
		// The watch resumed from its resourceVersion and the server replayed
		// the deletes (or, if etcd compacted meanwhile, a relist found them).
		for i, r := range readers {
			if n := len(r.obs.snapshotDeletes()) - before[i]; n != 3 {
				t.Errorf("%s: %d deletes delivered, want 3", r.name, n)
			}
		}
	})

	t.Run("watch expired with 410 relists and tombstones what vanished", func(t *testing.T) {
		p.Cut()
		victims := slices.Clone(live[:4])
		lastKnown := map[string]string{}
		for _, name := range victims {
			cm, _ := readers[0].inf.FastIndexer().GetByName(cache.NewObjectName(ns, name))
			lastKnown[name] = cm.Data["v"]
			if err := writer.CoreV1().ConfigMaps(ns).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		live = live[4:]
		write(10)
		if _, err := e.CompactEtcd(ctx); err != nil {
			t.Fatal(err)
		}
		p.Restore()
		converge("convergence after a 410")
		for _, r := range readers {
			if !r.obs.sawExpired() {
				t.Fatalf("%s: the informer never got 410 Gone; the relist path was not exercised", r.name)
			}
			deletes := r.obs.snapshotDeletes()
			for _, name := range victims {
				ds := deletes[cache.NewObjectName(ns, name)]
				if len(ds) != 1 || !ds[0].unknown || ds[0].obj.Data["v"] != lastKnown[name] {
					t.Errorf("%s: %s: deletes %+v, want one tombstone carrying v=%s", r.name, name, ds, lastKnown[name])
				}
			}
		}
	})
}

func (o *observer) snapshotDeletes() map[cache.ObjectName][]deleteEvent {
	o.mu.Lock()
	defer o.mu.Unlock()
	return maps.Clone(o.deletes)
}

func (o *observer) sawExpired() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, err := range o.watchErrs {
		if apierrors.IsResourceExpired(err) || apierrors.IsGone(err) {
			return true
		}
	}
	return false
}
