package main

// These tests are written as k8s.io/sample-controller's are, against the
// API code-generator writes: fake clientsets whose Actions() are checked,
// informer caches filled through Informer().GetIndexer(), client-go's
// untyped event handlers. They pass with ctrlgen's generated code (this
// directory) and with code-generator's swapped in (bench/compat).

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/diff"
	kubeinformers "k8s.io/client-go/informers"
	k8sfake "k8s.io/client-go/kubernetes/fake"
	core "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2/ktesting"
	"k8s.io/utils/ptr"

	samplev1alpha1 "github.com/ctrlgen/ctrlgen/examples/samplecontroller/apis/samplecontroller/v1alpha1"
	"github.com/ctrlgen/ctrlgen/examples/samplecontroller/generated/clientset/versioned/fake"
	informers "github.com/ctrlgen/ctrlgen/examples/samplecontroller/generated/informers/externalversions"
)

var (
	alwaysReady        = func() bool { return true }
	noResyncPeriodFunc = func() time.Duration { return 0 }
)

// A fixture is one sync of one Foo: what the clients hold, what the
// informers' caches hold, and which writes the sync must make.
type fixture struct {
	t *testing.T

	client     *fake.Clientset
	kubeclient *k8sfake.Clientset
	recorder   *record.FakeRecorder

	// Objects put straight into the informers' caches.
	fooLister        []*samplev1alpha1.Foo
	deploymentLister []*appsv1.Deployment
	// Writes expected through each client, in order.
	actions     []core.Action
	kubeactions []core.Action
	// Events expected, in order, as FakeRecorder writes them.
	events []string
	// Objects the fake clientsets start with.
	objects     []runtime.Object
	kubeobjects []runtime.Object
}

func newFixture(t *testing.T) *fixture {
	return &fixture{t: t}
}

func newFoo(name string, replicas *int32) *samplev1alpha1.Foo {
	return &samplev1alpha1.Foo{
		TypeMeta: metav1.TypeMeta{APIVersion: samplev1alpha1.SchemeGroupVersion.String()},
		ObjectMeta: metav1.ObjectMeta{
			Name:      name,
			Namespace: metav1.NamespaceDefault,
		},
		Spec: samplev1alpha1.FooSpec{
			DeploymentName: name + "-deployment",
			Replicas:       replicas,
		},
	}
}

// newController builds the controller over fake clientsets and the two
// informer factories, as main does, with its caches filled from the
// fixture and reported synced.
func (f *fixture) newController(ctx context.Context) (*Controller, informers.SharedInformerFactory, kubeinformers.SharedInformerFactory) {
	// NewSimpleClientset, not NewClientset: client-gen writes NewClientset
	// only with apply configurations, and bench/compat runs this test on
	// code-generator's output without them.
	f.client = fake.NewSimpleClientset(f.objects...)
	f.kubeclient = k8sfake.NewClientset(f.kubeobjects...)

	i := informers.NewSharedInformerFactory(f.client, noResyncPeriodFunc())
	k8sI := kubeinformers.NewSharedInformerFactory(f.kubeclient, noResyncPeriodFunc())

	c := NewController(ctx, f.kubeclient, f.client,
		k8sI.Apps().V1().Deployments(), i.Samplecontroller().V1alpha1().Foos())
	c.foosSynced = alwaysReady
	c.deploymentsSynced = alwaysReady
	f.recorder = record.NewFakeRecorder(10)
	c.recorder = f.recorder

	for _, foo := range f.fooLister {
		if err := i.Samplecontroller().V1alpha1().Foos().Informer().GetIndexer().Add(foo); err != nil {
			f.t.Fatal(err)
		}
	}
	for _, d := range f.deploymentLister {
		if err := k8sI.Apps().V1().Deployments().Informer().GetIndexer().Add(d); err != nil {
			f.t.Fatal(err)
		}
	}
	return c, i, k8sI
}

func (f *fixture) run(ctx context.Context, fooRef cache.ObjectName) {
	f.runController(ctx, fooRef, true, false)
}

func (f *fixture) runExpectError(ctx context.Context, fooRef cache.ObjectName) {
	f.runController(ctx, fooRef, true, true)
}

// runController syncs fooRef once and checks the error, the writes each
// client saw (its informers' lists and watches left out) and the Events.
func (f *fixture) runController(ctx context.Context, fooRef cache.ObjectName, startInformers, expectError bool) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c, i, k8sI := f.newController(ctx)
	if startInformers {
		i.Start(ctx.Done())
		k8sI.Start(ctx.Done())
	}

	err := c.syncHandler(ctx, fooRef)
	if !expectError && err != nil {
		f.t.Errorf("error syncing foo: %v", err)
	} else if expectError && err == nil {
		f.t.Error("expected an error syncing foo, got nil")
	}

	f.checkActions("client", filterInformerActions(f.client.Actions()), f.actions)
	f.checkActions("kubeclient", filterInformerActions(f.kubeclient.Actions()), f.kubeactions)

	var events []string
	for len(f.recorder.Events) > 0 {
		events = append(events, <-f.recorder.Events)
	}
	if !reflect.DeepEqual(events, f.events) {
		f.t.Errorf("events:\n\t%q\nwant\n\t%q", events, f.events)
	}
}

