package fakeclient

import (
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/client-go/testing"
)

// managedTracker is client-go's testing.NewFieldManagedObjectTracker over
// a storage tracker the Tracker also holds, so that Add can store objects
// as client-go's does, without the field manager (which stamps apiVersion
// and kind on them). Create, Update, Patch and Apply go through the field
// manager as client-go's do; resources map to kinds by the clientset's
// kinds rather than by guessing.
type managedTracker struct {
	testing.ObjectTracker
	scheme        *runtime.Scheme
	typeConverter managedfields.TypeConverter
	kindFor       func(schema.GroupVersionResource) (schema.GroupVersionKind, bool)
}

func optional[T any](opts []T) (T, error) {
	var zero T
	switch len(opts) {
	case 0:
		return zero, nil
	case 1:
		return opts[0], nil
	}
	return zero, fmt.Errorf("expected only one option argument but got %d", len(opts))
}

// manager returns the field manager of gvr's kind.
func (t *managedTracker) manager(gvr schema.GroupVersionResource) (schema.GroupVersionKind, *managedfields.FieldManager, error) {
	gvk, ok := t.kindFor(gvr)
	if !ok {
		return gvk, nil, fmt.Errorf("no kind is registered for the resource %v", gvr)
	}
	mgr, err := managedfields.NewDefaultFieldManager(t.typeConverter, t.scheme, noDefaults{}, t.scheme, gvk, gvk.GroupVersion(), "", nil)
	return gvk, mgr, err
}

// live returns the stored object called name, or a new object of gvk and
// false.
func (t *managedTracker) live(gvr schema.GroupVersionResource, gvk schema.GroupVersionKind, ns, name string) (runtime.Object, bool, error) {
	obj, err := t.ObjectTracker.Get(gvr, ns, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		if obj, err = t.scheme.New(gvk); err != nil {
			return nil, false, err
		}
		obj.GetObjectKind().SetGroupVersionKind(gvk)
		return obj, false, nil
	}
	return obj, err == nil, err
}

func (t *managedTracker) Create(gvr schema.GroupVersionResource, obj runtime.Object, ns string, vopts ...metav1.CreateOptions) error {
	opts, err := optional(vopts)
	if err != nil {
		return err
	}
	gvk, mgr, err := t.manager(gvr)
	if err != nil {
		return err
	}
	// As client-go's: a created object is stamped with its kind.
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	acc, err := meta.Accessor(obj)
	if err != nil {
		return err
	}
	live, _, err := t.live(gvr, gvk, ns, acc.GetName())
	if err != nil {
		return err
	}
	managed, err := mgr.Update(live, obj, opts.FieldManager)
	if err != nil {
		return err
	}
	return t.ObjectTracker.Create(gvr, managed, ns, opts)
}

func (t *managedTracker) Update(gvr schema.GroupVersionResource, obj runtime.Object, ns string, vopts ...metav1.UpdateOptions) error {
	opts, err := optional(vopts)
	if err != nil {
		return err
	}
	managed, err := t.overStored(gvr, obj, ns, opts.FieldManager)
	if err != nil {
		return err
	}
	return t.ObjectTracker.Update(gvr, managed, ns, opts)
}

func (t *managedTracker) Patch(gvr schema.GroupVersionResource, obj runtime.Object, ns string, vopts ...metav1.PatchOptions) error {
	opts, err := optional(vopts)
	if err != nil {
		return err
	}
	managed, err := t.overStored(gvr, obj, ns, opts.FieldManager)
	if err != nil {
		return err
	}
	return t.ObjectTracker.Patch(gvr, managed, ns, vopts...)
}

// overStored is obj with the managed fields of an update by manager over
// the stored object of its name.
func (t *managedTracker) overStored(gvr schema.GroupVersionResource, obj runtime.Object, ns, manager string) (runtime.Object, error) {
	_, mgr, err := t.manager(gvr)
	if err != nil {
		return nil, err
	}
	acc, err := meta.Accessor(obj)
	if err != nil {
		return nil, err
	}
	old, err := t.ObjectTracker.Get(gvr, ns, acc.GetName(), metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return mgr.Update(old, obj, manager)
}

func (t *managedTracker) Apply(gvr schema.GroupVersionResource, applyConfiguration runtime.Object, ns string, vopts ...metav1.PatchOptions) error {
	opts, err := optional(vopts)
	if err != nil {
		return err
	}
	gvk, mgr, err := t.manager(gvr)
	if err != nil {
		return err
	}
	acc, err := meta.Accessor(applyConfiguration)
	if err != nil {
		return err
	}
	live, exists, err := t.live(gvr, gvk, ns, acc.GetName())
	if err != nil {
		return err
	}
	force := opts.Force != nil && *opts.Force
	managed, err := mgr.Apply(live, applyConfiguration, opts.FieldManager, force)
	if err != nil {
		return err
	}
	if !exists {
		return t.ObjectTracker.Create(gvr, managed, ns, metav1.CreateOptions{
			DryRun: opts.DryRun, FieldManager: opts.FieldManager, FieldValidation: opts.FieldValidation,
		})
	}
	return t.ObjectTracker.Update(gvr, managed, ns, metav1.UpdateOptions{
		DryRun: opts.DryRun, FieldManager: opts.FieldManager, FieldValidation: opts.FieldValidation,
	})
}

// noDefaults is the field manager's defaulter: a fake applies no defaults.
type noDefaults struct{}

func (noDefaults) Default(runtime.Object) {}
