package backup

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	opsv1 "example.com/rbacnamespaces/apis/ops/v1"
	"github.com/ctrlgen/ctrlgen/runtime/controller"
)

// What Reconcile writes itself, which ctrlgen cannot derive, where
// kubebuilder users put it: next to Reconcile.
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=create;update
// +kubebuilder:rbac:groups=ops.example.com,resources=backups/status,verbs=get
// +kubebuilder:rbac:groups=batch,resources=jobs,verbs=create;delete,namespace=backup-jobs
// +kubebuilder:rbac:groups="",resources=secrets,resourceNames=backup-credentials,verbs=get,namespace=backup-jobs,roleName=backup-credentials-reader

// Reconcile creates a ConfigMap for obj.
func (c *Controller) Reconcile(ctx context.Context, obj *opsv1.Backup) (controller.Result, error) {
	_, err := c.configMapLister.ConfigMaps(obj.Namespace).Get(obj.Name)
	_ = metav1.Now()
	return controller.Result{}, err
}

// Finalize has nothing to clean up.
func (c *Controller) Finalize(ctx context.Context, obj *opsv1.Backup) error { return nil }
