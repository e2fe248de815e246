package v2

import (
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	shopv1 "example.com/conversion/apis/shop/v1"
)

// TestRoundTrips converts each way and back: every field, those only one
// version has included, comes back as it was.
func TestRoundTrips(t *testing.T) {
	v2 := &Widget{
		ObjectMeta: metav1.ObjectMeta{Name: "w", Annotations: map[string]string{"a": "b"}},
		Spec: WidgetSpec{Common: Common{Owner: "me"}, Host: "10.0.0.1", Tier: "gold", Timeout: 90, Color: "red",
			Parts: []Part{{Name: "p", Count: 2}}, ByName: map[string]Part{"q": {Name: "q"}},
			Limits: &Limits{CPU: "1"}, Labels: map[string]string{"l": "v"}},
		Status: WidgetStatus{Conditions: []metav1.Condition{{Type: "Ready", Status: "True"}}},
	}
	hub := &shopv1.Widget{}
	if err := v2.DeepCopy().ConvertTo(hub); err != nil {
		t.Fatal(err)
	}
	if hub.Spec.Address != "10.0.0.1" || hub.Spec.Timeout != "1m30s" || hub.Spec.Owner != "me" || hub.Spec.Parts[0].Count != 2 {
		t.Errorf("hub: %+v", hub.Spec)
	}
	// Host and Timeout come back from Address and Timeout; only Tier
	// has no place in v1.
	if got, want := hub.Annotations["conversion.ctrlgen.dev/v2"], `{"spec.tier":"gold"}`; got != want {
		t.Errorf("kept on the hub: %s, want %s", got, want)
	}
	back := &Widget{}
	if err := back.ConvertFrom(hub); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, v2) {
		t.Errorf("v2 → v1 → v2:\n got %+v\nwant %+v", back, v2)
	}

	v1 := &shopv1.Widget{
		ObjectMeta: metav1.ObjectMeta{Name: "w"},
		Spec:       shopv1.WidgetSpec{Address: "h", Replicas: 3, Timeout: "2m0s", Limits: &shopv1.Limits{CPU: "2", Burst: 5}},
	}
	spoke := &Widget{}
	if err := spoke.ConvertFrom(v1.DeepCopy()); err != nil {
		t.Fatal(err)
	}
	if spoke.Spec.Host != "h" || spoke.Spec.Timeout != 120 {
		t.Errorf("spoke: %+v", spoke.Spec)
	}
	if got, want := spoke.Annotations["conversion.ctrlgen.dev/v1"], `{"spec.limits.burst":5,"spec.replicas":3}`; got != want {
		t.Errorf("kept on v2: %s, want %s", got, want)
	}
	hubAgain := &shopv1.Widget{}
	if err := spoke.ConvertTo(hubAgain); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(hubAgain, v1) {
		t.Errorf("v1 → v2 → v1:\n got %+v\nwant %+v", hubAgain, v1)
	}

	// A v2 client changes Host: the v1 Address follows, not the kept value.
	spoke.Spec.Host = "changed"
	if err := spoke.ConvertTo(hubAgain); err != nil {
		t.Fatal(err)
	}
	if hubAgain.Spec.Address != "changed" {
		t.Errorf("Address after a v2 change: %q", hubAgain.Spec.Address)
	}
}
