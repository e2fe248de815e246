package jsoncodec

import (
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func TestRegisteredKindsAreTheScheme(t *testing.T) {
	a, b := runtime.NewScheme(), runtime.NewScheme()
	status := NewKind(func(*Decoder, *metav1.Status) {})
	list := NewKind(func(*Decoder, *metav1.List) {})
	Register(a, status)
	Register(a, list)
	got := Registered(a)
	if len(got) != 2 || got[0].typ != reflect.TypeFor[metav1.Status]() || got[1].typ != reflect.TypeFor[metav1.List]() {
		t.Errorf("Registered(a) = %v, want Status then List", got)
	}
	if got := Registered(b); len(got) != 0 {
		t.Errorf("Registered(b) = %v, want none", got)
	}
	// What Registered returned is the caller's: a later Register does not
	// write into it.
	got = Registered(a)
	Register(a, status)
	if len(got) != 2 || len(Registered(a)) != 3 {
		t.Errorf("after a third Register: earlier result %d kinds, now %d; want 2 and 3", len(got), len(Registered(a)))
	}
}