func (f *fixture) checkActions(client string, actions, expected []core.Action) {
	for i, action := range actions {
		if len(expected) < i+1 {
			f.t.Errorf("%s: %d unexpected actions: %+v", client, len(actions)-len(expected), actions[i:])
			break
		}
		checkAction(expected[i], action, f.t)
	}
	if len(expected) > len(actions) {
		f.t.Errorf("%s: %d more actions expected: %+v", client, len(expected)-len(actions), expected[len(actions):])
	}
}

// checkAction checks that actual is expected: the same verb, resource,
// subresource and type of action, with an equal object or patch.
func checkAction(expected, actual core.Action, t *testing.T) {
	if !(expected.Matches(actual.GetVerb(), actual.GetResource().Resource) && actual.GetSubresource() == expected.GetSubresource()) {
		t.Errorf("Expected\n\t%#v\ngot\n\t%#v", expected, actual)
		return
	}
	if reflect.TypeOf(actual) != reflect.TypeOf(expected) {
		t.Errorf("Action has the wrong type. Expected: %T. Got: %T", expected, actual)
		return
	}

	switch a := actual.(type) {
	case core.CreateActionImpl:
		e, _ := expected.(core.CreateActionImpl)
		if expObject, object := e.GetObject(), a.GetObject(); !reflect.DeepEqual(expObject, object) {
			t.Errorf("Action %s %s has the wrong object\nDiff:\n %s",
				a.GetVerb(), a.GetResource().Resource, diff.ObjectGoPrintSideBySide(expObject, object))
		}
	case core.UpdateActionImpl:
		e, _ := expected.(core.UpdateActionImpl)
		if expObject, object := e.GetObject(), a.GetObject(); !reflect.DeepEqual(expObject, object) {
			t.Errorf("Action %s %s has the wrong object\nDiff:\n %s",
				a.GetVerb(), a.GetResource().Resource, diff.ObjectGoPrintSideBySide(expObject, object))
		}
	case core.PatchActionImpl:
		e, _ := expected.(core.PatchActionImpl)
		if expPatch, patch := e.GetPatch(), a.GetPatch(); !reflect.DeepEqual(expPatch, patch) {
			t.Errorf("Action %s %s has the wrong patch\nDiff:\n %s",
				a.GetVerb(), a.GetResource().Resource, diff.ObjectGoPrintSideBySide(expPatch, patch))
		}
	default:
		t.Errorf("Uncaptured Action %s %s: add a case for it",
			actual.GetVerb(), actual.GetResource().Resource)
	}
}

// filterInformerActions leaves out the informers' lists and watches of
// all namespaces, which change nothing.
func filterInformerActions(actions []core.Action) []core.Action {
	var ret []core.Action
	for _, action := range actions {
		if action.GetNamespace() == "" &&
			(action.Matches("list", "foos") ||
				action.Matches("watch", "foos") ||
				action.Matches("list", "deployments") ||
				action.Matches("watch", "deployments")) {
			continue
		}
		ret = append(ret, action)
	}
	return ret
}

func (f *fixture) expectCreateDeploymentAction(d *appsv1.Deployment) {
	f.kubeactions = append(f.kubeactions, core.NewCreateAction(schema.GroupVersionResource{Resource: "deployments"}, d.Namespace, d))
}

func (f *fixture) expectUpdateDeploymentAction(d *appsv1.Deployment) {
	f.kubeactions = append(f.kubeactions, core.NewUpdateAction(schema.GroupVersionResource{Resource: "deployments"}, d.Namespace, d))
}

func (f *fixture) expectUpdateFooStatusAction(foo *samplev1alpha1.Foo) {
	f.actions = append(f.actions, core.NewUpdateSubresourceAction(schema.GroupVersionResource{Resource: "foos"}, "status", foo.Namespace, foo))
}

func getRef(foo *samplev1alpha1.Foo) cache.ObjectName {
	return cache.MetaObjectToName(foo)
}

const syncedEvent = "Normal " + SuccessSynced + " " + MessageResourceSynced

func TestCreatesDeployment(t *testing.T) {
	f := newFixture(t)
	foo := newFoo("test", ptr.To[int32](1))
	_, ctx := ktesting.NewTestContext(t)

	f.fooLister = append(f.fooLister, foo)
	f.objects = append(f.objects, foo)

	f.expectCreateDeploymentAction(newDeployment(foo))
	f.expectUpdateFooStatusAction(foo)
	f.events = []string{syncedEvent}
	f.run(ctx, getRef(foo))
}

func TestDoNothing(t *testing.T) {
	f := newFixture(t)
	foo := newFoo("test", ptr.To[int32](1))
	_, ctx := ktesting.NewTestContext(t)

	d := newDeployment(foo)
	f.fooLister = append(f.fooLister, foo)
	f.objects = append(f.objects, foo)
	f.deploymentLister = append(f.deploymentLister, d)
	f.kubeobjects = append(f.kubeobjects, d)

	f.expectUpdateFooStatusAction(foo)
	f.events = []string{syncedEvent}
	f.run(ctx, getRef(foo))
}

