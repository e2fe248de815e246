package fakeclient

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/watch"
	clienttesting "k8s.io/client-go/testing"
)

// The resource name is deliberately not what ObjectTracker would guess.
var (
	configMaps = corev1.SchemeGroupVersion.WithResource("configmapz")
	secrets    = corev1.SchemeGroupVersion.WithResource("secrets")
	configMap  = corev1.SchemeGroupVersion.WithKind("ConfigMap")
)

func newTracker(t *testing.T, objs ...runtime.Object) *Tracker {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	tr := NewTracker(scheme, serializer.NewCodecFactory(scheme).UniversalDecoder(), map[schema.GroupVersionResource]string{configMaps: "ConfigMap"})
	for _, o := range objs {
		if err := tr.Add(o); err != nil {
			t.Fatal(err)
		}
	}
	return tr
}

func cm(ns, name string, lbls map[string]string, data ...string) *corev1.ConfigMap {
	c := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: lbls}, Data: map[string]string{}}
	for i := 0; i+1 < len(data); i += 2 {
		c.Data[data[i]] = data[i+1]
	}
	return c
}

func names(t *testing.T, obj runtime.Object, err error) []string {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range obj.(*corev1.ConfigMapList).Items {
		out = append(out, c.Namespace+"/"+c.Name)
	}
	slices.Sort(out)
	return out
}

func TestAddUsesRegisteredResource(t *testing.T) {
	tr := newTracker(t, &corev1.ConfigMapList{Items: []corev1.ConfigMap{*cm("a", "x", nil)}}, cm("b", "y", nil),
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "s"}})
	if got := listed(t, tr, ""); !slices.Equal(got, []string{"a/x", "b/y"}) {
		t.Errorf("configmapz: %v", got)
	}
	if _, err := tr.Get(secrets, "a", "s"); err != nil {
		t.Errorf("unregistered kind not stored where the tracker guesses: %v", err)
	}
}

func TestListSelectors(t *testing.T) {
	tr := newTracker(t,
		cm("a", "x", map[string]string{"app": "web"}, "k", "1"),
		cm("a", "y", map[string]string{"app": "db"}),
		cm("b", "x", nil, "k", "2"),
	)
	for _, tc := range []struct {
		ns     string
		opts   metav1.ListOptions
		want   []string
		errMsg string
	}{
		{"", metav1.ListOptions{}, []string{"a/x", "a/y", "b/x"}, ""},
		{"", metav1.ListOptions{FieldSelector: "metadata.name=x"}, []string{"a/x", "b/x"}, ""},
		{"", metav1.ListOptions{FieldSelector: "metadata.namespace=b"}, []string{"b/x"}, ""},
		{"a", metav1.ListOptions{FieldSelector: "metadata.name!=x"}, []string{"a/y"}, ""},
		{"", metav1.ListOptions{FieldSelector: "data.k=2"}, []string{"b/x"}, ""},
		{"", metav1.ListOptions{FieldSelector: "data.k="}, []string{"a/y"}, ""},
		{"", metav1.ListOptions{LabelSelector: "app in (web,db)", FieldSelector: "metadata.name=x"}, []string{"a/x"}, ""},
		{"", metav1.ListOptions{LabelSelector: "app in ("}, nil, "invalid label selector"},
		{"", metav1.ListOptions{FieldSelector: "metadata.name"}, nil, "invalid field selector"},
	} {
		obj, err := tr.List(configMaps, configMap, tc.ns, tc.opts)
		if tc.errMsg != "" {
			if !apierrors.IsBadRequest(err) || !strings.Contains(err.Error(), tc.errMsg) {
				t.Errorf("List(%+v): %v, want BadRequest %q", tc.opts, err, tc.errMsg)
			}
			continue
		}
		if got := names(t, obj, err); !slices.Equal(got, tc.want) {
			t.Errorf("List(%q, %+v) = %v, want %v", tc.ns, tc.opts, got, tc.want)
		}
	}
}

