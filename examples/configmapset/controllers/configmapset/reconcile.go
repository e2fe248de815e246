package configmapset

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	setsv1 "github.com/ctrlgen/ctrlgen/examples/configmapset/apis/sets/v1"
	"github.com/ctrlgen/ctrlgen/runtime/cache"
	"github.com/ctrlgen/ctrlgen/runtime/controller"
	listerscorev1 "github.com/ctrlgen/ctrlgen/runtime/kube/listers/core/v1"
)

// This file started as the one ctrlgen writes once; it is hand-edited and
// ctrlgen leaves it alone. The wiring is in zz_generated.controller.go.

// Sync creates and deletes ConfigMaps itself; ctrlgen derives the rest
// (reading, and adopting: patch, delete, configmapsets/finalizers).
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=create;delete

// Reconcile brings set's ConfigMaps to spec.replicas. It claims them first
// (adopting matching orphans, releasing those that stopped matching). The
// wiring calls it only once the ConfigMaps it created or deleted last time
// are in the cache (the controller's expectations), so the count it reads
// is never one its own writes have outdated.
func (c *Controller) Reconcile(ctx context.Context, set *setsv1.ConfigMapSet) (controller.Result, error) {
	children, err := c.ClaimConfigMaps(ctx, set)
	if err != nil {
		return controller.Result{}, err
	}
	return controller.Result{}, Sync(ctx, c.kubeClient, c.Expectations(), set, children)
}

// Sync is Reconcile's work once set's children are known, with the
// expectations as a parameter: nil runs it as a controller without them
// would, which is how the tests show what they prevent. It creates the
// missing ConfigMaps by generateName or deletes the surplus, and records
// the count in set's status.
func Sync(ctx context.Context, client kubernetes.Interface, x *controller.Expectations[*setsv1.ConfigMapSet], set *setsv1.ConfigMapSet, children []*corev1.ConfigMap) error {
	children = slices.DeleteFunc(slices.Clone(children), func(cm *corev1.ConfigMap) bool { return cm.DeletionTimestamp != nil })
	slices.SortFunc(children, func(a, b *corev1.ConfigMap) int { return strings.Compare(a.Name, b.Name) })
	set.Status.Replicas = int32(len(children))
	diff := int(set.Spec.Replicas) - len(children)
	logger := klog.FromContext(ctx).WithValues("configMapSet", klog.KObj(set))
	var errs []error
	switch {
	case diff > 0:
		logger.V(2).Info("Creating ConfigMaps", "count", diff)
		if x != nil {
			x.ExpectCreations(set, diff)
		}
		for range diff {
			if _, err := client.CoreV1().ConfigMaps(set.Namespace).Create(ctx, desired(set), metav1.CreateOptions{}); err != nil {
				if x != nil {
					x.CreationObserved(set) // no event will come
				}
				errs = append(errs, err)
			}
		}
	case diff < 0:
		victims := children[:-diff]
		logger.V(2).Info("Deleting ConfigMaps", "count", len(victims))
		keys := make([]cache.ObjectName, len(victims))
		for i, cm := range victims {
			keys[i] = cache.MetaObjectName(cm)
		}
		if x != nil {
			x.ExpectDeletions(set, keys)
		}
		for i, cm := range victims {
			err := client.CoreV1().ConfigMaps(cm.Namespace).Delete(ctx, cm.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &cm.UID}})
			if err != nil {
				if x != nil {
					x.DeletionObserved(set, keys[i])
				}
				if !apierrors.IsNotFound(err) {
					errs = append(errs, err)
				}
			}
		}
	}
	return errors.Join(errs...)
}

// Controlled are the ConfigMaps in set's namespace that set controls and
// its selector matches, without adopting or releasing any: what a
// controller without adoption counts.
func Controlled(configMaps listerscorev1.ConfigMapLister, set *setsv1.ConfigMapSet) ([]*corev1.ConfigMap, error) {
	selector, err := metav1.LabelSelectorAsSelector(set.Spec.Selector)
	if err != nil {
		return nil, err
	}
	all, err := configMaps.ConfigMaps(set.Namespace).List(selector)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(all, func(cm *corev1.ConfigMap) bool { return !metav1.IsControlledBy(cm, set) }), nil
}

func desired(set *setsv1.ConfigMapSet) *corev1.ConfigMap {
	var lbls map[string]string
	if set.Spec.Selector != nil {
		lbls = maps.Clone(set.Spec.Selector.MatchLabels)
	}
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			GenerateName:    set.Name + "-",
			Namespace:       set.Namespace,
			Labels:          lbls,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(set, setsv1.SchemeGroupVersion.WithKind("ConfigMapSet"))},
		},
		Data: set.Spec.Data,
	}
}
