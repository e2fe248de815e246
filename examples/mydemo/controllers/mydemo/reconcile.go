package mydemo

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"k8s.io/klog/v2"

	crddemov1 "github.com/ctrlgen/ctrlgen/examples/mydemo/apis/crddemo/v1"
	"github.com/ctrlgen/ctrlgen/runtime/cache"
	"github.com/ctrlgen/ctrlgen/runtime/controller"
)

// This file started as the one ctrlgen writes once; it is hand-edited and
// ctrlgen leaves it alone. The wiring is in zz_generated.controller.go.

// The permissions of what Reconcile does itself, which ctrlgen cannot
// derive (it derives what the informers and the wiring do): it applies
// ConfigMaps (a patch, and a create where the apply creates one: the
// apiserver authorizes that as create), and their controller reference
// blocks the Mydemo's deletion, which the
// OwnerReferencesPermissionEnforcement admission plugin allows only to
// who may update mydemos/finalizers.
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=create;patch
// +kubebuilder:rbac:groups=crddemo.k8s.io,resources=mydemos/finalizers,verbs=update

const (
	// ConditionReady is true once the ConfigMap matches the spec.
	ConditionReady = "Ready"
	// LabelMydemo names, on a ConfigMap, the Mydemo it was rendered from.
	LabelMydemo = "crddemo.k8s.io/mydemo"
)

// ConfigMapName is the name of the ConfigMap rendered from a Mydemo.
func ConfigMapName(obj *crddemov1.Mydemo) string { return obj.Name + "-config" }

// Reconcile keeps obj's ConfigMap as obj's spec says, by server-side
// apply: it sends the whole desired ConfigMap (its data, its label, and
// the controller ownerReference, with blockOwnerDeletion, that lets the
// garbage collector delete it with obj) as field manager ControllerName,
// with Force, as Kubernetes advises for a controller's own objects. So a
// missing ConfigMap (or one deleted by someone: the owns= watch brings us
// back) is created, one that drifted from the spec or that someone edited
// is set right again, a data key the spec dropped is removed, and labels
// or data keys that other field managers added are theirs and stay. There
// is no read-modify-write: nothing is read from the apiserver, and the
// apply is skipped when the cached ConfigMap already matches. A ConfigMap
// of that name that obj does not control is never touched.
//
// Verbs: ConfigMaps are read through the shipped lister (list, watch) and
// written only by that apply, a patch (and a create, to the authorizer,
// when it creates the ConfigMap); no update, get or delete. The wiring
// applies obj's status (+ctrlgen:controller:statusApply, a patch of
// mydemos/status), with status.observedGeneration after a nil error.
func (c *Controller) Reconcile(ctx context.Context, obj *crddemov1.Mydemo) (controller.Result, error) {
	logger := klog.FromContext(ctx).WithValues("mydemo", klog.KObj(obj))
	want := DesiredConfigMap(obj)
	obj.Status.ConfigMapName = want.Name

	current, err := c.configMapLister.ConfigMaps(want.Namespace).Get(want.Name)
	switch {
	case apierrors.IsNotFound(err):
		logger.V(2).Info("Applying a new ConfigMap", "configMap", want.Name)
		err = c.applyConfigMap(ctx, want)
	case err != nil:
	case !metav1.IsControlledBy(current, obj):
		// Someone else's ConfigMap has our name; never take it over.
		err := fmt.Errorf("ConfigMap %s/%s exists and is not controlled by this Mydemo", current.Namespace, current.Name)
		return controller.Result{}, c.fail(obj, "ConfigMapNotOwned", err)
	case !UpToDate(current, want):
		logger.V(2).Info("Applying the ConfigMap", "configMap", want.Name)
		err = c.applyConfigMap(ctx, want)
	}
	if err != nil {
		return controller.Result{}, c.fail(obj, "ConfigMapFailed", err)
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

// applyConfigMap applies want, through kubeClient (client-go's clientset).
func (c *Controller) applyConfigMap(ctx context.Context, want *corev1.ConfigMap) error {
	_, err := c.kubeClient.CoreV1().ConfigMaps(want.Namespace).Apply(ctx, ConfigMapApply(want),
		metav1.ApplyOptions{FieldManager: ControllerName, Force: true})
	return err
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

// ConfigMapApply is want (from DesiredConfigMap) as the apply
// configuration Reconcile sends: the fields the controller owns.
func ConfigMapApply(want *corev1.ConfigMap) *corev1ac.ConfigMapApplyConfiguration {
	ref := want.OwnerReferences[0]
	return corev1ac.ConfigMap(want.Name, want.Namespace).
		WithLabels(want.Labels).
		WithData(want.Data).
		WithOwnerReferences(metav1ac.OwnerReference().
			WithAPIVersion(ref.APIVersion).WithKind(ref.Kind).WithName(ref.Name).WithUID(ref.UID).
			WithController(*ref.Controller).WithBlockOwnerDeletion(*ref.BlockOwnerDeletion))
}

// UpToDate reports whether current has want's data and labels, and no data
// key that this controller applied and want no longer has. Labels and
// data keys other field managers added are theirs: an apply would leave
// them, so they do not count.
func UpToDate(current, want *corev1.ConfigMap) bool {
	for k, v := range want.Labels {
		if l, ok := current.Labels[k]; !ok || l != v {
			return false
		}
	}
	for k, v := range want.Data {
		if d, ok := current.Data[k]; !ok || d != v {
			return false
		}
	}
	if len(current.Data) == len(want.Data) {
		return true
	}
	applied := appliedDataKeys(current)
	for k := range current.Data {
		if _, wanted := want.Data[k]; !wanted && applied["f:"+k] {
			return false
		}
	}
	return true
}

// appliedDataKeys are the data keys ControllerName's applies own, from
// cm's managedFields ({"f:data": {"f:<key>": {}}}), each as "f:<key>".
func appliedDataKeys(cm *corev1.ConfigMap) map[string]bool {
	keys := map[string]bool{}
	for _, e := range cm.ManagedFields {
		if e.Manager != ControllerName || e.Operation != metav1.ManagedFieldsOperationApply || e.FieldsV1 == nil {
			continue
		}
		var fields struct {
			Data map[string]json.RawMessage `json:"f:data"`
		}
		if err := json.Unmarshal(e.FieldsV1.Raw, &fields); err != nil {
			// Unreadable: assume every key is ours, so that an apply settles it.
			for k := range cm.Data {
				keys["f:"+k] = true
			}
			return keys
		}
		for k := range fields.Data {
			keys[k] = true
		}
	}
	return keys
}
