package jsonhiding_test

import (
	"context"
	"encoding/json"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	applyprobev1 "example.com/jsonhiding/generated/applyconfiguration/probe/v1"
	"example.com/jsonhiding/generated/clientset/versioned/fake"
)

// The fake's type converter parses the schema (a field named twice would
// make it panic), and an apply sets the Authorization JSON shows.
func TestApplyWithHiddenFields(t *testing.T) {
	cs := fake.NewClientset()
	probe := applyprobev1.Probe("p", "ns").WithSpec(applyprobev1.ProbeSpec().
		WithAuthorization(applyprobev1.Authorization().WithType("Bearer")).
		WithFollowRedirects(true))
	got, err := cs.ProbeV1().Probes("ns").Apply(context.Background(), probe, metav1.ApplyOptions{FieldManager: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	if got.Spec.Authorization == nil || got.Spec.Authorization.Type != "Bearer" || got.Spec.FollowRedirects == nil || !*got.Spec.FollowRedirects {
		data, _ := json.Marshal(got.Spec)
		t.Fatalf("spec %s", data)
	}
}
