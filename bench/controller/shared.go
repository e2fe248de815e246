package controllerbench

import (
	"fmt"
	"maps"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	crddemov1 "github.com/ctrlgen/ctrlgen/examples/mydemo/apis/crddemo/v1"
	"github.com/ctrlgen/ctrlgen/examples/mydemo/controllers/mydemo"
	"github.com/ctrlgen/ctrlgen/runtime/manager"
)

// The pure parts of the mydemo controller, shared by the client-go
// controller and the floor: what the ConfigMap of a Mydemo holds
// (reconcile.go's DesiredConfigMap and UpToDate) and what its status says.
// TestSharedPartsMatchReconcileGo runs reconcile.go's Reconcile and fails
// when the client-go controller's reconcile drifts from it.

// Workers is the number of concurrent reconciles (and floor workers), and
// the number of goroutines creating Mydemos.
const Workers = 16

// ClientLimits are the QPS and Burst of every client of every
// implementation: the ctrlgen manager's defaults.
func ClientLimits() (qps float32, burst int) {
	o := manager.DefaultOptions()
	return o.QPS, o.Burst
}

// NewMydemo is the i-th Mydemo of a run.
func NewMydemo(namespace string, i int) *crddemov1.Mydemo {
	return &crddemov1.Mydemo{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: fmt.Sprintf("md-%05d", i)},
		Spec: crddemov1.MydemoSpec{
			IP:   fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255),
			Port: int32(8000 + i%1000),
			Data: map[string]string{"index": strconv.Itoa(i), "mode": "bench"},
		},
	}
}

// withSpec returns a copy of current carrying want's data and labels.
func withSpec(current, want *corev1.ConfigMap) *corev1.ConfigMap {
	updated := current.DeepCopy()
	updated.Data = want.Data
	if updated.Labels == nil {
		updated.Labels = map[string]string{}
	}
	maps.Copy(updated.Labels, want.Labels)
	return updated
}

// markReady records in obj's status that its ConfigMap matches the spec.
// observedGeneration is set by the loop after a successful reconcile, as
// ctrlgen's wiring does.
func markReady(obj *crddemov1.Mydemo) {
	obj.Status.ConfigMapName = mydemo.ConfigMapName(obj)
	meta.SetStatusCondition(&obj.Status.Conditions, metav1.Condition{
		Type:               mydemo.ConditionReady,
		Status:             metav1.ConditionTrue,
		Reason:             "ConfigMapReady",
		Message:            fmt.Sprintf("ConfigMap %s matches the spec", mydemo.ConfigMapName(obj)),
		ObservedGeneration: obj.Generation,
	})
}

// markFailed records err in obj's Ready condition.
func markFailed(obj *crddemov1.Mydemo, reason string, err error) {
	meta.SetStatusCondition(&obj.Status.Conditions, metav1.Condition{
		Type:               mydemo.ConditionReady,
		Status:             metav1.ConditionFalse,
		Reason:             reason,
		Message:            err.Error(),
		ObservedGeneration: obj.Generation,
	})
}

// IsReady reports whether obj's status says Ready for its current
// generation, with its ConfigMap named.
func IsReady(obj *crddemov1.Mydemo) bool {
	c := meta.FindStatusCondition(obj.Status.Conditions, mydemo.ConditionReady)
	return c != nil && c.Status == metav1.ConditionTrue && c.ObservedGeneration == obj.Generation &&
		obj.Status.ObservedGeneration == obj.Generation && obj.Status.ConfigMapName == mydemo.ConfigMapName(obj)
}

// CheckConfigMap returns an error unless cm is obj's ConfigMap as the
// controller renders it, controlled by obj.
func CheckConfigMap(obj *crddemov1.Mydemo, cm *corev1.ConfigMap) error {
	want := mydemo.DesiredConfigMap(obj)
	switch {
	case cm.Name != want.Name:
		return fmt.Errorf("ConfigMap %s, want %s", cm.Name, want.Name)
	case !mydemo.UpToDate(cm, want):
		return fmt.Errorf("ConfigMap %s: data %v labels %v, want data %v labels %v", cm.Name, cm.Data, cm.Labels, want.Data, want.Labels)
	case !metav1.IsControlledBy(cm, obj):
		return fmt.Errorf("ConfigMap %s is not controlled by Mydemo %s (uid %s): %+v", cm.Name, obj.Name, obj.UID, cm.OwnerReferences)
	}
	ref := metav1.GetControllerOf(cm)
	if ref.APIVersion != "crddemo.k8s.io/v1" || ref.Kind != "Mydemo" || ref.BlockOwnerDeletion == nil || !*ref.BlockOwnerDeletion {
		return fmt.Errorf("ConfigMap %s: controller reference %+v", cm.Name, *ref)
	}
	return nil
}
