// Package conversion is what API packages need to convert between the
// versions of a kind, without the webhook that serves it
// (runtime/webhook/conversion): the Hub and Convertible interfaces, with
// controller-runtime's names and methods, and the annotation that keeps
// the fields one version cannot hold for a round trip through another.
//
// ctrlgen's conversion generator writes these methods: every field two
// versions share is copied, and only the differences call functions the
// user writes.
package conversion

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Hub is the version every other converts to and from: the storage
// version.
type Hub interface {
	runtime.Object
	Hub()
}

// Convertible is a version other than the hub: a spoke.
type Convertible interface {
	runtime.Object
	ConvertTo(dst Hub) error
	ConvertFrom(src Hub) error
}

// AnnotationPrefix begins the annotation that keeps, on an object of one
// version, the fields of another version it has no place for:
// "conversion.ctrlgen.dev/v2" on a v1 object holds the v2 fields v1
// cannot hold, as a JSON object from each field's JSON path
// ("spec.replicas") to its value.
const AnnotationPrefix = "conversion.ctrlgen.dev/"

// KeptFields are the values of fields kept for another version, by JSON
// path.
type KeptFields map[string]json.RawMessage

// Take removes the annotation with the fields of version kept on meta and
// returns them. The annotations are copied before they change, as meta
// may share them with the object it was converted from; no annotations
// left is nil, as a decoded object without any has.
func Take(meta *metav1.ObjectMeta, version string) (KeptFields, error) {
	key := AnnotationPrefix + version
	value, ok := meta.Annotations[key]
	if !ok {
		return nil, nil
	}
	remove(meta, key)
	var kept KeptFields
	if err := json.Unmarshal([]byte(value), &kept); err != nil {
		return nil, fmt.Errorf("annotation %s: %w", key, err)
	}
	return kept, nil
}

// Keep adds v at path unless converting back gives it anyway: unless
// roundTripped, the field's value in the object converted back, is equal
// to it, or v is its type's zero value and the field's parent did not
// survive the way back (roundTripped is nil).
func (k *KeptFields) Keep(path string, v, roundTripped any) error {
	if roundTripped == nil && reflect.ValueOf(v).IsZero() || reflect.DeepEqual(v, roundTripped) {
		return nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("keeping %s: %w", path, err)
	}
	if *k == nil {
		*k = KeptFields{}
	}
	(*k)[path] = raw
	return nil
}

// Restore sets *ptr to the value kept at path, if one was.
func (k KeptFields) Restore(path string, ptr any) error {
	raw, ok := k[path]
	if !ok {
		return nil
	}
	if err := json.Unmarshal(raw, ptr); err != nil {
		return fmt.Errorf("restoring %s: %w", path, err)
	}
	return nil
}

// Has reports whether a value was kept at a path starting with prefix,
// so that a converter allocates the pointers on the way to it.
func (k KeptFields) Has(prefix string) bool {
	for path := range k {
		if strings.HasPrefix(path, prefix+".") {
			return true
		}
	}
	return false
}

// Put sets the annotation with the fields of version kept on meta, or
// removes it when none are; meta's annotations are copied first.
func Put(meta *metav1.ObjectMeta, version string, kept KeptFields) error {
	key := AnnotationPrefix + version
	if len(kept) == 0 {
		if _, ok := meta.Annotations[key]; ok {
			remove(meta, key)
		}
		return nil
	}
	value, err := json.Marshal(kept) // maps marshal with sorted keys
	if err != nil {
		return fmt.Errorf("annotation %s: %w", key, err)
	}
	meta.Annotations = maps.Clone(meta.Annotations)
	if meta.Annotations == nil {
		meta.Annotations = map[string]string{}
	}
	meta.Annotations[key] = string(value)
	return nil
}

// remove deletes the annotation key from a copy of meta's annotations; no
// annotations left is nil, as a decoded object without any has.
func remove(meta *metav1.ObjectMeta, key string) {
	meta.Annotations = maps.Clone(meta.Annotations)
	delete(meta.Annotations, key)
	if len(meta.Annotations) == 0 {
		meta.Annotations = nil
	}
}

// WrongHub is the error of a ConvertTo or ConvertFrom given a hub of
// another type than want.
func WrongHub(got Hub, want any) error {
	return fmt.Errorf("conversion hub is %T, not %T", got, want)
}
