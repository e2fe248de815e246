package controller_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/applyconfigurations"
	kubescheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/structured-merge-diff/v6/typed"

	"github.com/ctrlgen/ctrlgen/runtime/cache"
	"github.com/ctrlgen/ctrlgen/runtime/cache/cachetest"
	"github.com/ctrlgen/ctrlgen/runtime/controller"
)

type cmFilter = controller.UpdateFilter[*corev1.ConfigMap]

func TestUpdateFilters(t *testing.T) {
	gen := controller.GenerationChanged[*corev1.ConfigMap]
	labels := controller.LabelsChanged[*corev1.ConfigMap]
	annotations := controller.AnnotationsChanged[*corev1.ConfigMap]
	with := func(mutate func(*corev1.ConfigMap)) *corev1.ConfigMap {
		o := cm("a")
		o.Generation, o.ResourceVersion = 1, "10"
		if mutate != nil {
			mutate(o)
		}
		return o
	}
	old := with(nil)
	statusOnly := with(func(o *corev1.ConfigMap) { o.ResourceVersion = "11"; o.Data["status"] = "ready" })
	specChange := with(func(o *corev1.ConfigMap) { o.ResourceVersion = "11"; o.Generation = 2 })
	labelChange := with(func(o *corev1.ConfigMap) { o.ResourceVersion = "11"; o.Labels = map[string]string{"l": "v"} })
	annotationChange := with(func(o *corev1.ConfigMap) { o.ResourceVersion = "11"; o.Annotations = map[string]string{"a": "v"} })
	emptyLabels := with(func(o *corev1.ConfigMap) { o.ResourceVersion = "11"; o.Labels = map[string]string{} })

	for _, tc := range []struct {
		name   string
		filter cmFilter
		obj    *corev1.ConfigMap
		want   bool
	}{
		{"generation: status only", gen, statusOnly, false},
		{"generation: spec", gen, specChange, true},
		{"generation: labels", gen, labelChange, false},
		{"generation: resync", gen, old, false},
		{"labels: labels", labels, labelChange, true},
		{"labels: status only", labels, statusOnly, false},
		{"labels: nil to empty", labels, emptyLabels, false},
		{"labels: annotations", labels, annotationChange, false},
		{"annotations: annotations", annotations, annotationChange, true},
		{"annotations: labels", annotations, labelChange, false},
		{"or: labels", controller.Or(gen, labels), labelChange, true},
		{"or: spec", controller.Or(gen, labels), specChange, true},
		{"or: status only", controller.Or(gen, labels), statusOnly, false},
		{"or of none", controller.Or[*corev1.ConfigMap](), specChange, false},
		{"and: spec only", controller.And(gen, labels), specChange, false},
		{"and: both", controller.And(gen, labels), with(func(o *corev1.ConfigMap) { o.Generation = 2; o.Labels = map[string]string{"l": "v"} }), true},
		{"and of none", controller.And[*corev1.ConfigMap](), statusOnly, true},
	} {
		if got := tc.filter(old, tc.obj); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

// reconcileLog is the order in which a one-worker controller reconciled
// its objects.
type reconcileLog struct {
	mu    sync.Mutex
	names []string
}

func (l *reconcileLog) add(name string) {
	l.mu.Lock()
	l.names = append(l.names, name)
	l.mu.Unlock()
}

func (l *reconcileLog) has(name string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Contains(l.names, name)
}

// count is how many times name was reconciled.
func (l *reconcileLog) count(name string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, s := range l.names {
		if s == name {
			n++
		}
	}
	return n
}

// barrier returns once every reconcile caused by what happened before it
// is done, without sleeping. The controller has one worker and the
// workqueue is FIFO; events reach the handler in order. A key queued
// before the first barrier object was added is reconciled before it; a
// key that was being reconciled then is queued again when that reconcile
// ends, which is before the first barrier is reconciled, and so before
// the second barrier object is added.
func (l *reconcileLog) barrier(t *testing.T, s *server) {
	t.Helper()
	for range 2 {
		l.mu.Lock()
		name := fmt.Sprintf("barrier-%d", len(l.names))
		l.mu.Unlock()
		if _, err := s.Create(cm(name)); err != nil {
			t.Fatal(err)
		}
		eventually(t, name+" reconciled", func() bool { return l.has(name) })
	}
}

// TestEventFiltersDropTheUpdatesTheyDoNotPass runs one controller per
// filter through the same updates of a ConfigMap "a" (its Data["status"]
// is the status, written back by UpdateStatus) and counts the reconciles
// of "a" after each step. Without a filter, each update is reconciled,
// the controller's own status write included.
func TestEventFiltersDropTheUpdatesTheyDoNotPass(t *testing.T) {
	gen := controller.GenerationChanged[*corev1.ConfigMap]
	labels := controller.LabelsChanged[*corev1.ConfigMap]
	annotations := controller.AnnotationsChanged[*corev1.ConfigMap]
	steps := []struct {
		name string
		do   func(s *server)
	}{
		{"create (the reconcile writes the status)", func(s *server) { s.Create(cm("a")) }},
		{"a label changes", func(s *server) {
			s.Mutate(key("a"), func(o *corev1.ConfigMap) { o.Labels = map[string]string{"l": "v"} })
		}},
		{"an annotation changes", func(s *server) {
			s.Mutate(key("a"), func(o *corev1.ConfigMap) { o.Annotations = map[string]string{"a": "v"} })
		}},
		{"someone else writes the status (the reconcile writes it back)", func(s *server) {
			s.Mutate(key("a"), func(o *corev1.ConfigMap) { o.Data["status"] = "tampered" })
		}},
	}
	for _, tc := range []struct {
		name   string
		filter cmFilter
		skip   bool
		// want is the number of reconciles of "a" after each step.
		want []int
	}{
		{name: "none", want: []int{2, 3, 4, 6}},
		{name: "generationChanged", filter: gen, want: []int{1, 1, 1, 1}},
		{name: "labelsChanged", filter: labels, want: []int{1, 2, 2, 2}},
		{name: "annotationsChanged", filter: annotations, want: []int{1, 1, 2, 2}},
		{name: "generationChanged,labelsChanged", filter: controller.Or(gen, labels), want: []int{1, 2, 2, 2}},
		{name: "ownStatusWrites", skip: true, want: []int{1, 2, 3, 4}},
		{name: "labelsChanged,ownStatusWrites", filter: labels, skip: true, want: []int{1, 2, 2, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := cachetest.NewServer[*corev1.ConfigMap](gr)
			var log reconcileLog
			startWorkers(t, s, 1, func(o *controller.Options[*corev1.ConfigMap]) {
				o.UpdateFilter, o.SkipOwnStatusWrites = tc.filter, tc.skip
			}, func(_ context.Context, o *corev1.ConfigMap) (controller.Result, error) {
				log.add(o.Name)
				o.Data["status"] = "ready"
				return controller.Result{}, nil
			})
			log.barrier(t, s) // the controller is running: no event of "a" meets Run's queueing of the cache
			var got []int
			for _, step := range steps {
				step.do(s)
				log.barrier(t, s)
				got = append(got, log.count("a"))
			}
			if !slices.Equal(got, tc.want) {
				var b strings.Builder
				for i, step := range steps {
					fmt.Fprintf(&b, "\n\tafter %s: %d reconciles, want %d", step.name, got[i], tc.want[i])
				}
				t.Errorf("reconciles of a:%s", b.String())
			}
			status := stored(s, "a").Data["status"]
			if want := map[bool]string{true: "tampered", false: "ready"}[tc.want[3] == tc.want[2]]; status != want {
				t.Errorf("status %q at the end, want %q", status, want)
			}
		})
	}
}

// TestSkipOwnStatusWritesAfterAConflict: the status write conflicts with
// someone else's write; the retried write, made on the fresh object, is
// still recognised as the controller's own. The other writer's update is
// dropped by an UpdateFilter, so that any second reconcile would be the
// own write's.
func TestSkipOwnStatusWritesAfterAConflict(t *testing.T) {
	for _, skip := range []bool{false, true} {
		t.Run(fmt.Sprint("skip=", skip), func(t *testing.T) {
			s := cachetest.NewServer[*corev1.ConfigMap](gr)
			var log reconcileLog
			var once sync.Once
			startWorkers(t, s, 1, func(o *controller.Options[*corev1.ConfigMap]) {
				o.SkipOwnStatusWrites = skip
				o.UpdateFilter = func(old, obj *corev1.ConfigMap) bool { return old.Data["other"] == obj.Data["other"] }
			}, func(_ context.Context, o *corev1.ConfigMap) (controller.Result, error) {
				log.add(o.Name)
				if o.Name == "a" {
					once.Do(func() {
						s.Mutate(key("a"), func(o *corev1.ConfigMap) { o.Data["other"] = "writer" })
					})
				}
				o.Data["status"] = "ready"
				return controller.Result{}, nil
			})
			log.barrier(t, s)
			s.Create(cm("a"))
			log.barrier(t, s)
			want := map[bool]int{false: 2, true: 1}[skip]
			if n := log.count("a"); n != want {
				t.Errorf("a reconciled %d times, want %d", n, want)
			}
			if got := stored(s, "a"); got.Data["status"] != "ready" || got.Data["other"] != "writer" {
				t.Errorf("a's data %v", got.Data)
			}
		})
	}
}

func TestSkipOwnStatusWritesNeedsAStatusWrite(t *testing.T) {
	s := cachetest.NewServer[*corev1.ConfigMap](gr)
	inf := cache.NewSharedIndexInformer[*corev1.ConfigMap](s.ListerWatcher(), 0, nil)
	opts := options(s, inf, t.Name(), func(context.Context, *corev1.ConfigMap) (controller.Result, error) {
		return controller.Result{}, nil
	})
	opts.UpdateStatus, opts.SkipOwnStatusWrites = nil, true
	if _, err := controller.New(opts); err == nil || !strings.Contains(err.Error(), "SkipOwnStatusWrites needs") {
		t.Fatalf("New: %v", err)
	}
}

// TestUpdateFilterLeavesOwnedObjectsAlone: an owned object's update that
// the owner's filter would drop still queues the owner.
func TestUpdateFilterLeavesOwnedObjectsAlone(t *testing.T) {
	owners := cachetest.NewServer[*corev1.ConfigMap](gr)
	owned := cachetest.NewServer[*corev1.Secret](schema.GroupResource{Resource: "secrets"})
	ownerInf := cache.NewSharedIndexInformer[*corev1.ConfigMap](owners.ListerWatcher(), 0, nil)
	ownedInf := cache.NewSharedIndexInformer[*corev1.Secret](owned.ListerWatcher(), 0, nil)
	var log reconcileLog
	opts := options(owners, ownerInf, t.Name(), func(_ context.Context, o *corev1.ConfigMap) (controller.Result, error) {
		log.add(o.Name)
		return controller.Result{}, nil
	})
	opts.UpdateFilter = controller.GenerationChanged[*corev1.ConfigMap]
	c, err := controller.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := controller.WatchOwned(c, ownedInf, controller.Owner{GroupKind: schema.GroupKind{Kind: "ConfigMap"}, Namespaced: true}); err != nil {
		t.Fatal(err)
	}
	runUntilCleanup(t, c, 1, nil, ownerInf, ownedInf)
	log.barrier(t, owners)
	owners.Create(cm("owner"))
	log.barrier(t, owners)
	ref := []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "owner", UID: "u", Controller: ptr(true)}}
	owned.Create(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "s", OwnerReferences: ref}})
	eventually(t, "the owner reconciled for the add", func() bool { return log.count("owner") == 2 })
	// The same generation: GenerationChanged would drop it on the owner.
	owned.Mutate(key("s"), func(o *corev1.Secret) { o.StringData = map[string]string{"k": "v"} })
	eventually(t, "the owner reconciled for the update", func() bool { return log.count("owner") == 3 })
	log.barrier(t, owners)
	if n := log.count("owner"); n != 3 {
		t.Errorf("owner reconciled %d times, want 3", n)
	}
}

