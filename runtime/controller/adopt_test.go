package controller_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ctrlgen/ctrlgen/runtime/cache"
	"github.com/ctrlgen/ctrlgen/runtime/cache/cachetest"
	"github.com/ctrlgen/ctrlgen/runtime/controller"
)

// Seed 001's cases of ControllerRefManager: owners are ConfigMaps whose
// Data["selector"] is their label selector, children are Secrets.

var ownerGVK = schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}

type adoptionFixture struct {
	owners   *server
	children *cachetest.Server[*corev1.Secret]
	a        *controller.Adoption[*corev1.ConfigMap, *corev1.Secret]

	mu      sync.Mutex
	patches []string // names of the patched children
}

func newAdoptionFixture() *adoptionFixture {
	f := &adoptionFixture{
		owners:   cachetest.NewServer[*corev1.ConfigMap](gr),
		children: cachetest.NewServer[*corev1.Secret](schema.GroupResource{Resource: "secrets"}),
	}
	f.a = &controller.Adoption[*corev1.ConfigMap, *corev1.Secret]{
		OwnerKind: ownerGVK,
		Selector:  func(o *corev1.ConfigMap) (labels.Selector, error) { return labels.Parse(o.Data["selector"]) },
		Get:       func(_ context.Context, k cache.ObjectName) (*corev1.ConfigMap, error) { return f.owners.Get(k) },
		Patch: func(_ context.Context, child *corev1.Secret, patch []byte) error {
			f.mu.Lock()
			f.patches = append(f.patches, child.Name)
			f.mu.Unlock()
			return f.applyJSONPatch(child, patch)
		},
	}
	return f
}

// applyJSONPatch applies patch to the stored child, as the apiserver does.
func (f *adoptionFixture) applyJSONPatch(child *corev1.Secret, patch []byte) error {
	cur, err := f.children.Get(cache.MetaObjectName(child))
	if err != nil {
		return err
	}
	p, err := jsonpatch.DecodePatch(patch)
	if err != nil {
		return err
	}
	doc, err := json.Marshal(cur)
	if err != nil {
		return err
	}
	if doc, err = p.Apply(doc); err != nil {
		return apierrors.NewInvalid(schema.GroupKind{Kind: "Secret"}, child.Name, nil)
	}
	var next corev1.Secret
	if err := json.Unmarshal(doc, &next); err != nil {
		return err
	}
	_, err = f.children.Update(&next)
	return err
}

func (f *adoptionFixture) owner(name, selector string) *corev1.ConfigMap {
	o := cm(name)
	o.UID = types.UID(name + "-uid")
	o.Data["selector"] = selector
	stored, err := f.owners.Create(o)
	if err != nil {
		panic(err)
	}
	return stored
}

func (f *adoptionFixture) child(name string, lbls map[string]string, controller *corev1.ConfigMap) *corev1.Secret {
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID(name + "-uid"), Labels: lbls}}
	if controller != nil {
		s.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(controller, ownerGVK)}
	}
	stored, err := f.children.Create(s)
	if err != nil {
		panic(err)
	}
	return stored
}

func (f *adoptionFixture) controllerOf(t *testing.T, name string) types.UID {
	t.Helper()
	s, err := f.children.Get(key(name))
	if err != nil {
		t.Fatal(err)
	}
	if ref := metav1.GetControllerOf(s); ref != nil {
		return ref.UID
	}
	return ""
}

func names(objs []*corev1.Secret) string {
	var n []string
	for _, o := range objs {
		n = append(n, o.Name)
	}
	return strings.Join(n, ",")
}

func TestClaimAdoptsMatchingOrphansAndLeavesOthersAlone(t *testing.T) {
	f := newAdoptionFixture()
	rs := f.owner("rs", "app=a")
	other := f.owner("other", "app=a")
	candidates := []*corev1.Secret{
		f.child("mine", map[string]string{"app": "a"}, rs),
		f.child("orphan", map[string]string{"app": "a"}, nil),
		f.child("stranger", map[string]string{"app": "b"}, nil),
		f.child("others", map[string]string{"app": "a"}, other),
	}
	claimed, err := controller.Claim(context.Background(), f.a, rs, candidates)
	if err != nil {
		t.Fatal(err)
	}
	if got := names(claimed); got != "mine,orphan" {
		t.Fatalf("claimed %s, want mine,orphan", got)
	}
	if uid := f.controllerOf(t, "orphan"); uid != rs.UID {
		t.Fatalf("orphan's controller is %q after adoption, want %q", uid, rs.UID)
	}
	if uid := f.controllerOf(t, "others"); uid != other.UID {
		t.Fatalf("another owner's child now has controller %q", uid)
	}
	if strings.Join(f.patches, ",") != "orphan" {
		t.Fatalf("patched %v, want only the orphan", f.patches)
	}
}

func TestClaimReleasesAChildThatNoLongerMatches(t *testing.T) {
	f := newAdoptionFixture()
	rs := f.owner("rs", "app=a")
	candidates := []*corev1.Secret{f.child("relabelled", map[string]string{"app": "b"}, rs)}
	claimed, err := controller.Claim(context.Background(), f.a, rs, candidates)
	if err != nil || len(claimed) != 0 {
		t.Fatalf("claimed %s, %v; want nothing", names(claimed), err)
	}
	if uid := f.controllerOf(t, "relabelled"); uid != "" {
		t.Fatalf("released child still has controller %q", uid)
	}
	// Released while it was deleted: nothing left to release.
	gone := f.child("gone", map[string]string{"app": "b"}, rs)
	f.children.Delete(key("gone"))
	if _, err := controller.Claim(context.Background(), f.a, rs, []*corev1.Secret{gone}); err != nil {
		t.Fatalf("releasing a deleted child: %v", err)
	}
}