func listed(t *testing.T, tr *Tracker, ns string) []string {
	t.Helper()
	obj, err := tr.List(configMaps, configMap, ns)
	return names(t, obj, err)
}

func next(t *testing.T, w watch.Interface) string {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		if !ok {
			return "closed"
		}
		c := ev.Object.(*corev1.ConfigMap)
		return fmt.Sprintf("%s %s/%s", ev.Type, c.Namespace, c.Name)
	case <-time.After(30 * time.Second):
		t.Fatal("no event")
		return ""
	}
}

func TestWatchSelectors(t *testing.T) {
	tr := newTracker(t, cm("a", "x", map[string]string{"app": "web"}), cm("a", "y", nil))
	w, err := tr.Watch(configMaps, "a", metav1.ListOptions{LabelSelector: "app=web", ResourceVersion: "3"})
	if err != nil {
		t.Fatal(err)
	}
	all, err := tr.Watch(configMaps, "", metav1.ListOptions{ResourceVersion: "3"})
	if err != nil {
		t.Fatal(err)
	}
	update := func(c *corev1.ConfigMap) {
		t.Helper()
		if err := tr.Update(configMaps, c, c.Namespace); err != nil {
			t.Fatal(err)
		}
	}
	update(cm("a", "y", map[string]string{"app": "web"})) // enters
	update(cm("a", "x", map[string]string{"app": "db"}))  // leaves
	update(cm("a", "x", nil))                             // stays out
	update(cm("a", "y", map[string]string{"app": "web"}, "k", "v"))
	if err := tr.Create(configMaps, cm("b", "z", map[string]string{"app": "web"}), "b"); err != nil {
		t.Fatal(err) // another namespace
	}
	if err := tr.Delete(configMaps, "a", "x"); err != nil {
		t.Fatal(err) // not matching: no event
	}
	if err := tr.Delete(configMaps, "a", "y"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ADDED a/y", "DELETED a/x", "MODIFIED a/y", "DELETED a/y"} {
		if got := next(t, w); got != want {
			t.Fatalf("event %s, want %s", got, want)
		}
	}
	w.Stop()
	if got := next(t, w); got != "closed" {
		t.Errorf("after Stop: %s", got)
	}
	for _, want := range []string{"MODIFIED a/y", "MODIFIED a/x", "MODIFIED a/x", "MODIFIED a/y", "ADDED b/z", "DELETED a/x", "DELETED a/y"} {
		if got := next(t, all); got != want {
			t.Fatalf("unfiltered event %s, want %s", got, want)
		}
	}
	all.Stop()
}