// TestSkipOwnStatusWritesOfAStatusApply: status written as a status apply
// is, without a resourceVersion precondition: the update it made is not
// reconciled; someone else's write made during the reconcile, which the
// apply lands on, is.
func TestSkipOwnStatusWritesOfAStatusApply(t *testing.T) {
	s := cachetest.NewServer[*corev1.ConfigMap](gr)
	var log reconcileLog
	typeConverter := applyconfigurations.NewTypeConverter(kubescheme.Scheme)
	startWorkers(t, s, 1, func(o *controller.Options[*corev1.ConfigMap]) {
		o.UpdateStatus, o.SkipOwnStatusWrites = nil, true
		o.StatusApply = &controller.StatusApply[*corev1.ConfigMap]{
			ToTyped: func(c *corev1.ConfigMap) (*typed.TypedValue, error) {
				withKind := *c
				withKind.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}
				return typeConverter.ObjectToTyped(&withKind)
			},
			// A ConfigMap has no status to apply: its Data["status"] is
			// set on whatever is stored, as an apply would.
			Apply: func(_ context.Context, c *corev1.ConfigMap, _ map[string]any, _ metav1.ApplyOptions) (*corev1.ConfigMap, error) {
				return s.Mutate(key(c.Name), func(cur *corev1.ConfigMap) { copyStatus(cur, c) })
			},
		}
	}, func(_ context.Context, o *corev1.ConfigMap) (controller.Result, error) {
		log.add(o.Name)
		if o.Name == "b" && o.Data["status"] == "" {
			s.Mutate(key("b"), func(o *corev1.ConfigMap) { o.Labels = map[string]string{"by": "someone"} })
		}
		o.Data["status"] = "ready"
		return controller.Result{}, nil
	})
	log.barrier(t, s)
	s.Create(cm("a"))
	log.barrier(t, s)
	if n := log.count("a"); n != 1 || stored(s, "a").Data["status"] != "ready" {
		t.Errorf("a reconciled %d times (want 1), status %q", n, stored(s, "a").Data["status"])
	}
	// b: someone relabels it during its first reconcile; the apply lands
	// on the relabelled object. The relabel is reconciled (its update and
	// the apply's may share one reconcile).
	s.Create(cm("b"))
	log.barrier(t, s)
	if n := log.count("b"); n < 2 {
		t.Errorf("b reconciled %d times: the relabel was dropped with the apply", n)
	}
}
