package mydemo

import (
	"context"
	"fmt"
	"maps"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	crddemov1 "github.com/ctrlgen/ctrlgen/examples/mydemo/apis/crddemo/v1"
	"github.com/ctrlgen/ctrlgen/runtime/cache"
	"github.com/ctrlgen/ctrlgen/runtime/controller"
)

// This file started as the one ctrlgen writes once; it is hand-edited and
// ctrlgen leaves it alone. The wiring is in zz_generated.controller.go.

// The permissions of what Reconcile does itself, which ctrlgen cannot
// derive (it derives what the informers and the wiring do): it creates
// and updates ConfigMaps, gets one afresh when its create finds it
// already there, and their controller reference blocks the Mydemo's
// deletion, which the OwnerReferencesPermissionEnforcement admission
// plugin allows only to who may update mydemos/finalizers.
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=create;get;update
// +kubebuilder:rbac:groups=crddemo.k8s.io,resources=mydemos/finalizers,verbs=update

const (
	// ConditionReady is true once the ConfigMap matches the spec.
	ConditionReady = "Ready"
	// LabelMydemo names, on a ConfigMap, the Mydemo it was rendered from.
	LabelMydemo = "crddemo.k8s.io/mydemo"
)

// ConfigMapName is the name of the ConfigMap rendered from a Mydemo.
func ConfigMapName(obj *crddemov1.Mydemo) string { return obj.Name + "-config" }

// Reconcile keeps obj's ConfigMap as obj's spec says: created when missing
// (or deleted by someone: the owns= watch brings us back), updated when
// the spec changed. The ConfigMap's controller ownerReference, with
// blockOwnerDeletion, lets the garbage collector delete it with obj.
//
// It reads through the listers and writes the ConfigMap through
// kubeClient, client-go's clientset (which sends it as protobuf). obj's
// status (configMapName, the Ready condition) is written back by the
// wiring, which also sets status.observedGeneration after a nil error.
func (c *Controller) Reconcile(ctx context.Context, obj *crddemov1.Mydemo) (controller.Result, error) {
	logger := klog.FromContext(ctx).WithValues("mydemo", klog.KObj(obj))
	want := DesiredConfigMap(obj)
	obj.Status.ConfigMapName = want.Name

	current, err := c.configMapLister.ConfigMaps(want.Namespace).Get(want.Name)
	if apierrors.IsNotFound(err) {
		logger.V(2).Info("Creating ConfigMap", "configMap", want.Name)
		current, err = c.kubeClient.CoreV1().ConfigMaps(want.Namespace).Create(ctx, want, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			// Created since our cache last heard: look at the real one.
			current, err = c.kubeClient.CoreV1().ConfigMaps(want.Namespace).Get(ctx, want.Name, metav1.GetOptions{})
		}
	}
	if err != nil {
		return controller.Result{}, c.fail(obj, "ConfigMapFailed", err)
	}
	if !metav1.IsControlledBy(current, obj) {
		// Someone else's ConfigMap has our name; never take it over.
		err := fmt.Errorf("ConfigMap %s/%s exists and is not controlled by this Mydemo", current.Namespace, current.Name)
		return controller.Result{}, c.fail(obj, "ConfigMapNotOwned", err)
	}
	if !UpToDate(current, want) {
		logger.V(2).Info("Updating ConfigMap", "configMap", want.Name)
		updated := current.DeepCopy()
		updated.Data = want.Data
		if updated.Labels == nil {
			updated.Labels = map[string]string{}
		}
		maps.Copy(updated.Labels, want.Labels)
		// A Conflict means our copy is stale; the runtime requeues and the
		// next attempt reads the newer one.
		if _, err := c.kubeClient.CoreV1().ConfigMaps(want.Namespace).Update(ctx, updated, metav1.UpdateOptions{}); err != nil {
			return controller.Result{}, c.fail(obj, "ConfigMapFailed", err)
		}
	}
	meta.SetStatusCondition(&obj.Status.Conditions, metav1.Condition{
		Type:               ConditionReady,
		Status:             metav1.ConditionTrue,
		Reason:             "ConfigMapReady",
		Message:            fmt.Sprintf("ConfigMap %s matches the spec", want.Name),
		ObservedGeneration: obj.Generation,
	})
	return controller.Result{}, nil
}

// Deleted is called for a Mydemo gone from the cache. Nothing is left to
// do: the garbage collector deletes the ConfigMap it owned.
func (c *Controller) Deleted(ctx context.Context, key cache.ObjectName) error {
	klog.FromContext(ctx).V(2).Info("Mydemo deleted; the garbage collector removes its ConfigMap", "mydemo", key.String())
	return nil
}

// fail records err in obj's Ready condition and returns it, so that the
// key is retried with backoff. A ConfigMap the apiserver finds invalid
// (say, a Mydemo name too long for "-config") stays invalid: that error is
// permanent, and the runtime records it as a Warning event on obj.
func (c *Controller) fail(obj *crddemov1.Mydemo, reason string, err error) error {
	meta.SetStatusCondition(&obj.Status.Conditions, metav1.Condition{
		Type:               ConditionReady,
		Status:             metav1.ConditionFalse,
		Reason:             reason,
		Message:            err.Error(),
		ObservedGeneration: obj.Generation,
	})
	if apierrors.IsInvalid(err) {
		return controller.Permanent(err)
	}
	return err
}

// DesiredConfigMap renders obj's spec: spec.data plus "ip" and "port".
func DesiredConfigMap(obj *crddemov1.Mydemo) *corev1.ConfigMap {
	data := make(map[string]string, len(obj.Spec.Data)+2)
	maps.Copy(data, obj.Spec.Data)
	data["ip"] = obj.Spec.IP
	data["port"] = strconv.Itoa(int(obj.Spec.Port))
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Name:      ConfigMapName(obj),
			Namespace: obj.Namespace,
			Labels:    map[string]string{LabelMydemo: obj.Name},
			// Controller and BlockOwnerDeletion are true: the garbage
			// collector deletes the ConfigMap with its Mydemo, and a
			// foreground deletion of the Mydemo waits for it.
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(obj, crddemov1.SchemeGroupVersion.WithKind("Mydemo"))},
		},
		Data: data,
	}
}

// UpToDate reports whether current has want's data and labels.
func UpToDate(current, want *corev1.ConfigMap) bool {
	if !maps.Equal(current.Data, want.Data) {
		return false
	}
	for k, v := range want.Labels {
		if current.Labels[k] != v {
			return false
		}
	}
	return true
}