func TestAnOwnerBeingDeletedAdoptsAndReleasesNothing(t *testing.T) {
	f := newAdoptionFixture()
	rs := f.owner("rs", "app=a")
	now := metav1.Now()
	rs.DeletionTimestamp = &now
	candidates := []*corev1.Secret{
		f.child("orphan", map[string]string{"app": "a"}, nil),
		f.child("relabelled", map[string]string{"app": "b"}, rs),
		f.child("mine", map[string]string{"app": "a"}, rs),
	}
	claimed, err := controller.Claim(context.Background(), f.a, rs, candidates)
	if err != nil {
		t.Fatal(err)
	}
	if got := names(claimed); got != "mine" {
		t.Fatalf("claimed %s, want mine", got)
	}
	if len(f.patches) != 0 {
		t.Fatalf("an owner being deleted patched %v", f.patches)
	}
}

func TestAdoptionRechecksTheOwnerLive(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(live *corev1.ConfigMap)
		want   string
	}{
		{"replaced", func(live *corev1.ConfigMap) { live.UID = "new-uid" }, "it was replaced"},
		{"being deleted", func(live *corev1.ConfigMap) {
			live.Finalizers = []string{"x/y"}
			now := metav1.Now()
			live.DeletionTimestamp = &now
		}, "it is being deleted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newAdoptionFixture()
			cached := f.owner("rs", "app=a")
			f.a.Get = func(_ context.Context, k cache.ObjectName) (*corev1.ConfigMap, error) {
				live := cached.DeepCopy()
				tc.change(live)
				return live, nil
			}
			orphan := f.child("orphan", map[string]string{"app": "a"}, nil)
			claimed, err := controller.Claim(context.Background(), f.a, cached, []*corev1.Secret{orphan})
			if err == nil || !strings.Contains(err.Error(), tc.want) || len(claimed) != 0 {
				t.Fatalf("claimed %s, error %v; want nothing and an error saying %q", names(claimed), err, tc.want)
			}
			if len(f.patches) != 0 || f.controllerOf(t, "orphan") != "" {
				t.Fatal("adopted although the live owner forbids it")
			}
		})
	}
}

func TestAdoptingAStaleCopyFails(t *testing.T) {
	f := newAdoptionFixture()
	rs := f.owner("rs", "app=a")
	stale := f.child("orphan", map[string]string{"app": "a"}, nil)
	// Someone relabels it after our cache saw it.
	f.children.Mutate(key("orphan"), func(s *corev1.Secret) { s.Labels = map[string]string{"app": "b"} })
	claimed, err := controller.Claim(context.Background(), f.a, rs, []*corev1.Secret{stale})
	var status apierrors.APIStatus
	if err == nil || !errors.As(err, &status) || len(claimed) != 0 {
		t.Fatalf("claimed %s, error %v; want the patch refused", names(claimed), err)
	}
	if f.controllerOf(t, "orphan") != "" {
		t.Fatal("a child relabelled since the cache saw it was adopted")
	}
}

func TestWatchOwnedAdoptingQueuesTheOwnersThatMatchAnOrphan(t *testing.T) {
	f := newAdoptionFixture()
	f.owner("a", "app=a")
	f.owner("b", "app=b")
	ownerInf := cache.NewSharedIndexInformer[*corev1.ConfigMap](f.owners.ListerWatcher(), 0, nil)
	ownedInf := cache.NewSharedIndexInformer[*corev1.Secret](f.children.ListerWatcher(), 0, nil)
	var mu sync.Mutex
	counts := map[string]int{}
	count := func(name string) int { mu.Lock(); defer mu.Unlock(); return counts[name] }
	opts := options(f.owners, ownerInf, t.Name(), func(_ context.Context, o *corev1.ConfigMap) (controller.Result, error) {
		mu.Lock()
		counts[o.Name]++
		mu.Unlock()
		return controller.Result{}, nil
	})
	opts.UpdateStatus, opts.SetObservedGeneration = nil, nil
	c, err := controller.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := controller.WatchOwnedAdopting(c, ownedInf, controller.Owner{GroupKind: ownerGVK.GroupKind(), Namespaced: true}, f.a); err != nil {
		t.Fatal(err)
	}
	runUntilCleanup(t, c, 1, nil, ownerInf, ownedInf)
	eventually(t, "initial reconciles", func() bool { return count("a") == 1 && count("b") == 1 })

	f.child("orphan", map[string]string{"app": "a"}, nil)
	eventually(t, "the owner matching a new orphan", func() bool { return count("a") == 2 })
	f.children.Mutate(key("orphan"), func(s *corev1.Secret) { s.Labels = map[string]string{"app": "b"} })
	eventually(t, "the owners matching the orphan before and after relabelling", func() bool {
		return count("a") == 3 && count("b") == 2
	})
	// A relabelled child of another kind's controller is not an orphan;
	// the marker after it shows the controller has seen it.
	f.children.Create(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "foreign", Labels: map[string]string{"app": "a"},
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "x", UID: "x", Controller: ptr(true)}}}})
	f.child("marker", map[string]string{"app": "b"}, nil)
	eventually(t, "marker", func() bool { return count("b") == 3 })
	if count("a") != 3 {
		t.Fatalf("an object another controller owns queued owner a (%d reconciles)", count("a"))
	}
}
