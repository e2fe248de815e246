package v2

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	crddemov1 "github.com/ctrlgen/ctrlgen/examples/mydemo/apis/crddemo/v1"
	"github.com/ctrlgen/ctrlgen/runtime/conversion"
)

// FuzzRoundTrip converts Mydemos both ways: v2 → v1 (the hub) → v2 and
// v1 → v2 → v1 give back deep-equal objects, whatever the fields hold.
// make test runs the seeds; go test -fuzz=FuzzRoundTrip explores.
func FuzzRoundTrip(f *testing.F) {
	f.Add("10.0.0.1", int32(80), "TCP", "k", "v", "note", "x", int64(2), "sample-config", "Ready", true)
	f.Add("", int32(0), "", "", "", "", "", int64(0), "", "", false)
	f.Add("::1", int32(65535), "UDP", "ip", "", "conversion.ctrlgen.dev/v3", "{}", int64(-1), "", "Other", false)
	f.Fuzz(func(t *testing.T, address string, port int32, protocol, key, value, annotation, annotationValue string, generation int64, configMap, condition string, withData bool) {
		if strings.HasPrefix(annotation, conversion.AnnotationPrefix+"v") && (strings.HasSuffix(annotation, "/v1") || strings.HasSuffix(annotation, "/v2")) {
			t.Skip("the conversions' own annotations")
		}
		for _, s := range []string{address, protocol, key, value, annotation, annotationValue, configMap, condition} {
			if !utf8.ValidString(s) {
				t.Skip("not UTF-8: objects come as JSON, whose strings are")
			}
		}
		meta := metav1.ObjectMeta{Name: "fuzzed", Namespace: "default", Generation: generation}
		if annotation != "" {
			meta.Annotations = map[string]string{annotation: annotationValue}
		}
		var data map[string]string
		if withData {
			data = map[string]string{key: value}
		}
		var conditions []metav1.Condition
		if condition != "" {
			conditions = []metav1.Condition{{Type: condition, Status: metav1.ConditionTrue, ObservedGeneration: generation, Message: value}}
		}

		v2 := &Mydemo{ObjectMeta: meta,
			Spec:   MydemoSpec{Address: address, Port: port, Protocol: protocol, Data: data},
			Status: MydemoStatus{ObservedGeneration: generation, ConfigMapName: configMap, Conditions: conditions}}
		hub := &crddemov1.Mydemo{}
		if err := v2.DeepCopy().ConvertTo(hub); err != nil {
			t.Fatal(err)
		}
		if hub.Spec.IP != address {
			t.Errorf("v1 ip = %q, want %q", hub.Spec.IP, address)
		}
		back := &Mydemo{}
		if err := back.ConvertFrom(hub); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back, v2) {
			t.Errorf("v2 → v1 → v2:\n got %#v\nwant %#v", back, v2)
		}

		v1 := &crddemov1.Mydemo{ObjectMeta: meta,
			Spec:   crddemov1.MydemoSpec{IP: address, Port: port, Data: data},
			Status: crddemov1.MydemoStatus{ObservedGeneration: generation, ConfigMapName: configMap, Conditions: conditions}}
		spoke := &Mydemo{}
		if err := spoke.ConvertFrom(v1.DeepCopy()); err != nil {
			t.Fatal(err)
		}
		hubBack := &crddemov1.Mydemo{}
		if err := spoke.ConvertTo(hubBack); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(hubBack, v1) {
			t.Errorf("v1 → v2 → v1:\n got %#v\nwant %#v", hubBack, v1)
		}
	})
}

// TestProtocolIsKeptOnV1: v1 has no place for protocol; the annotation
// keeps it, and a v1 client's change to the ip still shows in v2.
func TestProtocolIsKeptOnV1(t *testing.T) {
	v2 := &Mydemo{ObjectMeta: metav1.ObjectMeta{Name: "m"}, Spec: MydemoSpec{Address: "10.0.0.1", Port: 53, Protocol: "UDP"}}
	hub := &crddemov1.Mydemo{}
	if err := v2.ConvertTo(hub); err != nil {
		t.Fatal(err)
	}
	if got, want := hub.Annotations["conversion.ctrlgen.dev/v2"], `{"spec.protocol":"UDP"}`; got != want {
		t.Fatalf("annotation = %q, want %q", got, want)
	}
	hub.Spec.IP = "10.0.0.2"
	back := &Mydemo{}
	if err := back.ConvertFrom(hub); err != nil {
		t.Fatal(err)
	}
	if back.Spec.Address != "10.0.0.2" || back.Spec.Protocol != "UDP" || back.Annotations != nil {
		t.Errorf("v2 after a v1 change: %+v, annotations %v", back.Spec, back.Annotations)
	}
}
