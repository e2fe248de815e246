package main

import (
	"context"
	"fmt"
	"time"

	"golang.org/x/time/rate"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	appsinformers "k8s.io/client-go/informers/apps/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	appslisters "k8s.io/client-go/listers/apps/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	samplev1alpha1 "github.com/ctrlgen/ctrlgen/examples/samplecontroller/apis/samplecontroller/v1alpha1"
	clientset "github.com/ctrlgen/ctrlgen/examples/samplecontroller/generated/clientset/versioned"
	samplescheme "github.com/ctrlgen/ctrlgen/examples/samplecontroller/generated/clientset/versioned/scheme"
	informers "github.com/ctrlgen/ctrlgen/examples/samplecontroller/generated/informers/externalversions/samplecontroller/v1alpha1"
	listers "github.com/ctrlgen/ctrlgen/examples/samplecontroller/generated/listers/samplecontroller/v1alpha1"
)

// controllerAgentName is the component name on the Events the controller
// records and its field manager on the objects it writes.
const controllerAgentName = "samplecontroller"

// Event reasons and messages.
const (
	// SuccessSynced is the reason of the Event recorded when a Foo's
	// Deployment and status are as the Foo asks.
	SuccessSynced = "Synced"
	// ErrResourceExists is the reason of the Event recorded when the
	// Deployment a Foo names exists and some other object controls it.
	ErrResourceExists = "ErrResourceExists"

	// MessageResourceExists is the message of an ErrResourceExists Event.
	MessageResourceExists = "Deployment %q exists and is not controlled by this Foo"
	// MessageResourceSynced is the message of a SuccessSynced Event.
	MessageResourceSynced = "Foo synced"
)

// Controller keeps, for every Foo, a Deployment of the name and size it
// asks for, and copies the Deployment's available replicas into the Foo's
// status. It is a client-go controller of the classic shape: informers
// with untyped event handlers feed a rate-limited workqueue of object
// names, and workers sync one Foo at a time from the listers' caches.
type Controller struct {
	kubeclientset   kubernetes.Interface
	sampleclientset clientset.Interface

	deploymentsLister appslisters.DeploymentLister
	deploymentsSynced cache.InformerSynced
	foosLister        listers.FooLister
	foosSynced        cache.InformerSynced

	// workqueue holds the names of the Foos to sync. It never hands one
	// name to two workers at once, and backs off a Foo whose sync fails.
	workqueue workqueue.TypedRateLimitingInterface[cache.ObjectName]
	// recorder records Events about Foos.
	recorder record.EventRecorder
}

// NewController returns a controller that watches Foos through
// fooInformer and Deployments through deploymentInformer. It registers
// its event handlers on both; the caller starts the informers.
func NewController(
	ctx context.Context,
	kubeclientset kubernetes.Interface,
	sampleclientset clientset.Interface,
	deploymentInformer appsinformers.DeploymentInformer,
	fooInformer informers.FooInformer) *Controller {
	logger := klog.FromContext(ctx)

	// Events name the Foo they are about; the recorder finds its kind in
	// client-go's scheme, so the Foo's group must be in it.
	utilruntime.Must(samplescheme.AddToScheme(scheme.Scheme))
	logger.V(4).Info("Creating event broadcaster")
	eventBroadcaster := record.NewBroadcaster(record.WithContext(ctx))
	eventBroadcaster.StartStructuredLogging(0)
	eventBroadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: kubeclientset.CoreV1().Events("")})
	recorder := eventBroadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: controllerAgentName})

	// Per Foo, exponential backoff from 5ms to 1000s; overall, at most 50
	// retries a second with bursts of 300.
	rateLimiter := workqueue.NewTypedMaxOfRateLimiter(
		workqueue.NewTypedItemExponentialFailureRateLimiter[cache.ObjectName](5*time.Millisecond, 1000*time.Second),
		&workqueue.TypedBucketRateLimiter[cache.ObjectName]{Limiter: rate.NewLimiter(rate.Limit(50), 300)},
	)

	c := &Controller{
		kubeclientset:     kubeclientset,
		sampleclientset:   sampleclientset,
		deploymentsLister: deploymentInformer.Lister(),
		deploymentsSynced: deploymentInformer.Informer().HasSynced,
		foosLister:        fooInformer.Lister(),
		foosSynced:        fooInformer.Informer().HasSynced,
		workqueue:         workqueue.NewTypedRateLimitingQueue(rateLimiter),
		recorder:          recorder,
	}

	logger.Info("Setting up event handlers")
	// A Foo that appears or changes is synced. One that goes away is too:
	// its sync finds it gone and does nothing, and the garbage collector
	// removes its Deployment.
	fooInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: c.enqueueFoo,
		UpdateFunc: func(old, new interface{}) {
			c.enqueueFoo(new)
		},
		DeleteFunc: func(obj interface{}) {
			if ref, err := cache.DeletionHandlingObjectToName(obj); err != nil {
				utilruntime.HandleError(err)
			} else {
				c.workqueue.Add(ref)
			}
		},
	})
	// A Deployment that changes has its controlling Foo, if any, synced, so
	// that a Deployment edited or deleted behind the controller's back is
	// put right and the Foo's status follows the Deployment's.
	deploymentInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: c.handleObject,
		UpdateFunc: func(old, new interface{}) {
			oldDeployment, newDeployment := old.(*appsv1.Deployment), new.(*appsv1.Deployment)
			if oldDeployment.ResourceVersion == newDeployment.ResourceVersion {
				// A resync: the Deployment has not changed.
				return
			}
			c.handleObject(new)
		},
		DeleteFunc: c.handleObject,
	})
	return c
}