// client-go's fake watcher panics when 100 events wait; ours buffers.
func TestWatchDoesNotOverflow(t *testing.T) {
	tr := newTracker(t)
	w, err := tr.Watch(configMaps, "", metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	const n = 1000
	for i := range n {
		if err := tr.Create(configMaps, cm("a", fmt.Sprint(i), nil), "a"); err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		if got, want := next(t, w), fmt.Sprintf("ADDED a/%d", i); got != want {
			t.Fatalf("event %s, want %s", got, want)
		}
	}
}

// A watch from version "0" starts with every current object in its
// namespace, however many: client-go's tracker panics beyond 100.
func TestWatchFromZeroSendsEveryCurrentObject(t *testing.T) {
	tr := newTracker(t)
	const n = 150
	for i := range n {
		for _, ns := range []string{"a", "b"} {
			if err := tr.Create(configMaps, cm(ns, fmt.Sprint(i), nil), ns); err != nil {
				t.Fatal(err)
			}
		}
	}
	w, err := tr.Watch(configMaps, "a", metav1.ListOptions{ResourceVersion: "0"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	seen := map[string]bool{}
	for range n {
		seen[next(t, w)] = true
	}
	for i := range n {
		if want := fmt.Sprintf("ADDED a/%d", i); !seen[want] {
			t.Fatalf("no %s among the first %d events", want, n)
		}
	}
	if err := tr.Create(configMaps, cm("a", "later", nil), "a"); err != nil {
		t.Fatal(err)
	}
	if got, want := next(t, w), "ADDED a/later"; got != want {
		t.Errorf("after the current objects: %s, want %s", got, want)
	}
}

func TestReactors(t *testing.T) {
	tr := newTracker(t,
		cm("a", "x", map[string]string{"app": "web"}),
		cm("a", "y", map[string]string{"app": "db"}),
		cm("b", "z", map[string]string{"app": "web"}),
	)
	fake := &clienttesting.Fake{}
	tr.AddReactors(fake)
	if _, err := fake.Invokes(clienttesting.NewDeleteCollectionActionWithOptions(configMaps, "a", metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: "app=web"}), nil); err != nil {
		t.Fatal(err)
	}
	if got := listed(t, tr, ""); !slices.Equal(got, []string{"a/y", "b/z"}) {
		t.Errorf("after DeleteCollection: %v", got)
	}
	obj, err := fake.Invokes(clienttesting.NewListActionWithOptions(configMaps, configMap, "", metav1.ListOptions{FieldSelector: "metadata.namespace=b"}), nil)
	if got := names(t, obj, err); !slices.Equal(got, []string{"b/z"}) {
		t.Errorf("list through the reactor: %v", got)
	}
	w, err := fake.InvokesWatch(clienttesting.NewWatchActionWithOptions(configMaps, "", metav1.ListOptions{FieldSelector: "metadata.name=z"}))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	// ResourceVersion "" starts with the current objects, as an apiserver does.
	if got := next(t, w); got != "ADDED b/z" {
		t.Errorf("first watch event %s, want ADDED b/z", got)
	}
	if _, err := tr.Watch(configMaps, "", metav1.ListOptions{LabelSelector: "!!"}); !apierrors.IsBadRequest(err) {
		t.Errorf("watch with a bad selector: %v, want BadRequest", err)
	}
}

func TestInvoke(t *testing.T) {
	tr := newTracker(t, cm("a", "x", nil))
	fake := &clienttesting.Fake{}
	tr.AddReactors(fake)
	got, err := Invoke(fake, clienttesting.NewGetActionWithOptions(configMaps, "a", "x", metav1.GetOptions{}), &corev1.ConfigMap{})
	if err != nil || got.Name != "x" {
		t.Errorf("Invoke get = %v, %v", got, err)
	}
	_, err = Invoke(fake, clienttesting.NewGetSubresourceActionWithOptions(configMaps, "a", "scale", "x", metav1.GetOptions{}), &corev1.Secret{})
	if err == nil || !strings.Contains(err.Error(), "get configmapz/scale returned *v1.ConfigMap, want *v1.Secret") {
		t.Errorf("Invoke with the wrong type: %v", err)
	}
	if _, err := Invoke(fake, clienttesting.NewGetActionWithOptions(configMaps, "a", "missing", metav1.GetOptions{}), &corev1.ConfigMap{}); !apierrors.IsNotFound(err) {
		t.Errorf("Invoke get missing: %v, want NotFound", err)
	}
	action := NewListSubresourceAction(configMaps, configMap, "a", "children", "x", metav1.ListOptions{})
	if action.GetSubresource() != "children" || action.Name != "x" || action.GetNamespace() != "a" {
		t.Errorf("NewListSubresourceAction = %+v", action)
	}
}

func TestStopRemovesWatcher(t *testing.T) {
	tr := newTracker(t)
	secretsWatch, err := tr.Watch(secrets, "")
	if err != nil {
		t.Fatal(err)
	}
	// A kind the tracker was not told of still gets its events.
	if err := tr.Add(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "s"}}); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-secretsWatch.ResultChan():
		if ev.Type != watch.Added {
			t.Errorf("event %s, want ADDED", ev.Type)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no event for an unregistered kind")
	}
	secretsWatch.Stop()
	secretsWatch.Stop() // twice is fine
	tr.mu.Lock()
	n := len(tr.watchers[secrets])
	tr.mu.Unlock()
	if n != 0 {
		t.Errorf("%d watchers left after Stop", n)
	}
}

