package controller

import (
	"fmt"
	"maps"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientcache "k8s.io/client-go/tools/cache"

	"github.com/ctrlgen/ctrlgen/runtime/cache"
)

// Owner names the kind a controller reconciles, as it appears in the
// ownerReferences of the objects it owns.
type Owner struct {
	schema.GroupKind
	// Namespaced owners live in their dependents' namespace; cluster-scoped
	// ones have none.
	Namespaced bool
}

// WatchOwned makes c reconcile the owner named by the controller reference
// of every object of informer, as kube-controller-manager's Deployment
// controller does for its ReplicaSets. When an update moves an object to
// another owner, both owners are reconciled. With Options.Expectations,
// each add lowers the owner's expected creations, and each delete, or
// update that begins a graceful deletion, its expected deletions. Call it
// before Run.
func WatchOwned[O cache.Object, T cache.Object](c *Controller[T], informer clientcache.TypedSharedIndexInformer[O], owner Owner) error {
	return watchOwned(c, informer, owner, nil)
}

// WatchOwnedAdopting is WatchOwned for an owner that adopts by its label
// selector: an orphan, when it is added or its labels change, also queues
// every owner whose selector matches it (before and after the change), so
// that Reconcile can Claim it.
func WatchOwnedAdopting[O cache.Object, T cache.Object](c *Controller[T], informer clientcache.TypedSharedIndexInformer[O], owner Owner, a *Adoption[T, O]) error {
	return watchOwned(c, informer, owner, a)
}

func watchOwned[O cache.Object, T cache.Object](c *Controller[T], informer clientcache.TypedSharedIndexInformer[O], owner Owner, a *Adoption[T, O]) error {
	x := c.opts.Expectations
	orphan := func(obj O) {
		if a != nil && metav1.GetControllerOfNoCopy(obj) == nil && obj.GetDeletionTimestamp() == nil {
			a.orphanOwners(c, owner, obj, c.Enqueue)
		}
	}
	reg, err := informer.AddTypedEventHandler(named[O]{c.opts.Name, clientcache.TypedResourceEventHandlerFuncs[O]{
		AddFunc: func(obj O) {
			key, ok := owner.keyOf(obj)
			if !ok {
				orphan(obj)
				return
			}
			if x != nil {
				if obj.GetDeletionTimestamp() != nil {
					x.deletionObserved(key, cache.MetaObjectName(obj))
				} else {
					x.creationObserved(key)
				}
			}
			c.Enqueue(key)
		},
		UpdateFunc: func(old, obj O) {
			oldKey, oldOK := owner.keyOf(old)
			newKey, newOK := owner.keyOf(obj)
			if x != nil && newOK && old.GetDeletionTimestamp() == nil && obj.GetDeletionTimestamp() != nil {
				// A graceful deletion has begun: as good as deleted.
				x.deletionObserved(newKey, cache.MetaObjectName(obj))
			}
			if oldOK && (!newOK || oldKey != newKey) {
				c.Enqueue(oldKey)
			}
			if newOK {
				c.Enqueue(newKey)
			} else if !maps.Equal(old.GetLabels(), obj.GetLabels()) || oldOK {
				orphan(old)
				orphan(obj)
			}
		},
		DeleteFunc: func(d clientcache.DeletedObject[O]) {
			var zero O
			if d.OptionalObj == zero {
				return
			}
			key, ok := owner.keyOf(d.OptionalObj)
			if !ok {
				return
			}
			if x != nil {
				x.deletionObserved(key, d.GetObjectName())
			}
			c.Enqueue(key)
		},
	}})
	if err != nil {
		return fmt.Errorf("controller %s: watch owned objects: %w", c.opts.Name, err)
	}
	c.synced = append(c.synced, reg.HasSynced)
	return nil
}

// keyOf returns the key of obj's controlling owner, if it is of this kind.
func (o Owner) keyOf(obj metav1.Object) (cache.ObjectName, bool) {
	ref := metav1.GetControllerOf(obj)
	if ref == nil || ref.Kind != o.Kind {
		return cache.ObjectName{}, false
	}
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil || gv.Group != o.Group {
		return cache.ObjectName{}, false
	}
	ns := ""
	if o.Namespaced {
		ns = obj.GetNamespace()
	}
	return cache.ObjectName{Namespace: ns, Name: ref.Name}, true
}