// Run waits for the informers' caches to fill, then runs workers
// goroutines that sync Foos until ctx is done. It shuts the workqueue down
// before it returns.
func (c *Controller) Run(ctx context.Context, workers int) error {
	defer utilruntime.HandleCrash()
	defer c.workqueue.ShutDown()
	logger := klog.FromContext(ctx)

	logger.Info("Starting Foo controller")
	if !cache.WaitForNamedCacheSync(controllerAgentName, ctx.Done(), c.deploymentsSynced, c.foosSynced) {
		return fmt.Errorf("the informers' caches did not sync")
	}

	logger.Info("Starting workers", "count", workers)
	for range workers {
		go wait.UntilWithContext(ctx, c.runWorker, time.Second)
	}
	<-ctx.Done()
	logger.Info("Shutting down workers")
	return nil
}

// runWorker syncs Foos until the workqueue shuts down.
func (c *Controller) runWorker(ctx context.Context) {
	for c.processNextWorkItem(ctx) {
	}
}

// processNextWorkItem syncs the next Foo of the workqueue. It returns
// false once the workqueue has shut down.
func (c *Controller) processNextWorkItem(ctx context.Context) bool {
	ref, shutdown := c.workqueue.Get()
	if shutdown {
		return false
	}
	// Done lets the workqueue hand ref out again, to any worker.
	defer c.workqueue.Done(ref)

	if err := c.syncHandler(ctx, ref); err != nil {
		// Retry later, after this Foo's backoff.
		utilruntime.HandleErrorWithContext(ctx, err, "Error syncing Foo; requeuing", "objectReference", ref)
		c.workqueue.AddRateLimited(ref)
		return true
	}
	// Synced: the next failure of this Foo starts its backoff afresh.
	c.workqueue.Forget(ref)
	klog.FromContext(ctx).Info("Successfully synced", "objectName", ref)
	return true
}

// syncHandler brings the Foo named ref to the state it asks for: its
// Deployment exists, is controlled by it and has its replicas, and its
// status shows the Deployment's available replicas. An error means
// retry.
func (c *Controller) syncHandler(ctx context.Context, ref cache.ObjectName) error {
	logger := klog.LoggerWithValues(klog.FromContext(ctx), "objectRef", ref)

	foo, err := c.foosLister.Foos(ref.Namespace).Get(ref.Name)
	if apierrors.IsNotFound(err) {
		// Deleted since it was queued: nothing to do.
		utilruntime.HandleErrorWithContext(ctx, err, "Foo in the workqueue no longer exists", "objectReference", ref)
		return nil
	}
	if err != nil {
		return err
	}

	deploymentName := foo.Spec.DeploymentName
	if deploymentName == "" {
		// Retrying cannot help; the Foo is synced again when it changes.
		utilruntime.HandleErrorWithContext(ctx, nil, "Foo names no Deployment", "objectReference", ref)
		return nil
	}

	deployment, err := c.deploymentsLister.Deployments(foo.Namespace).Get(deploymentName)
	if apierrors.IsNotFound(err) {
		deployment, err = c.kubeclientset.AppsV1().Deployments(foo.Namespace).Create(ctx, newDeployment(foo), metav1.CreateOptions{FieldManager: controllerAgentName})
	}
	if err != nil {
		return err
	}

	// Never take over a Deployment someone else made.
	if !metav1.IsControlledBy(deployment, foo) {
		msg := fmt.Sprintf(MessageResourceExists, deployment.Name)
		c.recorder.Event(foo, corev1.EventTypeWarning, ErrResourceExists, msg)
		return fmt.Errorf("%s", msg)
	}

	if foo.Spec.Replicas != nil && *foo.Spec.Replicas != *deployment.Spec.Replicas {
		logger.V(4).Info("Resizing the Deployment", "currentReplicas", *deployment.Spec.Replicas, "desiredReplicas", *foo.Spec.Replicas)
		deployment, err = c.kubeclientset.AppsV1().Deployments(foo.Namespace).Update(ctx, newDeployment(foo), metav1.UpdateOptions{FieldManager: controllerAgentName})
		if err != nil {
			return err
		}
	}

	if err := c.updateFooStatus(ctx, foo, deployment); err != nil {
		return err
	}
	c.recorder.Event(foo, corev1.EventTypeNormal, SuccessSynced, MessageResourceSynced)
	return nil
}

