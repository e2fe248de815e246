package controller

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/ctrlgen/ctrlgen/runtime/cache"
)

// Adoption lets an owner with a label selector claim objects as
// kube-controller-manager's ControllerRefManager does for ReplicaSets and
// Deployments: an orphan its selector matches is adopted, and a child
// that stops matching is released. WatchOwnedAdopting wires it into the
// owned informer's events, and Claim runs it in Reconcile.
type Adoption[T cache.Object, O cache.Object] struct {
	// OwnerKind is the owner's group, version and kind, for the controller
	// references it sets.
	OwnerKind schema.GroupVersionKind
	// Selector returns owner's label selector.
	Selector func(owner T) (labels.Selector, error)
	// Get reads the owner from the apiserver. Before it adopts anything,
	// the owner is read live: a cached owner that was deleted, or deleted
	// and created again, must not take orphans.
	Get func(ctx context.Context, key cache.ObjectName) (T, error)
	// Patch sends a JSON patch (RFC 6902) for child.
	Patch func(ctx context.Context, child O, patch []byte) error
}

// Claim returns the objects among candidates that owner controls and its
// selector matches. On the way it adopts the orphans the selector
// matches, and releases the objects it controls that the selector no
// longer matches. An owner being deleted adopts and releases nothing, and
// an object another controller owns is left alone. The errors of single
// objects are joined; the objects claimed despite them are returned.
func Claim[T cache.Object, O cache.Object](ctx context.Context, a *Adoption[T, O], owner T, candidates []O) ([]O, error) {
	selector, err := a.Selector(owner)
	if err != nil {
		return nil, fmt.Errorf("%s %s: label selector: %w", a.OwnerKind.Kind, cache.MetaObjectName(owner), err)
	}
	deleting := owner.GetDeletionTimestamp() != nil
	recheck := sync.OnceValue(func() error { return a.canAdopt(ctx, owner) })
	var claimed []O
	var errs []error
	for _, obj := range candidates {
		matches := selector.Matches(labels.Set(obj.GetLabels()))
		if ref := metav1.GetControllerOfNoCopy(obj); ref != nil {
			switch {
			case ref.UID != owner.GetUID():
			case matches:
				claimed = append(claimed, obj)
			case !deleting:
				if err := a.release(ctx, owner, obj); err != nil {
					errs = append(errs, err)
				}
			}
			continue
		}
		if deleting || !matches || obj.GetDeletionTimestamp() != nil ||
			(owner.GetNamespace() != "" && owner.GetNamespace() != obj.GetNamespace()) {
			continue
		}
		if err := recheck(); err != nil {
			errs = append(errs, err)
			break
		}
		switch err := a.adopt(ctx, owner, obj); {
		case err == nil:
			claimed = append(claimed, obj)
		case apierrors.IsNotFound(err):
		default:
			errs = append(errs, err)
		}
	}
	return claimed, errors.Join(errs...)
}

// canAdopt reads the owner live and refuses when it is gone, was
// replaced, or is being deleted.
func (a *Adoption[T, O]) canAdopt(ctx context.Context, owner T) error {
	key := cache.MetaObjectName(owner)
	fresh, err := a.Get(ctx, key)
	if err != nil {
		return fmt.Errorf("%s %s: reading it before adopting: %w", a.OwnerKind.Kind, key, err)
	}
	if fresh.GetUID() != owner.GetUID() {
		return fmt.Errorf("%s %s: not adopting: it was replaced (uid %s, cached %s)", a.OwnerKind.Kind, key, fresh.GetUID(), owner.GetUID())
	}
	if fresh.GetDeletionTimestamp() != nil {
		return fmt.Errorf("%s %s: not adopting: it is being deleted", a.OwnerKind.Kind, key)
	}
	return nil
}

// adopt adds owner's controller reference to obj, as of the version
// cached: a patch to a newer version fails, and the retry looks again.
func (a *Adoption[T, O]) adopt(ctx context.Context, owner T, obj O) error {
	refs := append(obj.GetOwnerReferences(), *metav1.NewControllerRef(owner, a.OwnerKind))
	return a.patchOwnerReferences(ctx, obj, refs, "adopting")
}

// release removes owner's reference from obj, as of the version cached.
// An obj deleted meanwhile is released already.
func (a *Adoption[T, O]) release(ctx context.Context, owner T, obj O) error {
	var refs []metav1.OwnerReference
	for _, r := range obj.GetOwnerReferences() {
		if r.UID != owner.GetUID() {
			refs = append(refs, r)
		}
	}
	err := a.patchOwnerReferences(ctx, obj, refs, "releasing")
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

func (a *Adoption[T, O]) patchOwnerReferences(ctx context.Context, obj O, refs []metav1.OwnerReference, doing string) error {
	if refs == nil {
		refs = []metav1.OwnerReference{}
	}
	type op struct {
		Op    string `json:"op"`
		Path  string `json:"path"`
		Value any    `json:"value"`
	}
	patch, err := json.Marshal([]op{
		{"test", "/metadata/uid", obj.GetUID()},
		{"test", "/metadata/resourceVersion", obj.GetResourceVersion()},
		{"add", "/metadata/ownerReferences", refs},
	})
	if err != nil {
		return err
	}
	if err := a.Patch(ctx, obj, patch); err != nil {
		return fmt.Errorf("%s %s: %w", doing, cache.MetaObjectName(obj), err)
	}
	return nil
}

// orphanOwners queues the owners whose selector matches an orphan's
// labels, for them to adopt it.
func (a *Adoption[T, O]) orphanOwners(c *Controller[T], owner Owner, obj O, enqueue func(cache.ObjectName)) {
	var owners []T
	if owner.Namespaced {
		owners = c.cached.ListNamespace(obj.GetNamespace())
	} else {
		owners = c.cached.ListAll()
	}
	set := labels.Set(obj.GetLabels())
	for _, o := range owners {
		if s, err := a.Selector(o); err == nil && s.Matches(set) {
			enqueue(cache.MetaObjectName(o))
		}
	}
}
