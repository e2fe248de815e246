package listers

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/ctrlgen/ctrlgen/runtime/cache"
)

var configMaps = schema.GroupResource{Resource: "configmaps"}

func cm(ns, name string, lbls map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: lbls}}
}

func indexer(t *testing.T, objs ...*corev1.ConfigMap) cache.Indexer[*corev1.ConfigMap] {
	t.Helper()
	idx := cache.NewIndexer[*corev1.ConfigMap](nil)
	for _, o := range objs {
		if err := idx.Add(o); err != nil {
			t.Fatal(err)
		}
	}
	return idx
}

func keys[T interface {
	GetNamespace() string
	GetName() string
}](objs []T) []string {
	var out []string
	for _, o := range objs {
		out = append(out, o.GetNamespace()+"/"+o.GetName())
	}
	slices.Sort(out)
	return out
}

func TestResourceIndexerList(t *testing.T) {
	r := New(indexer(t,
		cm("a", "x", map[string]string{"app": "web"}),
		cm("a", "y", map[string]string{"app": "db"}),
		cm("b", "x", map[string]string{"app": "web"}),
	), configMaps)
	web := labels.SelectorFromSet(labels.Set{"app": "web"})
	for _, tc := range []struct {
		r    ResourceIndexer[*corev1.ConfigMap]
		sel  labels.Selector
		want []string
	}{
		{r, labels.Everything(), []string{"a/x", "a/y", "b/x"}},
		{r, nil, []string{"a/x", "a/y", "b/x"}},
		{r, web, []string{"a/x", "b/x"}},
		{NewNamespaced(r, "a"), labels.Everything(), []string{"a/x", "a/y"}},
		{NewNamespaced(r, "a"), web, []string{"a/x"}},
		{NewNamespaced(r, "c"), labels.Everything(), nil},
	} {
		got, err := tc.r.List(tc.sel)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(keys(got), tc.want) {
			t.Errorf("List(%v) in %q = %v, want %v", tc.sel, tc.r.namespace, keys(got), tc.want)
		}
	}
}

func TestResourceIndexerGet(t *testing.T) {
	r := New(indexer(t, cm("a", "x", nil), cm("", "cluster", nil)), configMaps)
	if got, err := NewNamespaced(r, "a").Get("x"); err != nil || got.Name != "x" {
		t.Errorf("Get(a/x) = %v, %v", got, err)
	}
	if got, err := r.Get("cluster"); err != nil || got.Name != "cluster" {
		t.Errorf("cluster-scoped Get = %v, %v", got, err)
	}
	got, err := NewNamespaced(r, "b").Get("x")
	if !apierrors.IsNotFound(err) || got != nil {
		t.Fatalf("Get(b/x) = %v, %v; want nil, NotFound", got, err)
	}
	if d := err.(apierrors.APIStatus).Status().Details; d.Kind != "configmaps" || d.Name != "x" {
		t.Errorf("NotFound details %+v", d)
	}
}

// fakeInformer is the untyped part of an informer over fixed objects.
type fakeInformer struct {
	cache.Informer
	objs []*corev1.ConfigMap
}

func (f fakeInformer) ListObjects() []runtime.Object {
	out := make([]runtime.Object, len(f.objs))
	for i, o := range f.objs {
		out[i] = o
	}
	return out
}

func (f fakeInformer) GetObject(key cache.ObjectName) (runtime.Object, bool) {
	for _, o := range f.objs {
		if o.Namespace == key.Namespace && o.Name == key.Name {
			return o, true
		}
	}
	return nil, false
}

func TestGenericLister(t *testing.T) {
	l := NewGenericLister(fakeInformer{objs: []*corev1.ConfigMap{
		cm("a", "x", map[string]string{"app": "web"}),
		cm("a", "y", nil),
		cm("b", "x", map[string]string{"app": "web"}),
	}}, configMaps)
	toKeys := func(objs []runtime.Object, err error) []string {
		if err != nil {
			t.Fatal(err)
		}
		var cms []*corev1.ConfigMap
		for _, o := range objs {
			cms = append(cms, o.(*corev1.ConfigMap))
		}
		return keys(cms)
	}
	web := labels.SelectorFromSet(labels.Set{"app": "web"})
	if got := toKeys(l.List(labels.Everything())); !slices.Equal(got, []string{"a/x", "a/y", "b/x"}) {
		t.Errorf("List = %v", got)
	}
	if got := toKeys(l.List(web)); !slices.Equal(got, []string{"a/x", "b/x"}) {
		t.Errorf("List(app=web) = %v", got)
	}
	if got := toKeys(l.ByNamespace("a").List(labels.Everything())); !slices.Equal(got, []string{"a/x", "a/y"}) {
		t.Errorf("ByNamespace(a).List = %v", got)
	}
	if got := toKeys(l.ByNamespace("b").List(web)); !slices.Equal(got, []string{"b/x"}) {
		t.Errorf("ByNamespace(b).List(app=web) = %v", got)
	}
	if o, err := l.Get("a/y"); err != nil || o.(*corev1.ConfigMap).Name != "y" {
		t.Errorf(`Get("a/y") = %v, %v`, o, err)
	}
	if o, err := l.ByNamespace("b").Get("x"); err != nil || o.(*corev1.ConfigMap).Namespace != "b" {
		t.Errorf(`ByNamespace(b).Get("x") = %v, %v`, o, err)
	}
	if _, err := l.ByNamespace("b").Get("y"); !apierrors.IsNotFound(err) {
		t.Errorf(`ByNamespace(b).Get("y"): %v, want NotFound`, err)
	}
}