// updateFooStatus writes deployment's available replicas into foo's
// status, through the status subresource.
func (c *Controller) updateFooStatus(ctx context.Context, foo *samplev1alpha1.Foo, deployment *appsv1.Deployment) error {
	// foo belongs to the informer's cache, which others read: change a
	// copy.
	fooCopy := foo.DeepCopy()
	fooCopy.Status.AvailableReplicas = deployment.Status.AvailableReplicas
	_, err := c.sampleclientset.SamplecontrollerV1alpha1().Foos(foo.Namespace).UpdateStatus(ctx, fooCopy, metav1.UpdateOptions{FieldManager: controllerAgentName})
	return err
}

// enqueueFoo queues the name of obj, a *Foo.
func (c *Controller) enqueueFoo(obj interface{}) {
	ref, err := cache.ObjectToName(obj)
	if err != nil {
		utilruntime.HandleError(err)
		return
	}
	c.workqueue.Add(ref)
}

// handleObject queues the Foo that controls obj, a Deployment or the
// tombstone of a deleted one, if a Foo does and the lister has it.
func (c *Controller) handleObject(obj interface{}) {
	logger := klog.FromContext(context.Background())
	object, ok := obj.(metav1.Object)
	if !ok {
		tombstone, ok := obj.(cache.DeletedFinalStateUnknown)
		if !ok {
			utilruntime.HandleErrorWithContext(context.Background(), nil, "Unexpected object in an event", "type", fmt.Sprintf("%T", obj))
			return
		}
		if object, ok = tombstone.Obj.(metav1.Object); !ok {
			utilruntime.HandleErrorWithContext(context.Background(), nil, "Unexpected object in a tombstone", "type", fmt.Sprintf("%T", tombstone.Obj))
			return
		}
		logger.V(4).Info("Recovered a deleted object from its tombstone", "resourceName", object.GetName())
	}
	logger.V(4).Info("Processing object", "object", klog.KObj(object))

	owner := metav1.GetControllerOf(object)
	if owner == nil || owner.Kind != "Foo" || owner.APIVersion != samplev1alpha1.SchemeGroupVersion.String() {
		return
	}
	foo, err := c.foosLister.Foos(object.GetNamespace()).Get(owner.Name)
	if err != nil {
		logger.V(4).Info("Ignoring an object whose Foo is gone", "object", klog.KObj(object), "foo", owner.Name)
		return
	}
	c.enqueueFoo(foo)
}

// newDeployment is the Deployment foo asks for: nginx, labelled for foo,
// with foo as its controller so that handleObject finds foo from it.
func newDeployment(foo *samplev1alpha1.Foo) *appsv1.Deployment {
	labels := map[string]string{
		"app":        "nginx",
		"controller": foo.Name,
	}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{
			Name:      foo.Spec.DeploymentName,
			Namespace: foo.Namespace,
			OwnerReferences: []metav1.OwnerReference{
				*metav1.NewControllerRef(foo, samplev1alpha1.SchemeGroupVersion.WithKind("Foo")),
			},
		},
		Spec: appsv1.DeploymentSpec{
			Replicas: foo.Spec.Replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					Containers: []corev1.Container{{Name: "nginx", Image: "nginx:latest"}},
				},
			},
		},
	}
}
