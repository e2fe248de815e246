package controllerbench

import (
	"context"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"

	crddemov1 "github.com/ctrlgen/ctrlgen/examples/mydemo/apis/crddemo/v1"
	"github.com/ctrlgen/ctrlgen/examples/mydemo/controllers/mydemo"
)

// ClientGoController is the mydemo controller written the way
// k8s.io/sample-controller writes one: client-go SharedIndexInformers (a
// ListWatch over the generated clientset for Mydemos, over client-go's
// for ConfigMaps), a
// ConfigMap lister, and a typed rate-limited workqueue fed by event
// handlers and drained by workers (processNextWorkItem, syncHandler,
// Forget/AddRateLimited).
//
// Its reconcile does what reconcile.go does, with the pure parts from
// shared.go, and its status write-back is what ctrlgen's wiring does:
// status.observedGeneration after a successful reconcile, UpdateStatus only
// when the status changed, a conflicting write retried on a fresh Get.
type ClientGoController struct {
	clients Clients

	mydemoInformer    cache.SharedIndexInformer
	configMapInformer cache.SharedIndexInformer
	configMapLister   corelisters.ConfigMapLister
	synced            []cache.InformerSynced

	queue workqueue.TypedRateLimitingInterface[cache.ObjectName]
}

// statusConflictRetries bounds the fresh-Get retries of a conflicting
// status write, as runtime/controller's default.
const statusConflictRetries = 5

// NewClientGoController builds the informers (all namespaces, as
// ctrlgen's shared factory) and registers the event handlers; call Start,
// then Run.
func NewClientGoController(clients Clients, resync time.Duration) (*ClientGoController, error) {
	client, kube := clients.Mydemo, clients.Kube
	mydemos := cache.NewSharedIndexInformer(
		cache.ToListWatcherWithWatchListSemantics(&cache.ListWatch{
			ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
				return client.CrddemoV1().Mydemos(metav1.NamespaceAll).List(ctx, opts)
			},
			WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
				return client.CrddemoV1().Mydemos(metav1.NamespaceAll).Watch(ctx, opts)
			},
		}, client),
		&crddemov1.Mydemo{}, resync, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	configMaps := cache.NewSharedIndexInformer(
		cache.ToListWatcherWithWatchListSemantics(&cache.ListWatch{
			ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
				return kube.CoreV1().ConfigMaps(metav1.NamespaceAll).List(ctx, opts)
			},
			WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
				return kube.CoreV1().ConfigMaps(metav1.NamespaceAll).Watch(ctx, opts)
			},
		}, kube),
		&corev1.ConfigMap{}, resync, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})

	c := &ClientGoController{
		clients:           clients,
		mydemoInformer:    mydemos,
		configMapInformer: configMaps,
		configMapLister:   corelisters.NewConfigMapLister(configMaps.GetIndexer()),
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.DefaultTypedControllerRateLimiter[cache.ObjectName](),
			workqueue.TypedRateLimitingQueueConfig[cache.ObjectName]{Name: "mydemo"}),
	}
	reg, err := mydemos.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    c.enqueue,
		UpdateFunc: func(_, obj any) { c.enqueue(obj) },
		DeleteFunc: c.enqueue,
	})
	if err != nil {
		return nil, err
	}
	c.synced = append(c.synced, reg.HasSynced)
	// Owned ConfigMaps: a change to one reconciles its controlling Mydemo;
	// an update that moves it to another owner reconciles both.
	reg, err = configMaps.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: c.enqueueOwner,
		UpdateFunc: func(old, obj any) {
			oldKey, oldOK := ownerKey(old)
			newKey, newOK := ownerKey(obj)
			if oldOK && (!newOK || oldKey != newKey) {
				c.queue.Add(oldKey)
			}
			if newOK {
				c.queue.Add(newKey)
			}
		},
		DeleteFunc: c.enqueueOwner,
	})
	if err != nil {
		return nil, err
	}
	c.synced = append(c.synced, reg.HasSynced)
	return c, nil
}

func (c *ClientGoController) enqueue(obj any) {
	key, err := cache.DeletionHandlingObjectToName(obj)
	if err != nil {
		utilruntime.HandleError(err)
		return
	}
	c.queue.Add(key)
}

func (c *ClientGoController) enqueueOwner(obj any) {
	if key, ok := ownerKey(obj); ok {
		c.queue.Add(key)
	}
}

var mydemoGroupKind = schema.GroupKind{Group: crddemov1.SchemeGroupVersion.Group, Kind: "Mydemo"}

// ownerKey is the key of the Mydemo controlling obj, a ConfigMap or its
// tombstone.
func ownerKey(obj any) (cache.ObjectName, bool) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	o, ok := obj.(metav1.Object)
	if !ok {
		return cache.ObjectName{}, false
	}
	ref := metav1.GetControllerOf(o)
	if ref == nil || ref.Kind != mydemoGroupKind.Kind {
		return cache.ObjectName{}, false
	}
	if gv, err := schema.ParseGroupVersion(ref.APIVersion); err != nil || gv.Group != mydemoGroupKind.Group {
		return cache.ObjectName{}, false
	}
	return cache.ObjectName{Namespace: o.GetNamespace(), Name: ref.Name}, true
}

// Start runs the informers until ctx is done.
func (c *ClientGoController) Start(ctx context.Context) {
	go c.mydemoInformer.RunWithContext(ctx)
	go c.configMapInformer.RunWithContext(ctx)
}

