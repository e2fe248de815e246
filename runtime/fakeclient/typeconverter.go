package fakeclient

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// jsonTypeConverter is a managedfields.TypeConverter that hands typed
// objects to the field manager as the apiserver does custom resources:
// as their JSON, decoded without types. structured-merge-diff reads a
// typed object by reflection, which panics on a type it does not know,
// a fixed-size array such as [4]byte among them, and apimachinery's
// unstructured converter, which turns its results back into typed
// objects, fails on them; encoding/json knows every type a client can
// send. TypedToObject returns typed objects, decoded from the JSON, for
// the kinds of the scheme.
type jsonTypeConverter struct {
	inner  managedfields.TypeConverter
	scheme *runtime.Scheme
}

func (c jsonTypeConverter) ObjectToTyped(obj runtime.Object, opts ...typed.ValidationOptions) (tv *typed.TypedValue, err error) {
	if _, ok := obj.(runtime.Unstructured); !ok {
		gvk := obj.GetObjectKind().GroupVersionKind()
		if gvk.Empty() {
			gvks, _, err := c.scheme.ObjectKinds(obj)
			if err != nil {
				return nil, err
			}
			gvk = gvks[0]
		}
		data, err := json.Marshal(obj)
		if err != nil {
			return nil, err
		}
		u := &unstructured.Unstructured{}
		if err := utiljson.Unmarshal(data, &u.Object); err != nil {
			return nil, err
		}
		u.SetGroupVersionKind(gvk)
		obj = u
	}
	// Unstructured content never reaches reflection; a panic would be a
	// bug of structured-merge-diff's that must not end the tests.
	defer func() {
		if r := recover(); r != nil {
			tv, err = nil, fmt.Errorf("converting %s to a typed value: %v", obj.GetObjectKind().GroupVersionKind(), r)
		}
	}()
	return c.inner.ObjectToTyped(obj, opts...)
}

func (c jsonTypeConverter) TypedToObject(value *typed.TypedValue) (runtime.Object, error) {
	obj, err := c.inner.TypedToObject(value)
	if err != nil {
		return nil, err
	}
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return obj, nil
	}
	gvk := u.GroupVersionKind()
	if !c.scheme.Recognizes(gvk) {
		return u, nil
	}
	out, err := c.scheme.New(gvk)
	if err != nil {
		return nil, err
	}
	if _, ok := out.(runtime.Unstructured); ok {
		return u, nil
	}
	data, err := json.Marshal(u.Object)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, out); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", gvk, err)
	}
	out.GetObjectKind().SetGroupVersionKind(gvk)
	return out, nil
}
