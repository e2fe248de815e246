package listers

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientcache "k8s.io/client-go/tools/cache"

	"github.com/ctrlgen/ctrlgen/runtime/cache"
)

var configMaps = schema.GroupResource{Resource: "configmaps"}

func cm(ns, name string, lbls map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: lbls}}
}

// indexers are the kinds of client-go Indexer a lister may be given:
// ctrlgen's, client-go's with the namespace index, and client-go's without
// one.
var indexers = map[string]func() clientcache.Indexer{
	"ctrlgen": func() clientcache.Indexer { return cache.NewIndexer[*corev1.ConfigMap](nil) },
	"client-go": func() clientcache.Indexer {
		return clientcache.NewIndexer(clientcache.MetaNamespaceKeyFunc, clientcache.Indexers{clientcache.NamespaceIndex: clientcache.MetaNamespaceIndexFunc})
	},
	"client-go without namespace index": func() clientcache.Indexer {
		return clientcache.NewIndexer(clientcache.MetaNamespaceKeyFunc, nil)
	},
}

func indexer(t *testing.T, kind string, objs ...*corev1.ConfigMap) clientcache.Indexer {
	t.Helper()
	idx := indexers[kind]()
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
	for kind := range indexers {
		t.Run(kind, func(t *testing.T) { testResourceIndexerList(t, kind) })
	}
}

func testResourceIndexerList(t *testing.T, kind string) {
	r := New[*corev1.ConfigMap](indexer(t, kind,
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
		{r, labels.Nothing(), nil},
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
	for kind := range indexers {
		t.Run(kind, func(t *testing.T) { testResourceIndexerGet(t, kind) })
	}
}

func testResourceIndexerGet(t *testing.T, kind string) {
	r := New[*corev1.ConfigMap](indexer(t, kind, cm("a", "x", nil), cm("", "cluster", nil)), configMaps)
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