func TestUpdateDeployment(t *testing.T) {
	f := newFixture(t)
	foo := newFoo("test", ptr.To[int32](1))
	_, ctx := ktesting.NewTestContext(t)

	d := newDeployment(foo)
	foo.Spec.Replicas = ptr.To[int32](2)
	f.fooLister = append(f.fooLister, foo)
	f.objects = append(f.objects, foo)
	f.deploymentLister = append(f.deploymentLister, d)
	f.kubeobjects = append(f.kubeobjects, d)

	f.expectUpdateFooStatusAction(foo)
	f.expectUpdateDeploymentAction(newDeployment(foo))
	f.events = []string{syncedEvent}
	f.run(ctx, getRef(foo))
}

// TestStatusFromDeployment checks that the Deployment the lister holds,
// not the client's copy, is what the status is taken from.
func TestStatusFromDeployment(t *testing.T) {
	f := newFixture(t)
	foo := newFoo("test", ptr.To[int32](3))
	_, ctx := ktesting.NewTestContext(t)

	d := newDeployment(foo)
	d.Status.AvailableReplicas = 2
	f.fooLister = append(f.fooLister, foo)
	f.objects = append(f.objects, foo)
	f.deploymentLister = append(f.deploymentLister, d)
	f.kubeobjects = append(f.kubeobjects, d)

	want := foo.DeepCopy()
	want.Status.AvailableReplicas = 2
	f.expectUpdateFooStatusAction(want)
	f.events = []string{syncedEvent}
	f.run(ctx, getRef(foo))
}

func TestNotControlledByUs(t *testing.T) {
	f := newFixture(t)
	foo := newFoo("test", ptr.To[int32](1))
	_, ctx := ktesting.NewTestContext(t)

	d := newDeployment(foo)
	d.OwnerReferences = nil
	f.fooLister = append(f.fooLister, foo)
	f.objects = append(f.objects, foo)
	f.deploymentLister = append(f.deploymentLister, d)
	f.kubeobjects = append(f.kubeobjects, d)

	f.events = []string{"Warning " + ErrResourceExists + " " + fmt.Sprintf(MessageResourceExists, d.Name)}
	f.runExpectError(ctx, getRef(foo))
}

// TestFooGone syncs a Foo that the lister does not hold: nothing to do.
func TestFooGone(t *testing.T) {
	f := newFixture(t)
	_, ctx := ktesting.NewTestContext(t)
	f.run(ctx, cache.ObjectName{Namespace: metav1.NamespaceDefault, Name: "gone"})
}

// TestEventHandlers runs the informers over the fake clientsets and checks
// that the untyped event handlers queue the right Foo for each change: a
// Foo added, updated or deleted, and a Deployment it controls added or
// deleted. A Deployment controlled by no Foo queues nothing.
func TestEventHandlers(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	f := newFixture(t)
	c, i, k8sI := f.newController(ctx)
	c.foosSynced = i.Samplecontroller().V1alpha1().Foos().Informer().HasSynced
	c.deploymentsSynced = k8sI.Apps().V1().Deployments().Informer().HasSynced
	i.Start(ctx.Done())
	k8sI.Start(ctx.Done())
	if !cache.WaitForNamedCacheSync("test", ctx.Done(), c.foosSynced, c.deploymentsSynced) {
		t.Fatal("caches did not sync")
	}

	queued := make(chan cache.ObjectName)
	go func() {
		for {
			ref, shutdown := c.workqueue.Get()
			if shutdown {
				close(queued)
				return
			}
			queued <- ref
			c.workqueue.Done(ref)
		}
	}()
	defer c.workqueue.ShutDown()
	expect := func(what string, want cache.ObjectName) {
		t.Helper()
		select {
		case ref := <-queued:
			if ref != want {
				t.Fatalf("%s: queued %v, want %v", what, ref, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: %v not queued", what, want)
		}
	}

	foo := newFoo("test", ptr.To[int32](1))
	ref := getRef(foo)
	foos := f.client.SamplecontrollerV1alpha1().Foos(foo.Namespace)
	deployments := f.kubeclient.AppsV1().Deployments(foo.Namespace)

	if _, err := foos.Create(ctx, foo, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	expect("Foo added", ref)

	orphan := newDeployment(newFoo("other", ptr.To[int32](1)))
	orphan.OwnerReferences = nil
	if _, err := deployments.Create(ctx, orphan, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := deployments.Create(ctx, newDeployment(foo), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	expect("Deployment added", ref)

	foo.Spec.Replicas = ptr.To[int32](2)
	if _, err := foos.Update(ctx, foo, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	expect("Foo updated", ref)

	if err := deployments.Delete(ctx, foo.Spec.DeploymentName, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	expect("Deployment deleted", ref)

	if err := foos.Delete(ctx, foo.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	expect("Foo deleted", ref)

	select {
	case ref := <-queued:
		t.Errorf("%v queued after the last change", ref)
	case <-time.After(100 * time.Millisecond):
	}
}
