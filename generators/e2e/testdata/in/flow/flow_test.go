// Package flow exercises the generated clientset, fake, listers and
// informers of the demo API. It is copied into a temporary module by
// generators/e2e and run there.
package flow

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"

	crddemov1 "example.com/demo/apis/crddemo/v1"
	"example.com/demo/generated/clientset/versioned"
	"example.com/demo/generated/clientset/versioned/fake"
	"example.com/demo/generated/informers/externalversions"
	crddemoinformers "example.com/demo/generated/informers/externalversions/crddemo/v1"
	"k8s.io/client-go/tools/cache"
)

// timeout bounds every wait; nothing here sleeps to synchronise.
const timeout = 30 * time.Second

func mydemo(ns, name string, lbls map[string]string) *crddemov1.Mydemo {
	return &crddemov1.Mydemo{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: lbls},
		Spec:       crddemov1.MydemoSpec{Image: "nginx"},
	}
}

// recorder collects handler notifications as strings.
type recorder chan string

// handler is the typed handler informer-gen names for the kind.
func (r recorder) handler() crddemoinformers.MydemoHandlerFuncs {
	return crddemoinformers.MydemoHandlerFuncs{
		AddFunc: func(obj *crddemov1.Mydemo) { r <- "add " + obj.Namespace + "/" + obj.Name },
		UpdateFunc: func(_, obj *crddemov1.Mydemo) {
			r <- fmt.Sprintf("update %s/%s replicas=%d", obj.Namespace, obj.Name, obj.Spec.Replicas)
		},
		DeleteFunc: func(obj crddemoinformers.DeletedMydemo) { r <- "delete " + obj.GetKey() },
	}
}

// untyped is the same handler as client-go's untyped one, as existing
// controllers register it.
func (r recorder) untyped() cache.ResourceEventHandlerFuncs {
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { r.handler().OnAdd(obj.(*crddemov1.Mydemo), false) },
		UpdateFunc: func(old, obj any) {
			r.handler().OnUpdate(old.(*crddemov1.Mydemo), obj.(*crddemov1.Mydemo))
		},
		DeleteFunc: func(obj any) {
			key, _ := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
			r <- "delete " + key
		},
	}
}

func (r recorder) expect(t *testing.T, want string) {
	t.Helper()
	select {
	case got := <-r:
		if got != want {
			t.Fatalf("event %q, want %q", got, want)
		}
	case <-time.After(timeout):
		t.Fatalf("no event, want %q", want)
	}
}

// start starts factory and stops it when the test ends.
func start(t *testing.T, factory externalversions.SharedInformerFactory) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() {
		cancel()
		factory.Shutdown()
	})
	factory.Start(ctx.Done())
	for typ, ok := range factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			t.Fatalf("%v did not sync", typ)
		}
	}
	return ctx
}