// HasSynced reports whether both informers have delivered their initial
// lists to the handlers.
func (c *ClientGoController) HasSynced() bool {
	for _, s := range c.synced {
		if !s() {
			return false
		}
	}
	return true
}

// Run waits for the caches, then reconciles with workers goroutines until
// ctx is done, and returns once in-flight reconciles end.
func (c *ClientGoController) Run(ctx context.Context, workers int) error {
	defer utilruntime.HandleCrashWithContext(ctx)
	logger := klog.FromContext(ctx).WithValues("controller", "mydemo-client-go")
	if !cache.WaitForNamedCacheSyncWithContext(ctx, c.HasSynced) {
		c.queue.ShutDown()
		return fmt.Errorf("caches did not sync: %w", ctx.Err())
	}
	logger.Info("Starting workers", "count", workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for c.processNextWorkItem(ctx) {
			}
		})
	}
	<-ctx.Done()
	c.queue.ShutDownWithDrain()
	wg.Wait()
	return nil
}

func (c *ClientGoController) processNextWorkItem(ctx context.Context) bool {
	key, shutdown := c.queue.Get()
	if shutdown {
		return false
	}
	defer c.queue.Done(key)

	err := c.syncHandler(ctx, key)
	switch {
	case err == nil:
		c.queue.Forget(key)
	case apierrors.IsInvalid(err):
		// Permanent, as reconcile.go says: retrying cannot help.
		c.queue.Forget(key)
		utilruntime.HandleErrorWithContext(ctx, err, "Reconcile failed permanently; not retrying", "key", key.String())
	default:
		c.queue.AddRateLimited(key)
		if !apierrors.IsConflict(err) {
			utilruntime.HandleErrorWithContext(ctx, err, "Reconcile failed; retrying", "key", key.String())
		}
	}
	return true
}

// syncHandler reconciles the Mydemo named by key and writes its status
// back when it changed.
func (c *ClientGoController) syncHandler(ctx context.Context, key cache.ObjectName) error {
	obj, exists, err := c.mydemoInformer.GetIndexer().GetByKey(key.String())
	if err != nil {
		return err
	}
	if !exists {
		return nil // the garbage collector deletes its ConfigMap
	}
	cached := obj.(*crddemov1.Mydemo)
	md := cached.DeepCopy()
	err = c.reconcile(ctx, md)
	if err == nil {
		md.Status.ObservedGeneration = md.Generation
	}
	// Written even when reconcile failed: the Ready condition says why.
	if serr := c.writeStatus(ctx, key, cached, md); serr != nil && err == nil {
		err = serr
	}
	return err
}

// reconcile creates md's ConfigMap when missing and updates it when it
// differs from the spec, reading through the lister; it records the
// outcome in md's status.
func (c *ClientGoController) reconcile(ctx context.Context, md *crddemov1.Mydemo) error {
	return reconcileByUpdates(ctx, c.clients.Kube, c.configMapLister.ConfigMaps(md.Namespace).Get, md)
}

// reconcileByUpdates is reconcile.go's Reconcile with the read-modify-write
// ConfigMap writes it made before it applied them: a Create when get (the
// lister) finds none, AlreadyExists answered by a Get, and an Update of a
// copy of the cached ConfigMap when it differs from the spec. The
// client-go controller and impl=ctrlgen-update (updatewrites.go) run it.
func reconcileByUpdates(ctx context.Context, kube kubernetes.Interface, get func(name string) (*corev1.ConfigMap, error), md *crddemov1.Mydemo) error {
	want := mydemo.DesiredConfigMap(md)
	md.Status.ConfigMapName = want.Name
	configMaps := kube.CoreV1().ConfigMaps(want.Namespace)

	current, err := get(want.Name)
	if apierrors.IsNotFound(err) {
		current, err = configMaps.Create(ctx, want, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			// Created since our cache last heard: look at the real one.
			current, err = configMaps.Get(ctx, want.Name, metav1.GetOptions{})
		}
	}
	if err != nil {
		markFailed(md, "ConfigMapFailed", err)
		return err
	}
	if !metav1.IsControlledBy(current, md) {
		err := fmt.Errorf("ConfigMap %s/%s exists and is not controlled by this Mydemo", current.Namespace, current.Name)
		markFailed(md, "ConfigMapNotOwned", err)
		return err
	}
	if !mydemo.UpToDate(current, want) {
		if _, err := configMaps.Update(ctx, withSpec(current, want), metav1.UpdateOptions{}); err != nil {
			markFailed(md, "ConfigMapFailed", err)
			return err
		}
	}
	markReady(md)
	return nil
}

// writeStatus writes md's status if it differs from the cached object's;
// a conflict is retried on a fresh copy carrying the new status.
func (c *ClientGoController) writeStatus(ctx context.Context, key cache.ObjectName, cached, md *crddemov1.Mydemo) error {
	if equality.Semantic.DeepEqual(cached.Status, md.Status) {
		return nil
	}
	mydemos := c.clients.Mydemo.CrddemoV1().Mydemos(key.Namespace)
	_, err := mydemos.UpdateStatus(ctx, md, metav1.UpdateOptions{})
	for i := 0; apierrors.IsConflict(err) && i < statusConflictRetries; i++ {
		fresh, gerr := mydemos.Get(ctx, key.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(gerr) {
			return nil
		}
		if gerr != nil {
			return gerr
		}
		md.Status.DeepCopyInto(&fresh.Status)
		_, err = mydemos.UpdateStatus(ctx, fresh, metav1.UpdateOptions{})
	}
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}
