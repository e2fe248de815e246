package controller_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/ctrlgen/ctrlgen/runtime/cache"
	"github.com/ctrlgen/ctrlgen/runtime/cache/cachetest"
	"github.com/ctrlgen/ctrlgen/runtime/controller"
)

// holdingShards holds every bucket and counts, by key, the reconciles
// that have begun and not yet ended.
type holdingShards struct {
	mu       sync.Mutex
	inFlight map[cache.ObjectName]int
}

func (h *holdingShards) Begin(key cache.ObjectName) (func(), bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.inFlight[key]++
	return func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.inFlight[key]--
	}, true
}

func (h *holdingShards) OnGain(func(func(cache.ObjectName) bool)) func() { return func() {} }

func (h *holdingShards) held(key cache.ObjectName) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.inFlight[key] > 0
}

func TestReconcileObserverSeesEachReconcileWhileItsBucketIsHeld(t *testing.T) {
	s := cachetest.NewServer[*corev1.ConfigMap](gr)
	s.Create(cm("ok"))
	s.Create(cm("doomed"))
	doomed := controller.Permanent(errors.New("never works"))
	shards := &holdingShards{inFlight: map[cache.ObjectName]int{}}

	type observed struct {
		controller.Reconciled
		held        bool
		statusWrite time.Time
	}
	var (
		mu           sync.Mutex
		statusWrites = map[cache.ObjectName]time.Time{}
		seen         []observed
	)
	inf := cache.NewSharedIndexInformer[*corev1.ConfigMap](s.ListerWatcher(), 0, nil)
	opts := options(s, inf, t.Name(), func(_ context.Context, o *corev1.ConfigMap) (controller.Result, error) {
		if o.Name == "doomed" {
			return controller.Result{}, doomed
		}
		o.Data["status"] = "done"
		return controller.Result{}, nil
	})
	updateStatus := opts.UpdateStatus
	opts.UpdateStatus = func(ctx context.Context, o *corev1.ConfigMap) (*corev1.ConfigMap, error) {
		mu.Lock()
		statusWrites[cache.MetaObjectName(o)] = time.Now()
		mu.Unlock()
		return updateStatus(ctx, o)
	}
	c, err := controller.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	observe := func(r controller.Reconciled) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, observed{r, shards.held(r.Key), statusWrites[r.Key]})
	}
	runUntilCleanup(t, c, 2, func(ctx context.Context) context.Context {
		return controller.WithReconcileObserver(controller.WithShards(ctx, shards), observe)
	}, inf)

	// ok's status write brings it back: a second reconcile, with nothing
	// to write.
	eventually(t, "both keys' reconciles observed", func() bool {
		mu.Lock()
		defer mu.Unlock()
		keys := map[cache.ObjectName]bool{}
		for _, o := range seen {
			keys[o.Key] = true
		}
		return len(keys) == 2
	})
	mu.Lock()
	defer mu.Unlock()
	firstOK := true
	for _, o := range seen {
		if o.Controller != t.Name() {
			t.Errorf("%s: controller %q, want %q", o.Key, o.Controller, t.Name())
		}
		if !o.held {
			t.Errorf("%s: observed after its bucket was let go", o.Key)
		}
		if o.End.Before(o.Start) {
			t.Errorf("%s: ends at %v, before it starts at %v", o.Key, o.End, o.Start)
		}
		switch o.Key {
		case key("ok"):
			if o.Err != nil {
				t.Errorf("ok: error %v", o.Err)
			}
			if firstOK && (o.statusWrite.Before(o.Start) || o.statusWrite.After(o.End)) {
				t.Errorf("ok: status written at %v, outside its first reconcile, %v to %v", o.statusWrite, o.Start, o.End)
			}
			firstOK = false
		case key("doomed"):
			if !errors.Is(o.Err, doomed) {
				t.Errorf("doomed: error %v, want %v", o.Err, doomed)
			}
		default:
			t.Errorf("observed a reconcile of %s", o.Key)
		}
	}
}
