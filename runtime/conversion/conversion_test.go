package conversion

import (
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestKeptFieldsRoundTrip(t *testing.T) {
	shared := map[string]string{"a": "b"}
	meta := metav1.ObjectMeta{Annotations: shared}
	var keep KeptFields
	for _, kf := range []struct {
		path      string
		v, backed any
	}{
		{"spec.tier", "gold", ""},         // lost on the way back: kept
		{"spec.host", "h", "h"},           // comes back anyway: not kept
		{"spec.zero", int32(0), nil},      // zero, parent gone: not kept
		{"spec.cleared", "", "default"},   // zero where the way back sets one: kept
		{"spec.list", []string{"x"}, nil}, // kept
	} {
		if err := keep.Keep(kf.path, kf.v, kf.backed); err != nil {
			t.Fatal(err)
		}
	}
	if err := Put(&meta, "v2", keep); err != nil {
		t.Fatal(err)
	}
	if got, want := meta.Annotations[AnnotationPrefix+"v2"], `{"spec.cleared":"","spec.list":["x"],"spec.tier":"gold"}`; got != want {
		t.Errorf("annotation %s, want %s", got, want)
	}
	if len(shared) != 1 {
		t.Errorf("Put changed the annotations the object shared: %v", shared)
	}
	withKept := meta.Annotations
	kept, err := Take(&meta, "v2")
	if err != nil {
		t.Fatal(err)
	}
	if len(withKept) != 2 || !reflect.DeepEqual(meta.Annotations, map[string]string{"a": "b"}) {
		t.Errorf("Take: annotations %v, and the map it was given %v", meta.Annotations, withKept)
	}
	var tier, cleared string
	cleared = "default"
	var list []string
	for path, ptr := range map[string]any{"spec.tier": &tier, "spec.cleared": &cleared, "spec.list": &list, "spec.absent": &tier} {
		if err := kept.Restore(path, ptr); err != nil {
			t.Fatal(err)
		}
	}
	if tier != "gold" || cleared != "" || !reflect.DeepEqual(list, []string{"x"}) {
		t.Errorf("restored %q %q %v", tier, cleared, list)
	}
	if !kept.Has("spec") || kept.Has("spe") || kept.Has("spec.tier") {
		t.Error("Has matches whole path elements that lead somewhere kept")
	}

	// Nothing kept: the annotation goes, and no annotations at all is nil.
	only := metav1.ObjectMeta{Annotations: map[string]string{AnnotationPrefix + "v2": "{}"}}
	if err := Put(&only, "v2", nil); err != nil {
		t.Fatal(err)
	}
	if only.Annotations != nil {
		t.Errorf("annotations %v, want nil", only.Annotations)
	}
}

func TestTakeRefusesAMalformedAnnotation(t *testing.T) {
	meta := metav1.ObjectMeta{Annotations: map[string]string{AnnotationPrefix + "v1": "{not json"}}
	if _, err := Take(&meta, "v1"); err == nil || !strings.Contains(err.Error(), "annotation conversion.ctrlgen.dev/v1") {
		t.Errorf("err = %v", err)
	}
	if kept, err := Take(&metav1.ObjectMeta{}, "v1"); kept != nil || err != nil {
		t.Errorf("no annotation: %v %v", kept, err)
	}
}
