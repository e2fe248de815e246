package secretset

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	setsv1 "github.com/ctrlgen/ctrlgen/examples/configmapset/apis/sets/v1"
	"github.com/ctrlgen/ctrlgen/runtime/cache"
	"github.com/ctrlgen/ctrlgen/runtime/controller"
)

// This file started as the one ctrlgen writes once; it is hand-edited and
// ctrlgen leaves it alone. The wiring is in zz_generated.controller.go.

// Reconcile creates and deletes Secrets itself; ctrlgen derives the rest.
// +kubebuilder:rbac:groups="",resources=secrets,verbs=create;delete

// Reconcile brings set's Secrets to spec.replicas, as ConfigMapSet's does
// for ConfigMaps, from the Secrets' metadata alone: the cache holds no
// Secret's data.
func (c *Controller) Reconcile(ctx context.Context, set *setsv1.SecretSet) (controller.Result, error) {
	children, err := c.ClaimSecrets(ctx, set)
	if err != nil {
		return controller.Result{}, err
	}
	children = slices.DeleteFunc(children, func(s *metav1.PartialObjectMetadata) bool { return s.DeletionTimestamp != nil })
	slices.SortFunc(children, func(a, b *metav1.PartialObjectMetadata) int { return strings.Compare(a.Name, b.Name) })
	set.Status.Replicas = int32(len(children))
	x := c.Expectations()
	var errs []error
	switch diff := int(set.Spec.Replicas) - len(children); {
	case diff > 0:
		x.ExpectCreations(set, diff)
		for range diff {
			if _, err := c.kubeClient.CoreV1().Secrets(set.Namespace).Create(ctx, desired(set), metav1.CreateOptions{}); err != nil {
				x.CreationObserved(set) // no event will come
				errs = append(errs, err)
			}
		}
	case diff < 0:
		victims := children[:-diff]
		keys := make([]cache.ObjectName, len(victims))
		for i, s := range victims {
			keys[i] = cache.MetaObjectName(s)
		}
		x.ExpectDeletions(set, keys)
		for i, s := range victims {
			err := c.kubeClient.CoreV1().Secrets(s.Namespace).Delete(ctx, s.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &s.UID}})
			if err != nil {
				x.DeletionObserved(set, keys[i])
				if !apierrors.IsNotFound(err) {
					errs = append(errs, err)
				}
			}
		}
	}
	return controller.Result{}, errors.Join(errs...)
}

func desired(set *setsv1.SecretSet) *corev1.Secret {
	var lbls map[string]string
	if set.Spec.Selector != nil {
		lbls = maps.Clone(set.Spec.Selector.MatchLabels)
	}
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			GenerateName:    set.Name + "-",
			Namespace:       set.Namespace,
			Labels:          lbls,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(set, setsv1.SchemeGroupVersion.WithKind("SecretSet"))},
		},
		Data: set.Spec.Data,
	}
}
