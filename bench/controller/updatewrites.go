package controllerbench

import (
	"context"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"

	crddemov1 "github.com/ctrlgen/ctrlgen/examples/mydemo/apis/crddemo/v1"
	"github.com/ctrlgen/ctrlgen/examples/mydemo/controllers/mydemo"
	"github.com/ctrlgen/ctrlgen/examples/mydemo/generated/clientset/versioned"
	"github.com/ctrlgen/ctrlgen/examples/mydemo/generated/clientset/versioned/scheme"
	"github.com/ctrlgen/ctrlgen/examples/mydemo/generated/informers/externalversions"
	"github.com/ctrlgen/ctrlgen/runtime/cache"
	"github.com/ctrlgen/ctrlgen/runtime/controller"
	kubeinformers "github.com/ctrlgen/ctrlgen/runtime/kube/informers"
	listerscorev1 "github.com/ctrlgen/ctrlgen/runtime/kube/listers/core/v1"
	"github.com/ctrlgen/ctrlgen/runtime/manager"
)

// UpdateWrites is the mydemo controller as it was before it wrote by
// server-side apply, for impl=ctrlgen-update: the same wiring ctrlgen
// generates without +ctrlgen:controller:statusApply (status written by
// UpdateStatus when it changed, a conflict retried on a fresh Get) around
// the same reconcile with read-modify-write ConfigMap writes (a Create when
// the lister has none, AlreadyExists answered by a Get; an Update of a
// copy of the cached ConfigMap when it differs from the spec). The
// client-go controller (clientgo.go) writes the same way.
type UpdateWrites struct {
	kubeClient      kubernetes.Interface
	configMapLister listerscorev1.ConfigMapLister
	ctrl            *controller.Controller[*crddemov1.Mydemo]
}

// InitUpdateWrites builds UpdateWrites for the manager, as the generated
// mydemo.Init builds the mydemo controller: the same clients, on the
// same shared informer factories.
func InitUpdateWrites(_ context.Context, mc *manager.Context) (manager.Runnable, error) {
	config := mc.ClientConfig()
	client, err := versioned.NewForConfig(config)
	if err != nil {
		return nil, err
	}
	factory, err := manager.SharedFactory(mc, "github.com/ctrlgen/ctrlgen/examples/mydemo/generated/clientset/versioned", func() (externalversions.SharedInformerFactory, error) {
		return externalversions.NewSharedInformerFactory(client, mc.Options.Resync), nil
	})
	if err != nil {
		return nil, err
	}
	kubeClient, err := kubernetes.NewForConfig(config)
	if err != nil {
		return nil, err
	}
	kubeFactory, err := manager.SharedFactory(mc, "github.com/ctrlgen/ctrlgen/runtime/kube/informers", func() (kubeinformers.SharedInformerFactory, error) {
		return kubeinformers.NewSharedInformerFactory(kubeClient, mc.Options.Resync), nil
	})
	if err != nil {
		return nil, err
	}
	informer := factory.Crddemo().V1().Mydemos()
	configMapInformer := kubeFactory.Core().V1().ConfigMaps()
	c := &UpdateWrites{kubeClient: kubeClient, configMapLister: configMapInformer.Lister()}
	recorder := mc.EventRecorder(scheme.Scheme, mydemo.ControllerName)
	ctrl, err := controller.New(controller.Options[*crddemov1.Mydemo]{
		Name:      mydemo.ControllerName,
		Informer:  informer.TypedInformer(),
		DeepCopy:  (*crddemov1.Mydemo).DeepCopy,
		Reconcile: c.reconcile,
		Get: func(ctx context.Context, key cache.ObjectName) (*crddemov1.Mydemo, error) {
			return client.CrddemoV1().Mydemos(key.Namespace).Get(ctx, key.Name, metav1.GetOptions{})
		},
		UpdateStatus: func(ctx context.Context, obj *crddemov1.Mydemo) (*crddemov1.Mydemo, error) {
			return client.CrddemoV1().Mydemos(obj.Namespace).UpdateStatus(ctx, obj, metav1.UpdateOptions{})
		},
		StatusEqual:           func(a, b *crddemov1.Mydemo) bool { return equality.Semantic.DeepEqual(a.Status, b.Status) },
		CopyStatus:            func(dst, src *crddemov1.Mydemo) { src.Status.DeepCopyInto(&dst.Status) },
		SetObservedGeneration: func(obj *crddemov1.Mydemo, generation int64) { obj.Status.ObservedGeneration = generation },
		Recorder:              recorder,
	})
	if err != nil {
		return nil, err
	}
	c.ctrl = ctrl
	owner := controller.Owner{GroupKind: schema.GroupKind{Group: "crddemo.k8s.io", Kind: "Mydemo"}, Namespaced: true}
	if err := controller.WatchOwned(ctrl, configMapInformer.TypedInformer(), owner); err != nil {
		return nil, err
	}
	return c, nil
}

// Run, Name and HasSynced make it a manager.Runnable.
func (c *UpdateWrites) Run(ctx context.Context, workers int) error { return c.ctrl.Run(ctx, workers) }
func (c *UpdateWrites) Name() string                               { return c.ctrl.Name() }
func (c *UpdateWrites) HasSynced() bool                            { return c.ctrl.HasSynced() }

// reconcile is reconcileByUpdates, with reconcile.go's error handling:
// an Invalid ConfigMap is a permanent error.
func (c *UpdateWrites) reconcile(ctx context.Context, obj *crddemov1.Mydemo) (controller.Result, error) {
	err := reconcileByUpdates(ctx, c.kubeClient, c.configMapLister.ConfigMaps(obj.Namespace).Get, obj)
	if apierrors.IsInvalid(err) {
		return controller.Result{}, controller.Permanent(err)
	}
	return controller.Result{}, err
}

var _ manager.Runnable = (*UpdateWrites)(nil)