// A watch from a List's resourceVersion is told of every change since, as
// an apiserver's is. An informer whose watch starts only after an object
// was created and deleted must still hear of both: its cache never held
// the object, so without the events no handler would run.
func TestWatchFromListVersionReplaysChanges(t *testing.T) {
	tr := newTracker(t, cm("a", "kept", nil))
	list, err := tr.List(configMaps, configMap, "")
	if err != nil {
		t.Fatal(err)
	}
	rv := list.(*corev1.ConfigMapList).ResourceVersion
	if err := tr.Create(configMaps, cm("a", "x", nil), "a"); err != nil {
		t.Fatal(err)
	}
	if err := tr.Update(configMaps, cm("a", "x", nil, "k", "v"), "a"); err != nil {
		t.Fatal(err)
	}
	if err := tr.Delete(configMaps, "a", "x"); err != nil {
		t.Fatal(err)
	}
	if err := tr.Create(configMaps, cm("b", "y", nil), "b"); err != nil {
		t.Fatal(err) // another namespace
	}
	if err := tr.Delete(configMaps, "a", "kept"); err != nil {
		t.Fatal(err)
	}
	w, err := tr.Watch(configMaps, "a", metav1.ListOptions{ResourceVersion: rv})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if err := tr.Create(configMaps, cm("a", "z", nil), "a"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ADDED a/x", "MODIFIED a/x", "DELETED a/x", "DELETED a/kept", "ADDED a/z"} {
		if got := next(t, w); got != want {
			t.Fatalf("event %s, want %s", got, want)
		}
	}

	// Deletions move the version on: a watch from a later List's version
	// replays nothing.
	list, err = tr.List(configMaps, configMap, "a")
	if err != nil {
		t.Fatal(err)
	}
	if later := list.(*corev1.ConfigMapList).ResourceVersion; later == rv {
		t.Fatalf("List version %s unchanged by the writes", later)
	}
	w2, err := tr.Watch(configMaps, "a", metav1.ListOptions{ResourceVersion: list.(*corev1.ConfigMapList).ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Stop()
	if err := tr.Delete(configMaps, "a", "z"); err != nil {
		t.Fatal(err)
	}
	if got := next(t, w2); got != "DELETED a/z" {
		t.Errorf("first event after the later List: %s, want DELETED a/z", got)
	}

	if _, err := tr.Watch(configMaps, "", metav1.ListOptions{ResourceVersion: "x"}); !apierrors.IsBadRequest(err) {
		t.Errorf("watch from version x: %v, want BadRequest", err)
	}
}

// A watch from a version whose changes are no longer kept gets 410 Gone,
// on which a Reflector lists again.
func TestWatchFromDroppedVersionIsGone(t *testing.T) {
	tr := newTracker(t)
	for i := range maxChanges + 1 {
		if err := tr.Create(configMaps, cm("a", fmt.Sprint(i), nil), "a"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tr.Watch(configMaps, "", metav1.ListOptions{ResourceVersion: "1"}); !apierrors.IsResourceExpired(err) {
		t.Errorf("watch from version 1: %v, want 410 Expired", err)
	}
	list, err := tr.List(configMaps, configMap, "")
	if err != nil {
		t.Fatal(err)
	}
	last, err := strconv.ParseInt(list.(*corev1.ConfigMapList).ResourceVersion, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	w, err := tr.Watch(configMaps, "", metav1.ListOptions{ResourceVersion: fmt.Sprint(last - 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if got, want := next(t, w), fmt.Sprintf("ADDED a/%d", maxChanges); got != want {
		t.Errorf("event %s, want %s", got, want)
	}
}
