package e2e

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/record"

	setsv1 "github.com/ctrlgen/ctrlgen/examples/configmapset/apis/sets/v1"
	"github.com/ctrlgen/ctrlgen/examples/configmapset/controllers/configmapset"
	"github.com/ctrlgen/ctrlgen/examples/configmapset/generated/clientset/versioned"
	"github.com/ctrlgen/ctrlgen/examples/configmapset/generated/informers/externalversions"
	"github.com/ctrlgen/ctrlgen/runtime/controller"
	kubeinformers "github.com/ctrlgen/ctrlgen/runtime/kube/informers"
)

// The ConfigMapSet example (examples/configmapset) creates its ConfigMaps
// by generateName, as a ReplicaSet creates Pods. Right after a create its
// cache does not show the new ConfigMap yet; a reconcile then would count
// too few and create duplicates. These tests run it on the real apiserver
// with and without its expectations.

const configMapSetCRDFile = "../examples/configmapset/config/crd/sets.ctrlgen.io_configmapsets.yaml"

// setLabel is the label the sets' selectors match their ConfigMaps by.
const setLabel = "set"

// createCounter counts the ConfigMap creates a client sends.
type createCounter struct {
	rt http.RoundTripper
	n  atomic.Int64
}

func (c *createCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/configmaps") {
		c.n.Add(1)
	}
	return c.rt.RoundTrip(r)
}

type configMapSets struct {
	t       *testing.T
	ns      string
	sets    versioned.Interface
	kube    kubernetes.Interface
	creates *createCounter
}