func TestCreateUpdateDeleteReachLister(t *testing.T) {
	client := fake.NewSimpleClientset(mydemo("ns", "seed", nil))
	factory := externalversions.NewSharedInformerFactory(client, 0)
	informer := factory.Crddemo().V1().Mydemos()
	events, untyped := make(recorder, 100), make(recorder, 100)
	if _, err := informer.TypedInformer().AddTypedEventHandler(events.handler()); err != nil {
		t.Fatal(err)
	}
	if _, err := informer.Informer().AddEventHandler(untyped.untyped()); err != nil {
		t.Fatal(err)
	}
	lister := informer.Lister()
	ctx := start(t, factory)
	events.expect(t, "add ns/seed")
	untyped.expect(t, "add ns/seed")

	mydemos := client.CrddemoV1().Mydemos("ns")
	created, err := mydemos.Create(ctx, mydemo("ns", "a", nil), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	events.expect(t, "add ns/a")
	untyped.expect(t, "add ns/a")
	if got, err := lister.Mydemos("ns").Get("a"); err != nil || got.Spec.Image != "nginx" {
		t.Fatalf("lister Get after create: %v, %v", got, err)
	}

	created.Spec.Replicas = 3
	if _, err := mydemos.Update(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	events.expect(t, "update ns/a replicas=3")
	untyped.expect(t, "update ns/a replicas=3")
	if got, err := lister.Mydemos("ns").Get("a"); err != nil || got.Spec.Replicas != 3 {
		t.Fatalf("lister Get after update: %v, %v", got, err)
	}
	all, err := lister.List(labels.Everything())
	if err != nil || len(all) != 2 {
		t.Fatalf("lister List: %d objects, %v; want 2", len(all), err)
	}

	if err := mydemos.Delete(ctx, "a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	events.expect(t, "delete ns/a")
	untyped.expect(t, "delete ns/a")
	_, err = lister.Mydemos("ns").Get("a")
	if !apierrors.IsNotFound(err) {
		t.Fatalf("lister Get after delete: %v, want NotFound", err)
	}
	// lister-gen's listers name the kind in lower case, as client-go's do:
	// deployment.apps "x" not found.
	if want := (schema.GroupResource{Group: "crddemo.k8s.io", Resource: "mydemo"}); err.(apierrors.APIStatus).Status().Details.Group != want.Group ||
		err.(apierrors.APIStatus).Status().Details.Kind != want.Resource {
		t.Errorf("NotFound details %+v, want %v", err.(apierrors.APIStatus).Status().Details, want)
	}
	if want := `mydemo.crddemo.k8s.io "a" not found`; err.Error() != want {
		t.Errorf("NotFound error %q, want %q", err, want)
	}
}

// client-go's fake panics once 100 watch events wait; many writes in a row
// must reach the informer.
func TestManyWrites(t *testing.T) {
	client := fake.NewSimpleClientset()
	factory := externalversions.NewSharedInformerFactory(client, 0)
	informer := factory.Crddemo().V1().Mydemos()
	const n = 500
	added := make(chan struct{}, n)
	if _, err := informer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(any) { added <- struct{}{} },
	}); err != nil {
		t.Fatal(err)
	}
	ctx := start(t, factory)
	for i := range n {
		if _, err := client.CrddemoV1().Mydemos("ns").Create(ctx, mydemo("ns", fmt.Sprint(i), nil), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		select {
		case <-added:
		case <-time.After(timeout):
			t.Fatalf("%d of %d adds seen", i, n)
		}
	}
	if objs, _ := informer.Lister().Mydemos("ns").List(labels.Everything()); len(objs) != n {
		t.Errorf("lister has %d objects, want %d", len(objs), n)
	}
}

func TestFactoryOptionsFilterInformers(t *testing.T) {
	client := fake.NewSimpleClientset(
		mydemo("ns1", "a", map[string]string{"app": "x"}),
		mydemo("ns1", "b", map[string]string{"app": "y"}),
		mydemo("ns2", "a", map[string]string{"app": "x"}),
	)
	factory := externalversions.NewSharedInformerFactoryWithOptions(client, 0,
		externalversions.WithNamespace("ns1"),
		externalversions.WithTweakListOptions(func(o *metav1.ListOptions) { o.FieldSelector = "metadata.name=a" }),
	)
	informer := factory.Crddemo().V1().Mydemos()
	events := make(recorder, 100)
	if _, err := informer.TypedInformer().AddTypedEventHandler(events.handler()); err != nil {
		t.Fatal(err)
	}
	ctx := start(t, factory)
	events.expect(t, "add ns1/a")

	mydemos := client.CrddemoV1().Mydemos("ns1")
	// Neither reaches the informer: b by its name, ns2/a by its namespace.
	if _, err := mydemos.Create(ctx, mydemo("ns1", "c", nil), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.CrddemoV1().Mydemos("ns2").Patch(ctx, "a", types.MergePatchType, []byte(`{"spec":{"replicas":5}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	// Events arrive in order, so this one shows the others were dropped.
	if _, err := mydemos.Patch(ctx, "a", types.MergePatchType, []byte(`{"spec":{"replicas":2}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	events.expect(t, "update ns1/a replicas=2")
	names := func() []string {
		objs, err := informer.Lister().List(labels.Everything())
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, o := range objs {
			out = append(out, o.Namespace+"/"+o.Name)
		}
		return out
	}
	if got := names(); !slices.Equal(got, []string{"ns1/a"}) {
		t.Fatalf("lister has %v, want [ns1/a]", got)
	}
}

func TestFakeFieldSelectors(t *testing.T) {
	client := fake.NewSimpleClientset(
		mydemo("ns1", "a", map[string]string{"app": "x"}),
		mydemo("ns1", "b", map[string]string{"app": "y"}),
		mydemo("ns2", "a", map[string]string{"app": "x"}),
		&crddemov1.Mydemo{ObjectMeta: metav1.ObjectMeta{Namespace: "ns2", Name: "c"}, Spec: crddemov1.MydemoSpec{Image: "redis"}},
	)
	ctx := context.Background()
	for _, tc := range []struct {
		ns, fields, labels string
		want               []string
	}{
		{"", "metadata.name=a", "", []string{"ns1/a", "ns2/a"}},
		{"", "metadata.namespace=ns2", "", []string{"ns2/a", "ns2/c"}},
		{"", "metadata.name=a,metadata.namespace=ns1", "", []string{"ns1/a"}},
		{"ns1", "metadata.name!=a", "", []string{"ns1/b"}},
		{"ns2", "metadata.namespace=ns1", "", nil},
		{"", "spec.image=redis", "", []string{"ns2/c"}},
		{"", "metadata.name=a", "app=x", []string{"ns1/a", "ns2/a"}},
		{"", "metadata.namespace=ns1", "app=x", []string{"ns1/a"}},
		{"", "", "app", []string{"ns1/a", "ns1/b", "ns2/a"}},
	} {
		list, err := client.CrddemoV1().Mydemos(tc.ns).List(ctx, metav1.ListOptions{FieldSelector: tc.fields, LabelSelector: tc.labels})
		if err != nil {
			t.Fatalf("%+v: %v", tc, err)
		}
		var got []string
		for _, o := range list.Items {
			got = append(got, o.Namespace+"/"+o.Name)
		}
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("List(ns=%q, fields=%q, labels=%q) = %v, want %v", tc.ns, tc.fields, tc.labels, got, tc.want)
		}
	}
}

func nextEvent(t *testing.T, w watch.Interface) string {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		if !ok {
			t.Fatal("watch closed")
		}
		o := ev.Object.(*crddemov1.Mydemo)
		return fmt.Sprintf("%s %s/%s", ev.Type, o.Namespace, o.Name)
	case <-time.After(timeout):
		t.Fatal("no watch event")
		return ""
	}
}

func TestFakeWatchSelectors(t *testing.T) {
	client := fake.NewSimpleClientset(mydemo("ns1", "a", map[string]string{"app": "x"}))
	ctx := context.Background()
	mydemos := client.CrddemoV1().Mydemos("ns1")
	list, err := mydemos.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}

	byName, err := client.CrddemoV1().Mydemos("").Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=a,metadata.namespace=ns1", ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer byName.Stop()
	byLabel, err := mydemos.Watch(ctx, metav1.ListOptions{LabelSelector: "app=x", ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer byLabel.Stop()

	patch := func(name, p string) {
		t.Helper()
		if _, err := mydemos.Patch(ctx, name, types.MergePatchType, []byte(p), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := mydemos.Create(ctx, mydemo("ns1", "b", map[string]string{"app": "x"}), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.CrddemoV1().Mydemos("ns2").Create(ctx, mydemo("ns2", "a", nil), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	patch("a", `{"metadata":{"labels":{"app":"z"}}}`) // leaves the label selector
	patch("a", `{"metadata":{"labels":{"app":"x"}}}`) // enters it again
	if err := mydemos.Delete(ctx, "a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}

	for _, want := range []string{"MODIFIED ns1/a", "MODIFIED ns1/a", "DELETED ns1/a"} {
		if got := nextEvent(t, byName); got != want {
			t.Fatalf("field selector watch: %s, want %s", got, want)
		}
	}
	for _, want := range []string{"ADDED ns1/b", "DELETED ns1/a", "ADDED ns1/a", "DELETED ns1/a"} {
		if got := nextEvent(t, byLabel); got != want {
			t.Fatalf("label selector watch: %s, want %s", got, want)
		}
	}
}

func TestFakeDeleteCollection(t *testing.T) {
	client := fake.NewSimpleClientset(
		mydemo("ns1", "a", map[string]string{"app": "x"}),
		mydemo("ns1", "b", map[string]string{"app": "y"}),
		mydemo("ns2", "c", map[string]string{"app": "x"}),
	)
	ctx := context.Background()
	if err := client.CrddemoV1().Mydemos("ns1").DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: "app=x"}); err != nil {
		t.Fatal(err)
	}
	list, err := client.CrddemoV1().Mydemos("").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range list.Items {
		got = append(got, o.Namespace+"/"+o.Name)
	}
	slices.Sort(got)
	if want := []string{"ns1/b", "ns2/c"}; !slices.Equal(got, want) {
		t.Errorf("after DeleteCollection: %v, want %v", got, want)
	}
}

func TestClusterScopedAndGeneric(t *testing.T) {
	client := fake.NewSimpleClientset(&crddemov1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: "acme"}, Owner: "ops"})
	factory := externalversions.NewSharedInformerFactory(client, 0)
	tenants := factory.Crddemo().V1().Tenants()
	generic, err := factory.ForResource(crddemov1.SchemeGroupVersion.WithResource("tenants"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := factory.ForResource(crddemov1.SchemeGroupVersion.WithResource("tenant")); err == nil {
		t.Error("ForResource of an unknown resource: no error")
	}
	start(t, factory)

	got, err := tenants.Lister().Get("acme")
	if err != nil || got.Owner != "ops" {
		t.Fatalf("Tenants lister Get: %v, %v", got, err)
	}
	// The expansions written by hand in the typed client, its fake and the
	// lister.
	if owned, err := tenants.Lister().OwnedBy("ops"); err != nil || len(owned) != 1 {
		t.Errorf("OwnedBy(ops) = %v, %v", owned, err)
	}
	if owner, err := client.CrddemoV1().Tenants().Owner(context.Background(), "acme"); err != nil || owner != "ops" {
		t.Errorf("Owner(acme) = %q, %v", owner, err)
	}
	if _, err := tenants.Lister().Get("other"); !apierrors.IsNotFound(err) {
		t.Errorf("Get(other): %v, want NotFound", err)
	}
	objs, err := generic.Lister().List(labels.Everything())
	if err != nil || len(objs) != 1 {
		t.Fatalf("generic List: %v, %v", objs, err)
	}
	obj, err := generic.Lister().Get("acme")
	if err != nil || obj.(*crddemov1.Tenant).Owner != "ops" {
		t.Fatalf("generic Get: %v, %v", obj, err)
	}
	if generic.Informer() != tenants.Informer() {
		t.Error("ForResource and the typed accessor return different informers")
	}
}

func TestTransform(t *testing.T) {
	client := fake.NewSimpleClientset(&crddemov1.Mydemo{ObjectMeta: metav1.ObjectMeta{
		Namespace: "ns", Name: "a",
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl"}},
	}})
	factory := externalversions.NewSharedInformerFactoryWithOptions(client, 0,
		externalversions.WithTransform(func(obj any) (any, error) {
			obj.(metav1.Object).SetManagedFields(nil)
			return obj, nil
		}))
	lister := factory.Crddemo().V1().Mydemos().Lister()
	start(t, factory)
	got, err := lister.Mydemos("ns").Get("a")
	if err != nil {
		t.Fatal(err)
	}
	if got.ManagedFields != nil {
		t.Errorf("managedFields %v survived the transform", got.ManagedFields)
	}
}

// TestRealClient checks the typed client's requests against an HTTP server.
func TestRealClient(t *testing.T) {
	var mu sync.Mutex
	var requests []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		requests = append(requests, r.Method+" "+r.URL.Path)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch {
		case strings.HasSuffix(r.URL.Path, "/scale") && r.Method == http.MethodPut:
			w.Write(body)
		case strings.HasSuffix(r.URL.Path, "/scale"):
			fmt.Fprint(w, `{"kind":"Scale","apiVersion":"autoscaling/v1","metadata":{"name":"a"},"spec":{"replicas":4}}`)
		case strings.HasSuffix(r.URL.Path, "/tenants"):
			fmt.Fprint(w, `{"kind":"TenantList","apiVersion":"crddemo.k8s.io/v1","metadata":{"resourceVersion":"7"},"items":[{"metadata":{"name":"acme"},"owner":"ops"}]}`)
		default:
			fmt.Fprint(w, `{"kind":"Mydemo","apiVersion":"crddemo.k8s.io/v1","metadata":{"namespace":"ns","name":"a"},"spec":{"replicas":1}}`)
		}
	}))
	defer srv.Close()

	cs, err := versioned.NewForConfig(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	got, err := cs.CrddemoV1().Mydemos("ns").Get(ctx, "a", metav1.GetOptions{})
	if err != nil || got.Spec.Replicas != 1 {
		t.Fatalf("Get: %v, %v", got, err)
	}
	scale, err := cs.CrddemoV1().Mydemos("ns").GetScale(ctx, "a", metav1.GetOptions{})
	if err != nil || scale.Spec.Replicas != 4 {
		t.Fatalf("GetScale: %v, %v", scale, err)
	}
	scale.Spec.Replicas = 6
	if scale, err = cs.CrddemoV1().Mydemos("ns").UpdateScale(ctx, "a", scale, metav1.UpdateOptions{}); err != nil || scale.Spec.Replicas != 6 {
		t.Fatalf("UpdateScale: %v, %v", scale, err)
	}
	tenants, err := cs.CrddemoV1().Tenants().List(ctx, metav1.ListOptions{})
	if err != nil || len(tenants.Items) != 1 || tenants.Items[0].Owner != "ops" {
		t.Fatalf("Tenants List: %v, %v", tenants, err)
	}
	if _, err := cs.CrddemoV1beta1().Mydemos("ns").Get(ctx, "a", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"GET /apis/crddemo.k8s.io/v1/namespaces/ns/mydemos/a",
		"GET /apis/crddemo.k8s.io/v1/namespaces/ns/mydemos/a/scale",
		"PUT /apis/crddemo.k8s.io/v1/namespaces/ns/mydemos/a/scale",
		"GET /apis/crddemo.k8s.io/v1/tenants",
		"GET /apis/crddemo.k8s.io/v1beta1/namespaces/ns/mydemos/a",
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(requests, want) {
		t.Errorf("requests:\n%s\nwant:\n%s", strings.Join(requests, "\n"), strings.Join(want, "\n"))
	}
}

// The fake answers a subresource with the parent object; Invoke reports
// that instead of panicking.
func TestFakeSubresourceTypeMismatch(t *testing.T) {
	client := fake.NewSimpleClientset(mydemo("ns", "a", nil))
	_, err := client.CrddemoV1().Mydemos("ns").GetScale(context.Background(), "a", metav1.GetOptions{})
	if err == nil || !strings.Contains(err.Error(), "add a reactor") {
		t.Errorf("GetScale on the fake: %v, want a type error", err)
	}
}

// client-go's own informer over the fake clientset, as code-generator's
// informers build it: the fake says it does not serve WatchList, so the
// reflector lists instead of waiting for a bookmark that never comes.
func TestClientGoInformerOverTheFake(t *testing.T) {
	client := fake.NewSimpleClientset(mydemo("ns", "a", nil))
	mydemos := client.CrddemoV1().Mydemos("")
	lw := cache.ToListWatcherWithWatchListSemantics(&cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			return mydemos.List(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			return mydemos.Watch(ctx, o)
		},
	}, client)
	informer := cache.NewSharedIndexInformer(lw, &crddemov1.Mydemo{}, 0, cache.Indexers{})
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	go informer.RunWithContext(ctx)
	if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		t.Fatal("client-go's informer never synced over the fake")
	}
	if _, ok, _ := informer.GetStore().GetByKey("ns/a"); !ok {
		t.Fatal("ns/a not in client-go's cache")
	}
}