// runConfigMapSets starts the example's controller in a new namespace: as
// generated, with its expectations, or with the same Sync wired to
// runtime/controller without them. before, if set, runs first, on the
// namespace, for what the controller's initial lists should see. The
// controller runs as the ServiceAccount of the example's generated
// config/rbac, and a request the apiserver refuses fails the test.
func runConfigMapSets(t *testing.T, withExpectations bool, workers int, before func(*configMapSets)) *configMapSets {
	t.Helper()
	e := env(t)
	createCRD(t, e, configMapSetCRDFile)
	ctx, cancel := context.WithCancel(context.Background())
	admin := kubeClient(t, e)
	r := &configMapSets{t: t, ns: namespace(t, admin), kube: admin, creates: &createCounter{}}
	adminCfg := rest.CopyConfig(e.Config())
	adminCfg.QPS, adminCfg.Burst = 1000, 2000
	sets, err := versioned.NewForConfig(adminCfg)
	if err != nil {
		t.Fatal(err)
	}
	r.sets = sets
	account := newAccount(t, e, r.ns, configMapSetRBACDir)
	account.waitOwnerKindAdmitted(t, e, setsv1.SchemeGroupVersion.WithKind("ConfigMapSet"))
	cfg := account.config(e)
	cfg.QPS, cfg.Burst = 1000, 2000
	controllerSets, err := versioned.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, time.Minute, "ConfigMapSets to be served", func() (bool, string) {
		if _, err := sets.SetsV1().ConfigMapSets(r.ns).List(ctx, metav1.ListOptions{Limit: 1}); err != nil {
			return false, err.Error()
		}
		return true, ""
	})
	if before != nil {
		before(r)
	}
	counted := rest.CopyConfig(cfg)
	counted.Wrap(func(rt http.RoundTripper) http.RoundTripper { r.creates.rt = rt; return r.creates })
	kube, err := kubernetes.NewForConfig(counted)
	if err != nil {
		t.Fatal(err)
	}
	factory := externalversions.NewSharedInformerFactoryWithOptions(controllerSets, 0, externalversions.WithNamespace(r.ns))
	kubeFactory := kubeinformers.NewSharedInformerFactoryWithOptions(kube, 0, kubeinformers.WithNamespace(r.ns))
	var run func(context.Context, int) error
	if withExpectations {
		c, err := configmapset.New(controllerSets, factory, kube, kubeFactory, record.NewFakeRecorder(1000))
		if err != nil {
			t.Fatal(err)
		}
		run = c.Run
	} else {
		informer := factory.Sets().V1().ConfigMapSets()
		configMaps := kubeFactory.Core().V1().ConfigMaps()
		c, err := controller.New(controller.Options[*setsv1.ConfigMapSet]{
			Name:     "configmapset-without-expectations",
			Informer: informer.TypedInformer(),
			DeepCopy: (*setsv1.ConfigMapSet).DeepCopy,
			Reconcile: func(ctx context.Context, set *setsv1.ConfigMapSet) (controller.Result, error) {
				children, err := configmapset.Controlled(configMaps.Lister(), set)
				if err != nil {
					return controller.Result{}, err
				}
				return controller.Result{}, configmapset.Sync(ctx, kube, nil, set, children)
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		owner := controller.Owner{GroupKind: schema.GroupKind{Group: setsv1.GroupName, Kind: "ConfigMapSet"}, Namespaced: true}
		if err := controller.WatchOwned(c, configMaps.TypedInformer(), owner); err != nil {
			t.Fatal(err)
		}
		run = c.Run
	}
	runController(t, ctx, cancel, func(ctx context.Context) error { return run(ctx, workers) }, factory, kubeFactory)
	return r
}

// scale sets every set's spec.replicas, creating the sets the first time.
func (r *configMapSets) scale(names []string, replicas int32, create bool) {
	r.t.Helper()
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, len(names))
	for _, name := range names {
		wg.Go(func() {
			var err error
			if create {
				_, err = r.sets.SetsV1().ConfigMapSets(r.ns).Create(ctx, &setsv1.ConfigMapSet{
					ObjectMeta: metav1.ObjectMeta{Name: name},
					Spec: setsv1.ConfigMapSetSpec{
						Replicas: replicas,
						Selector: &metav1.LabelSelector{MatchLabels: map[string]string{setLabel: name}},
						Data:     map[string]string{"set": name},
					},
				}, metav1.CreateOptions{})
			} else {
				patch := fmt.Appendf(nil, `{"spec":{"replicas":%d}}`, replicas)
				_, err = r.sets.SetsV1().ConfigMapSets(r.ns).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{})
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			r.t.Fatal(err)
		}
	}
}

// counts are the live ConfigMaps of each set, as the apiserver has them.
func (r *configMapSets) counts() map[string]int32 {
	r.t.Helper()
	list, err := r.kube.CoreV1().ConfigMaps(r.ns).List(context.Background(), metav1.ListOptions{LabelSelector: setLabel})
	if err != nil {
		r.t.Fatal(err)
	}
	counts := map[string]int32{}
	for _, cm := range list.Items {
		if cm.DeletionTimestamp == nil && metav1.GetControllerOf(&cm) != nil {
			counts[cm.Labels[setLabel]]++
		}
	}
	return counts
}

// waitExact waits until every set has exactly replicas ConfigMaps and its
// status says its last reconcile saw that many, so it has nothing left
// to write.
func (r *configMapSets) waitExact(names []string, replicas int32, withStatus bool) {
	r.t.Helper()
	eventually(r.t, 3*time.Minute, fmt.Sprintf("%d sets at %d ConfigMaps", len(names), replicas), func() (bool, string) {
		counts := r.counts()
		for _, name := range names {
			if counts[name] != replicas {
				return false, fmt.Sprintf("set %s has %d ConfigMaps", name, counts[name])
			}
		}
		if !withStatus {
			return true, ""
		}
		list, err := r.sets.SetsV1().ConfigMapSets(r.ns).List(context.Background(), metav1.ListOptions{})
		if err != nil {
			return false, err.Error()
		}
		for _, s := range list.Items {
			if s.Status.Replicas != replicas || s.Status.ObservedGeneration != s.Generation {
				return false, fmt.Sprintf("set %s: status.replicas %d at generation %d/%d", s.Name, s.Status.Replicas, s.Status.ObservedGeneration, s.Generation)
			}
		}
		return true, ""
	})
}

func setNames(n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("set-%03d", i)
	}
	return names
}

// scaleThrough creates sets, scales them through replicas steps and
// waits, after each, until every set has exactly that many ConfigMaps. It
// returns how many creates that needed. With exact, each step must also
// have made exactly the creates it needed.
func (r *configMapSets) scaleThrough(sets int, exact bool) (needed int64) {
	names := setNames(sets)
	prev := int32(0)
	for i, replicas := range []int32{5, 2, 6, 1, 4} {
		r.scale(names, replicas, i == 0)
		if replicas > prev {
			needed += int64(len(names)) * int64(replicas-prev)
		}
		prev = replicas
		r.waitExact(names, replicas, exact)
		if got := r.creates.n.Load(); exact && got != needed {
			r.t.Fatalf("after scaling to %d: %d ConfigMap creates, want exactly %d", replicas, got, needed)
		}
	}
	return needed
}

func TestConfigMapSetWithoutExpectationsCreatesDuplicates(t *testing.T) {
	// A worker per set: the events of a set's first creates queue it
	// again while it reconciles, and a worker takes it up as soon as it
	// ends, before the watch has delivered its last creates.
	r := runConfigMapSets(t, false, 20, nil)
	needed := r.scaleThrough(20, false)
	// What the expectations prevent: reconciles on a cache that did not
	// yet show their own creates made more than were needed (the surplus
	// was deleted again).
	got := r.creates.n.Load()
	if got <= needed {
		t.Fatalf("%d ConfigMap creates without expectations, %d needed: the stale cache made no duplicates this time, so the test shows nothing", got, needed)
	}
	t.Logf("%d ConfigMap creates without expectations, %d needed", got, needed)
}

func TestConfigMapSetExpectationsCreateExactlyWhatIsNeeded(t *testing.T) {
	// The first case is the one that makes duplicates without them.
	for _, tc := range []struct{ sets, workers int }{{20, 20}, {200, 8}} {
		t.Run(fmt.Sprintf("sets=%d,workers=%d", tc.sets, tc.workers), func(t *testing.T) {
			r := runConfigMapSets(t, true, tc.workers, nil)
			r.scaleThrough(tc.sets, true)
		})
	}
}

// controllerOf is the UID of cm's controller, "" for an orphan.
func (r *configMapSets) controllerOf(name string) types.UID {
	r.t.Helper()
	cm, err := r.kube.CoreV1().ConfigMaps(r.ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		r.t.Fatal(err)
	}
	if ref := metav1.GetControllerOf(cm); ref != nil {
		return ref.UID
	}
	return ""
}

func (r *configMapSets) relabel(name, value string) {
	r.t.Helper()
	patch := fmt.Appendf(nil, `{"metadata":{"labels":{%q:%q}}}`, setLabel, value)
	if _, err := r.kube.CoreV1().ConfigMaps(r.ns).Patch(context.Background(), name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		r.t.Fatal(err)
	}
}

// A set adopts an orphan its selector matches, releases it when its
// labels stop matching, and adopts it again when they match again.
func TestConfigMapSetAdoptsAndReleasesAcrossLabelChanges(t *testing.T) {
	ctx := context.Background()
	// The orphan is there before the controller starts: created after,
	// the set's first reconcile might not see it yet and create two.
	r := runConfigMapSets(t, true, 4, func(r *configMapSets) {
		if _, err := r.kube.CoreV1().ConfigMaps(r.ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
			Name: "aaa-orphan", Labels: map[string]string{setLabel: "web"}}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	})
	r.scale([]string{"web"}, 2, true)
	set, err := r.sets.SetsV1().ConfigMapSets(r.ns).Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	controlledBy := func(name string, uid types.UID) func() (bool, string) {
		return func() (bool, string) {
			got := r.controllerOf(name)
			return got == uid, fmt.Sprintf("%s is controlled by %q", name, got)
		}
	}
	eventually(t, time.Minute, "the orphan adopted", controlledBy("aaa-orphan", set.UID))
	r.waitExact([]string{"web"}, 2, true)
	if got := r.creates.n.Load(); got != 1 {
		t.Fatalf("%d creates beside the adopted orphan, want 1", got)
	}

	r.relabel("aaa-orphan", "elsewhere")
	eventually(t, time.Minute, "the relabelled child released", controlledBy("aaa-orphan", ""))
	r.waitExact([]string{"web"}, 2, true)
	if got := r.creates.n.Load(); got != 2 {
		t.Fatalf("%d creates after the release, want 2: one to replace the released child", got)
	}

	// Matching again, it is adopted again; the set, now one over, deletes
	// the first by name: the orphan.
	r.relabel("aaa-orphan", "web")
	r.waitExact([]string{"web"}, 2, true)
	eventually(t, time.Minute, "the surplus child deleted", func() (bool, string) {
		_, err := r.kube.CoreV1().ConfigMaps(r.ns).Get(ctx, "aaa-orphan", metav1.GetOptions{})
		return apierrors.IsNotFound(err), fmt.Sprintf("get: %v", err)
	})
	if got := r.creates.n.Load(); got != 2 {
		t.Fatalf("%d creates in all, want 2", got)
	}
}
